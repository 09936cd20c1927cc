#!/bin/bash
# Session 32: kernel 14 variants (benchmarks/proto/trees/$TREE: mid = k14_mid_fetch_s32.patch, pairst, pairdirect,
# holdall = k14_hold_all_s32.patch; rebuild a tree: mkdir, cp kernels/*, patch) against the shipped source ("new",
# from the carried cache), src_cmp.py over ROWS, 2 interleaved rounds, every launch checked. Carry .whl .cc benchmarks/proto/trees.
source benchmarks/proto/warm_k14.sh >/dev/null 2>&1; rm -f $OUT/ccnew_*
ROWS=${ROWS:-benchmarks/proto/s32_rows.txt}
for k in $(awk '{for(i=2;i<=NF;i++){split($i,a,"[@+]"); print a[1]}}' $ROWS | sort -u); do echo benchmarks/proto/trees/${TREE:-mid} $k; done | xargs -P 16 -L 1 python3 benchmarks/proto/precompile_tree.py 2>&1 | grep -v "^compiled" | tail -3
echo "precompile $(( $(date +%s) - t0 )) s"
python3 benchmarks/proto/src_cmp.py $ROWS ${ROUNDS:-2} benchmarks/proto/trees/${TREE:-mid} 2>&1 | tee $OUT/s32_cmp.txt
echo "done $(( $(date +%s) - t0 )) s"
