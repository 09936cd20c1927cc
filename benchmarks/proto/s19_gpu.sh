#!/bin/bash
# Session 19: warm the cache (timed and trace builds of every kernel-14 configuration, and the
# timed builds of the trees given in TREES), the GPU ladder tests, then src_cmp over SHAPES.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,serial,driver_version --format=csv,noheader
t0=$(date +%s)
python3 - <<'PY' | xargs -P 16 -L 1 python3 benchmarks/proto/precompile_tree.py 2>&1 | grep -v "^compiled" | tail -5
import os
from explainer.model import ladder
for r in ladder.RUNGS + ladder.CONFIGS:
    if r.splits_k:
        print("new", r.name)
for t in os.environ.get("TREES", "").split():
    for r in ladder.RUNGS + ladder.CONFIGS:
        if r.splits_k: print(t, r.name)
PY
python3 - <<'PY' | xargs -P 16 -L 1 python3 benchmarks/proto/precompile.py 2>&1 | grep -v "^compiled" | tail -5
from explainer.model import ladder
for r in ladder.RUNGS + ladder.CONFIGS:
    if r.splits_k: print(r.name, "trace")
PY
echo "precompile $(( $(date +%s) - t0 )) s"
python3 -m pytest -q -m gpu ${TESTS:-tests/test_gpu_ladder.py} -p no:cacheprovider 2>&1 | tail -4
echo "tests $(( $(date +%s) - t0 )) s"
[ -n "$SHAPES" ] && python3 benchmarks/proto/src_cmp.py $SHAPES 3 $TREES 2>&1 | grep -v "^regs"
echo "done $(( $(date +%s) - t0 )) s"
