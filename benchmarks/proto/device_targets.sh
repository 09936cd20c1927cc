#!/bin/bash
# One device call that checks issue 13's targets (carry .whl and .cc: ../shared/device/wheels.sh, warm_k14.sh):
#   bash benchmarks/proto/device_targets.sh [SEED] [FRESH_PER_FAMILY] [more issue13_targets.py arguments, e.g. --named none --shapes 3506x1802x282]
# installs the wheels, warms CuPy's cache for kernel 14's modules (warm_k14.sh), then runs
# benchmarks/issue13_targets.py over the named shapes and fresh ones drawn from SEED, writing the
# merged rows to $OUT/targets.json and the table to $OUT/targets.txt. About 5-8 minutes on an H100 (55 shapes; --named FAMILY ... in the script for fewer).
source benchmarks/proto/warm_k14.sh  # the carried caches (.cc), the wheels, kernel 14 precompiled; sets t0
rm -f $OUT/ccnew_*
python3 benchmarks/issue13_targets.py --seed "${1:-$RANDOM}" --fresh "${2:-2}" "${@:3}" --out $OUT/targets.json | tee $OUT/targets.txt
echo "targets rc=${PIPESTATUS[0]} $(( $(date +%s) - t0 )) s"
