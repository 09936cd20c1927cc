#!/bin/bash
# Session 22: record a device's timings file (the pages' figures) with every kernel, in bench's
# interleaved order:  bash benchmarks/proto/s22_record.sh FILE_NAME [more bench arguments]
# warms CuPy's cache for every kernel (16 at once), then runs the same bench command as the
# 2026-11-26 H100 recording, writing $OUT/FILE_NAME and $OUT/record.txt.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,serial,clocks.sm,power.draw,driver_version --format=csv,noheader
t0=$(date +%s)
bash benchmarks/proto/precompile.sh
# every kernel the package registers, the ladder's configurations before the planned launches (session 27:
# from gpu.KERNEL_NAMES, so that a configuration added to the ladder is recorded)
KERNELS=$(python3 -c "from explainer import gpu; print(' '.join([*gpu.KERNEL_NAMES, 'planned', *gpu.TENSOR_KERNEL_NAMES]))")
echo "precompile $(( $(date +%s) - t0 )) s"
python3 -m explainer bench --kernels $KERNELS --sizes 512 1024 2048 4096 --tiles 8 16 32 --repeats 20 --warmup 2 --budget 2.0 "${@:2}" --save $OUT/$1 > $OUT/record.txt 2>&1
echo "record rc=$? $(( $(date +%s) - t0 )) s"
tail -45 $OUT/record.txt
