#!/bin/bash
# Session 20: one device call (carry .whl): warm the cache for every kernel-14 configuration, time the
# lines of $ROWS (shape label ...) with src_cmp.py (working tree only, $ROUNDS interleaved rounds, each
# launch checked against float64), then list the kernels cuBLAS runs at $CUBLAS (ncu).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,serial,driver_version --format=csv,noheader
t0=$(date +%s)
python3 -c "from explainer.model import ladder; print('\n'.join(r.name for r in ladder.RUNGS + ladder.CONFIGS if r.splits_k))" \
  | xargs -P 16 -L 1 python3 benchmarks/proto/precompile.py 2>&1 | tail -1
echo "precompile $(( $(date +%s) - t0 )) s"
if [ -n "$CUBLAS" ]; then
  NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu | head -1)
  timeout 120 $NCU --section LaunchStats python3 benchmarks/proto/cublas_kernels.py $CUBLAS 2>&1 \
    | grep -E "^shape|^  [a-zA-Z_].*\(|Grid Size|Block Size|Registers Per|Dynamic Shared" | sed 's/  */ /g'
  echo "cublas $(( $(date +%s) - t0 )) s"
fi
timeout ${CMP_S:-420} python3 benchmarks/proto/src_cmp.py ${ROWS:-benchmarks/proto/s20_rows.txt} ${ROUNDS:-2}
echo "cmp rc=$? $(( $(date +%s) - t0 )) s"
