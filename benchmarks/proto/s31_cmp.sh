#!/bin/bash
# Session 31: kernel 14 with the element copies' loads held in place (__syncwarp after the copy) against the
# last commit's (benchmarks/proto/trees/head: git archive HEAD kernels), src_cmp.py over ROWS, 2 interleaved
# rounds, every launch checked. Carry .whl .cc benchmarks/proto/trees.
source benchmarks/proto/warm_k14.sh  # (its $OUT/ccnew_* pieces: the new source's builds)
ROWS=${ROWS:-benchmarks/proto/s31_rows.txt}
for t in benchmarks/proto/trees/head new; do for k in $(awk '{for(i=2;i<=NF;i++){split($i,a,"[@+]"); print a[1]}}' $ROWS | sort -u); do echo $t $k; done; done | xargs -P 16 -L 1 python3 benchmarks/proto/precompile_tree.py 2>&1 | grep -v "^compiled" | tail -3
echo "precompile $(( $(date +%s) - t0 )) s"
python3 benchmarks/proto/src_cmp.py $ROWS ${ROUNDS:-2} benchmarks/proto/trees/head 2>&1 | tee $OUT/s31_cmp.txt
echo "done $(( $(date +%s) - t0 )) s"
