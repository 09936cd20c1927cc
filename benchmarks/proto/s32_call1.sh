#!/bin/bash
# Session 32, one H100 call (carry .whl and .cc): the GPU tests after the device-side check
# (verify._Problem.check_C), then warptile_128x64_bk16's odd and even rows tuned again (HOLD_LOADS),
# written alone ($OUT/tuned, --new-table) to be joined into the H100 table here.
source benchmarks/proto/warm_k14.sh
rm -f $OUT/ccnew_*
t1=$(date +%s)
timeout ${TEST_S:-200} python3 -m pytest -q -m gpu tests -p no:cacheprovider 2>&1 | tail -8
echo "tests $(( $(date +%s) - t1 )) s"
t1=$(date +%s)
timeout ${TUNE_S:-360} python3 -m explainer tune --families odd even --unpadded-only --new-table \
  --kernels ${KERNELS:-warptile_128x64_bk16} --out $OUT/tuned 2>&1 | grep -v "refused/failed" | tail -8
echo "tune rc=${PIPESTATUS[0]} $(( $(date +%s) - t1 )) s"
