# Session 29: warm the cache (kernel 14, timed and trace; carry .cc with cc.tar.xz and, if there, ccnew.tar.xz),
# a split tail and a plain launch at two odd shapes, the GPU tests of the ladder and its traces;
# the cache entries it compiled come back in pieces of 15 MB ($OUT/ccnew_*: join them into .cc/ccnew.tar.xz).
source benchmarks/proto/warm_k14.sh  # (the same steps, shared since session 30)
python3 -m explainer bench --kernels warptile_64x128@8x16 warptile_64x64_t64 --sizes 2157x919x1719 1531x1283x1777 --repeats 20 2>&1 | grep -v "^#" | grep -v "^best"
echo "bench $(( $(date +%s) - t0 )) s"
timeout $(( 580 - $(date +%s) + t0 )) python3 -m pytest -q -m gpu tests/test_gpu_ladder.py -p no:cacheprovider 2>&1 | tail -8
echo "tests $(( $(date +%s) - t0 )) s"
