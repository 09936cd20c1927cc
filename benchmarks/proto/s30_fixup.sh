#!/bin/bash
# Session 30: kernel 14's split-K fix-up reading U slices at a time (benchmarks/proto/k14_fixup_u_s30.patch, on
# kernels/14_warptile.cu of commit ef362ca,
# applied to the working tree before the call; not kept). Warm the cache for the patched source (timed and
# trace, 16 at once), return its entries ($OUT/ccnew_*), run the split GPU tests, then time split tails and
# split-K launches with the source before (git's HEAD, swapped in place: its cache entries are carried)
# and after, one bench process each.
{
source benchmarks/proto/warm_k14.sh
timeout 150 python3 -m pytest -q -m gpu tests/test_gpu_ladder.py -k "split or tail or reduce" -p no:cacheprovider 2>&1 | tail -3
echo "tests $(( $(date +%s) - t0 )) s"
cp kernels/14_warptile.cu /tmp/new.cu
for src in before after before after; do
  if [ $src = before ]; then git show HEAD:kernels/14_warptile.cu > kernels/14_warptile.cu; else cp /tmp/new.cu kernels/14_warptile.cu; fi
  echo "== $src $(date -u +%T)"
  python3 -m explainer bench --kernels warptile_128x128@4x8 warptile_128x128@4x16 warptile_128x128@4x31 warptile_64x128@8x8 warptile_64x128@8x16 warptile_128x64_bk16 --sizes 2157x919x1719 2156x920x1720 --repeats 20 2>&1 | grep -v "^#" | grep -v "^best"
  python3 -m explainer bench --kernels warptile_64x128@3x27 warptile_128x64@4x27 warptile_32x128 warptile_64x128@3x8 --sizes 907x1027x1073 908x1028x1076 --repeats 20 2>&1 | grep -v "^#" | grep -v "^best"
  python3 -m explainer bench --kernels warptile@16 warptile@16+reduce warptile_64x64_t64@11x9 warptile_48x128 --sizes 512x512x16384 3506x1802x282 --repeats 20 2>&1 | grep -v "^#" | grep -v "^best"
done
cp /tmp/new.cu kernels/14_warptile.cu
echo "done $(( $(date +%s) - t0 )) s"
} 2>&1 | tee $OUT/log
