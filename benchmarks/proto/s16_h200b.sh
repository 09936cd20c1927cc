#!/bin/bash
# Session 16: the H200 recording alone (timed modules only warmed first).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH
nvidia-smi --query-gpu=name,serial,clocks.sm,power.draw,driver_version --format=csv,noheader
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 || { echo "not an H200: stop"; exit 3; }
t0=$(date +%s)
python3 - <<'PY' > /tmp/jobs.txt
from explainer.gpu.launch import KERNELS
for n in KERNELS: print(n)
PY
xargs -P 16 -L 1 python3 benchmarks/proto/precompile.py < /tmp/jobs.txt 2>&1 | tail -1
echo "precompile $(( $(date +%s) - t0 )) s"
python3 -m explainer bench --kernels naive naive_col tiled tiled_dynamic tiled_register_copy blocktile_1d blocktile_2d vectorized double_buffered warptile warptile_128x128 warptile_128x64 warptile_64x64 warptile_64x64_bk16 warptile_64x64_bk32 warptile_32x128 warptile_64x128 warptile_128x32_bk16 warptile_128x256 warptile_128x64_bk16 planned mma_tf32 mma_tf32_staged wgmma_tma --sizes 512 1024 2048 4096 --tiles 8 16 32 --repeats 20 --warmup 2 --budget 2.0 --save $OUT/nvidia-h200_2026-11-25.json > $OUT/record.txt 2>&1
echo "record rc=$? $(( $(date +%s) - t0 )) s"
tail -8 $OUT/record.txt
