#!/bin/bash
# Session 30: kernel 14's split-K fix-up as a function of its own (split_fixup, __noinline__) reading U
# slices at a time, against the source before (git's HEAD, swapped in place; its cache entries carried).
# Warm the cache for the working tree's source (timed and trace, 16 at once), return its entries
# ($OUT/ccnew_*), run the split GPU tests, then time split tails and split-K launches before and after
# (2 rounds, one bench process each). Carry .whl and .cc.
{
source benchmarks/proto/warm_k14.sh
timeout 150 python3 -m pytest -q -m gpu tests/test_gpu_ladder.py -k "split or tail or reduce or pad" -p no:cacheprovider 2>&1 | tail -3
echo "tests $(( $(date +%s) - t0 )) s"
cp kernels/14_warptile.cu /tmp/new.cu
for src in before after before after; do
  if [ $src = before ]; then git show HEAD:kernels/14_warptile.cu > kernels/14_warptile.cu; else cp /tmp/new.cu kernels/14_warptile.cu; fi
  echo "== $src $(date -u +%T)"
  python3 -m explainer bench --kernels warptile_128x128@4x8 warptile_128x128@4x31 warptile_64x128@8x8 warptile_64x128@8x16 warptile_128x64_bk16 --sizes 2157x919x1719 2156x920x1720 --repeats 20 2>&1 | grep -v "^#" | grep -v "^best" | grep -v "^kernel"
  python3 -m explainer bench --kernels warptile_64x128@3x27 warptile_64x128@3x8 warptile_64x64_t64@3 warptile_64x64_t64@3+reduce warptile_64x64_bk32 --sizes 907x1027x1073 --repeats 20 2>&1 | grep -v "^#" | grep -v "^best" | grep -v "^kernel"
  python3 -m explainer bench --kernels warptile_64x128@2 warptile_64x128@2+reduce warptile_128x128@2 warptile_128x128@2+reduce warptile_64x64_bk32 --sizes 845x1099x819 --repeats 20 2>&1 | grep -v "^#" | grep -v "^best" | grep -v "^kernel"
  python3 -m explainer bench --kernels warptile@16 warptile@16+reduce warptile_64x64_t64@11x3 warptile_128x256 --sizes 512x512x16384 3506x1802x282 --repeats 20 2>&1 | grep -v "^#" | grep -v "^best" | grep -v "^kernel"
done
cp /tmp/new.cu kernels/14_warptile.cu
echo "done $(( $(date +%s) - t0 )) s"
} 2>&1 | tee $OUT/log
