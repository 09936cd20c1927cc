#!/bin/bash
# Session 30: warm the cache (kernel 14, timed and trace; carry .cc), return the new cache entries in
# 15 MB pieces ($OUT/ccnew_*: join them into .cc/ccnew.tar.xz), then `pytest -m gpu` over TESTS
# (default: every GPU test) for what is left of the call's 580 s; log in $OUT/log.
{
source benchmarks/proto/warm_k14.sh
timeout $(( 580 - $(date +%s) + t0 )) python3 -m pytest -q -m gpu ${TESTS:-tests} -p no:cacheprovider --durations=15 2>&1 | tail -30
echo "tests $(( $(date +%s) - t0 )) s"
} 2>&1 | tee $OUT/log
