#!/bin/bash
# Session 23: the 256-thread reduction (benchmarks/proto/reduce_s22_seq.patch, applied) timed
# against session 21's, the GPU tests (TESTS, default all of tests/), then issue 13's targets over
# SHAPES if less than LEFT_AT seconds have gone (default 330).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH PYTHONUNBUFFERED=1
t0=$(date +%s)
python3 benchmarks/proto/s22_reduce.py 2>&1 | tail -12
echo "reduce $(( $(date +%s) - t0 )) s"
TESTS=${TESTS:-tests} bash benchmarks/proto/s19_gpu.sh 2>&1 | tail -8
if [ -n "$SHAPES" ] && [ $(( $(date +%s) - t0 )) -lt ${LEFT_AT:-330} ]; then
  python3 benchmarks/issue13_targets.py --seed 1 --fresh 0 --named none --shapes $SHAPES --out $OUT/targets.json | tee $OUT/targets.txt
fi
echo "all $(( $(date +%s) - t0 )) s"
