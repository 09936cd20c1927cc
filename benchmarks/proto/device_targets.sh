#!/bin/bash
# One device call that checks issue 13's targets (carry .whl; from ../shared/device/wheels.sh):
#   bash benchmarks/proto/device_targets.sh [SEED] [FRESH_PER_FAMILY] [more issue13_targets.py arguments, e.g. --named none --shapes 3506x1802x282]
# installs the wheels, warms CuPy's cache for kernel 14's timed modules (16 at once), then runs
# benchmarks/issue13_targets.py over the named shapes and fresh ones drawn from SEED, writing the
# merged rows to $OUT/targets.json and the table to $OUT/targets.txt. About 5-8 minutes on an H100 (55 shapes; --named FAMILY ... in the script for fewer).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH
nvidia-smi --query-gpu=name,serial,driver_version --format=csv,noheader
t0=$(date +%s)
python3 - <<'PY' | xargs -P 16 -L 1 python3 benchmarks/proto/precompile.py 2>&1 | tail -1
from explainer.model import ladder
for r in ladder.RUNGS + ladder.CONFIGS:
    if r.splits_k: print(r.name)
PY
echo "precompile $(( $(date +%s) - t0 )) s"
python3 benchmarks/issue13_targets.py --seed "${1:-$RANDOM}" --fresh "${2:-2}" "${@:3}" --out $OUT/targets.json | tee $OUT/targets.txt
echo "targets rc=${PIPESTATUS[0]} $(( $(date +%s) - t0 )) s"
