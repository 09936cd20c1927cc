#!/bin/bash
# Session 35, one device call (carry .whl, .cc): the launches of KERNELS that the H100's tuning table
# lacks (warptile_64x96_t64: K = 256 and the padded launches), measured into $OUT/tuned (this run's rows
# alone, written as it goes); join them locally with recorded.merge_tables(by_launch=True).
#   KERNELS="warptile_64x96_t64" KS="256 16384 8192" TUNE_S=520 timeout 590 bash benchmarks/proto/s35_tune.sh > $OUT/log.txt 2>&1
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H100 || { echo "not an H100: stop"; exit 3; }
source benchmarks/proto/device_env.sh
echo $KERNELS | tr ' ' '\n' | xargs -P 16 -L 1 python3 benchmarks/proto/precompile.py 2>&1 | tail -1
echo "precompile $(( $(date +%s) - t0 )) s"
timeout ${TUNE_S:-540} python3 -m explainer tune --missing-only --new-table --kernels $KERNELS --k ${KS:-256 1024 4096 8192 16384} --out $OUT/tuned 2>&1 | grep -v Warning | tail -8
echo "tune rc=$? $(( $(date +%s) - t0 )) s"; ls -la $OUT/tuned
