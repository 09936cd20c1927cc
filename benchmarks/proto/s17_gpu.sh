#!/bin/bash
# Session 17: warm the cache (timed and trace builds of every kernel-14 configuration, 16 at once),
# then the GPU ladder tests, then (TARGETS=1) issue 13's targets.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH
nvidia-smi --query-gpu=name,serial,driver_version --format=csv,noheader
t0=$(date +%s)
python3 - <<'PY' | xargs -P 16 -L 1 python3 benchmarks/proto/precompile.py 2>&1 | grep -v "^compiled" | tail -5
from explainer.model import ladder
for r in ladder.RUNGS + ladder.CONFIGS:
    if r.splits_k: print(r.name); print(r.name, "trace")
PY
echo "precompile $(( $(date +%s) - t0 )) s"
python3 -m pytest -q -m gpu ${TESTS:-tests/test_gpu_ladder.py} -p no:cacheprovider 2>&1 | tail -8
echo "tests $(( $(date +%s) - t0 )) s"
if [ -n "$TARGETS" ]; then
python3 benchmarks/issue13_targets.py --seed "$TARGETS" --fresh 2 --out $OUT/targets.json > $OUT/targets.txt 2>&1
tail -16 $OUT/targets.txt
echo "targets $(( $(date +%s) - t0 )) s"
fi
