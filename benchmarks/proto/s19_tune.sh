#!/bin/bash
# One device call (TUNE_FLAGS: default --unpadded-only; add --new-table for a file small enough to come back) (carry .whl): warm CuPy's cache for kernel 14's timed modules, then
#   tiled-explainer tune --families $FAMILY ${TUNE_FLAGS---unpadded-only} --k K... (every kernel-14 configuration)
# joined into the shipped H100 table, written to $OUT/tuned/; then (PADCMP="SHAPE ...") every
# kernel-14 configuration's whole launch, plain and +pad, at those shapes.
# Usage: FAMILY=even [KERNELS="a b"] PADCMP="5995x7579x181" bash benchmarks/proto/s19_tune.sh K [K ...] (the grid's K, before the offset)
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,serial,driver_version --format=csv,noheader
t0=$(date +%s)
KERNELS=${KERNELS:-$(python3 -c "from explainer.model import ladder; print(' '.join(r.name for r in ladder.RUNGS + ladder.CONFIGS if r.splits_k))")}
echo $KERNELS | tr ' ' '\n' | xargs -P 16 -L 1 python3 benchmarks/proto/precompile.py 2>&1 | tail -1
echo "precompile $(( $(date +%s) - t0 )) s"
if [ -n "$PADCMP" ]; then
  PADDED=$(for k in $KERNELS; do echo -n "$k+pad "; done)
  python3 -m explainer bench --kernels $KERNELS $PADDED --sizes $PADCMP --repeats 10 2>&1 | grep -v "^#" | tail -60
  echo "padcmp $(( $(date +%s) - t0 )) s"
fi
timeout ${TUNE_S:-480} python3 -m explainer tune --families ${FAMILY:-even} ${TUNE_FLAGS---unpadded-only} --k "$@" --kernels $KERNELS --out $OUT/tuned
echo "tune rc=$? $(( $(date +%s) - t0 )) s"
