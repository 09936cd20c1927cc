#!/bin/bash
# Session 33, one H100 call (carry .whl, .cc, benchmarks/proto/trees), its log in $OUT/log.txt:
#   timeout 570 bash benchmarks/proto/s33_call1.sh > $OUT/log.txt 2>&1; tail -60 $OUT/log.txt
# kernel 14 with the wide epilogue (GUARD + 16) precompiled (warm_k14.sh: the new cache entries come back
# as $OUT/ccnew_*), the GPU tests, then the last commit's kernels (trees/prev) against these over ROWS
# (src_cmp.py, 3 interleaved rounds, every launch checked).
source benchmarks/proto/warm_k14.sh
t1=$(date +%s)
[ -n "$SKIP_TESTS" ] || timeout ${TEST_S:-200} python3 -m pytest -q -m gpu tests -p no:cacheprovider -x 2>&1 | tail -12
echo "tests $(( $(date +%s) - t1 )) s"
ROWS=${ROWS:-benchmarks/proto/s33_rows2.txt}
for k in $(awk '{for(i=2;i<=NF;i++){split($i,a,"[@+]"); print a[1]}}' $ROWS | sort -u); do echo benchmarks/proto/trees/prev $k; done \
  | xargs -P 16 -L 1 python3 benchmarks/proto/precompile_tree.py 2>&1 | grep -v "^compiled" | tail -3
echo "prev precompiled $(( $(date +%s) - t0 )) s"
timeout ${CMP_S:-150} python3 benchmarks/proto/src_cmp.py $ROWS ${ROUNDS:-3} benchmarks/proto/trees/prev 2>&1 | grep -v "^regs" | tee $OUT/s33_cmp.txt
echo "done $(( $(date +%s) - t0 )) s"
