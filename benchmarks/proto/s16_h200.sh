#!/bin/bash
# Session 16, H200 call: warm the cache, record the H200 file with every kernel (the pages' second
# device), then the GPU tests with what time is left.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH
nvidia-smi --query-gpu=name,serial,clocks.sm,power.draw,driver_version --format=csv,noheader
t0=$(date +%s)
bash benchmarks/proto/precompile.sh
echo "precompile $(( $(date +%s) - t0 )) s"
python3 -m explainer bench --kernels naive naive_col tiled tiled_dynamic tiled_register_copy blocktile_1d blocktile_2d vectorized double_buffered warptile warptile_128x128 warptile_128x64 warptile_64x64 warptile_64x64_bk16 warptile_64x64_bk32 warptile_32x128 warptile_64x128 warptile_128x32_bk16 warptile_128x256 warptile_128x64_bk16 planned mma_tf32 mma_tf32_staged wgmma_tma --sizes 512 1024 2048 4096 --tiles 8 16 32 --repeats 20 --warmup 2 --budget 2.0 --save $OUT/nvidia-h200_2026-11-25.json > $OUT/record.txt 2>&1
echo "record rc=$? $(( $(date +%s) - t0 )) s"
tail -40 $OUT/record.txt
timeout $(( 400 - ($(date +%s) - t0) )) python3 -m pytest -q -m gpu -p no:cacheprovider 2>&1 | tail -6
echo "tests $(( $(date +%s) - t0 )) s"
