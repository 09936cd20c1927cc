#!/bin/bash
# Session 34, one H100 call (carry .whl, .cc), its log in $OUT/log.txt:
#   timeout 580 bash benchmarks/proto/s34_call1.sh SHAPE... > $OUT/log.txt 2>&1; tail -60 $OUT/log.txt
# every configuration's timed and trace builds compiled (the new cache entries come back as $OUT/ccnew_*),
# every launch tune would measure at the shapes (all_launches.py), then the GPU tests.
source benchmarks/proto/device_env.sh
precompile trace
(cd ~/.cupy && find kernel_cache -newer /tmp/marker -type f | tar cJf /tmp/new.tar.xz -T - && split -b 30M /tmp/new.tar.xz $OUT/ccnew_)
python3 benchmarks/proto/all_launches.py $OUT/launches.json "$@" 2>&1 | grep -v Warning
t1=$(date +%s)
timeout ${TEST_S:-300} python3 -m pytest -q -m gpu tests -p no:cacheprovider 2>&1 | tail -12
echo "tests $(( $(date +%s) - t1 )) s, all $(( $(date +%s) - t0 )) s"
