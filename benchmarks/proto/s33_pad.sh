#!/bin/bash
# Session 33: short K with N = 2 mod 4: plain (GUARD 5, pairs), +pad (GUARD 3: A and B aligned copies, C not)
# and the aligned neighbour (N + 2), same run, median of 20; then nsys-free kernel times of the +pad pieces.
source benchmarks/proto/warm_k14.sh >/dev/null 2>&1; rm -f $OUT/ccnew_*
S="2490x2974x64 2490x2976x64 1496x2326x188 1496x2328x188 2548x1738x72 2548x1740x72"
K="warptile_64x64_bk16 warptile_64x64_bk16+pad warptile_64x64_t64 warptile_64x64_t64+pad warptile_128x128 warptile_128x128+pad warptile_64x64_bk32 warptile_64x64_bk32+pad"
python3 -m explainer bench --kernels $K --sizes $S 2>&1 | tee $OUT/s33_pad.txt
echo "done $(( $(date +%s) - t0 )) s"
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
for L in warptile_64x64_t64+pad warptile_64x64_bk16+pad; do
  echo "=== ncu $L 2490x2974x64 (every kernel of the launch)"
  $NCU --clock-control none --launch-skip 2 --launch-count 4 --metrics gpu__time_duration.sum,launch__registers_per_thread,launch__grid_size \
    python3 benchmarks/profile_one.py $L 2490x2974x64 2>&1 | grep -E "^  [a-z_]+|gpu__time|registers|grid_size" | sed 's/  */ /g' | head -24
done
