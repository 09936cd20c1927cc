#!/bin/bash
# Session 34, one H100 call (carry .whl, .cc), its log in $OUT/log.txt:
#   timeout 580 bash benchmarks/proto/s34_call1.sh SHAPE... > $OUT/log.txt 2>&1; tail -60 $OUT/log.txt
# every configuration's timed and trace builds compiled (the new cache entries come back as $OUT/ccnew_*),
# every launch tune would measure at the shapes (all_launches.py), then the GPU tests.
mkdir -p ~/.cupy && for f in .cc/*.tar.xz; do tar xJf $f -C ~/.cupy; done; touch /tmp/marker
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,serial,driver_version --format=csv,noheader; date -u
t0=$(date +%s)
python3 -c "
from explainer.model import ladder
for r in ladder.RUNGS + ladder.CONFIGS:
    print(r.name); print(r.name, 'trace')" | xargs -P 16 -L 1 python3 benchmarks/proto/precompile.py 2>&1 | grep -v "^compiled" | tail -3
echo "precompile $(( $(date +%s) - t0 )) s"
(cd ~/.cupy && find kernel_cache -newer /tmp/marker -type f | tar cJf /tmp/new.tar.xz -T - && split -b 30M /tmp/new.tar.xz $OUT/ccnew_)
python3 benchmarks/proto/all_launches.py $OUT/launches.json "$@" 2>&1 | grep -v Warning
t1=$(date +%s)
timeout ${TEST_S:-300} python3 -m pytest -q -m gpu tests -p no:cacheprovider 2>&1 | tail -12
echo "tests $(( $(date +%s) - t1 )) s, all $(( $(date +%s) - t0 )) s"
