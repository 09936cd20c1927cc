#!/bin/bash
# Session 22: a new kernel-14 configuration (CFG) compiled (timed, trace), its GPU ladder tests,
# then src_cmp over ROWS (3 interleaved rounds, each launch checked against float64).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,serial,driver_version --format=csv,noheader
t0=$(date +%s)
python3 - <<'PY' | xargs -P 16 -L 1 python3 benchmarks/proto/precompile.py 2>&1 | grep -v "^compiled" | tail -5
import os
from explainer.model import ladder
rows = open(os.environ.get("ROWS", "benchmarks/proto/s22_rows.txt")).read().split()
names = {l.split("@")[0].split("+")[0] for l in rows if l.startswith("warptile")}
for r in ladder.RUNGS + ladder.CONFIGS:
    if r.name in names: print(r.name)
print(os.environ.get("CFG", "warptile_128x48"), "trace")
PY
echo "precompile $(( $(date +%s) - t0 )) s"
python3 -m pytest -q -m gpu tests/test_gpu_ladder.py tests/test_gpu_edges.py -k "${CFG:-warptile_128x48}" -p no:cacheprovider 2>&1 | tail -4
echo "tests $(( $(date +%s) - t0 )) s"
python3 benchmarks/proto/src_cmp.py ${ROWS:-benchmarks/proto/s22_rows.txt} 3 2>&1 | grep -v "^regs"
echo "done $(( $(date +%s) - t0 )) s"
