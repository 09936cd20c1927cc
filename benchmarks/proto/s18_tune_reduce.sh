#!/bin/bash
# One device call (carry .whl): the whole and aligned families of the kernel-14 configurations whose
# table rows lacked +reduce launches (measured before tune measured them), joined into the shipped table.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,serial,driver_version --format=csv,noheader
t0=$(date +%s)
KERNELS="warptile warptile_128x128 warptile_128x64 warptile_64x64 warptile_64x64_bk16 warptile_64x64_bk32 warptile_32x128"
echo $KERNELS | tr ' ' '\n' | xargs -P 16 -L 1 python3 benchmarks/proto/precompile.py 2>&1 | tail -1
echo "precompile $(( $(date +%s) - t0 )) s"
timeout ${TUNE_S:-540} python3 -m explainer tune --families whole aligned --kernels $KERNELS --out $OUT/tuned
echo "tune rc=$? $(( $(date +%s) - t0 )) s"
