#!/bin/bash
# Session 21: one device call (carry .whl): warm CuPy's cache with the timed builds of every kernel-14
# configuration from kernels/ ("new") and from each tree in TREES, then src_cmp.py over $ROWS
# ($ROUNDS interleaved rounds, each launch checked against float64 with C poisoned).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,serial,driver_version --format=csv,noheader
t0=$(date +%s)
python3 - <<'PY' | xargs -P 16 -L 1 python3 benchmarks/proto/precompile_tree.py 2>&1 | grep -v "^compiled" | tail -5
import os
from explainer.model import ladder
for t in ["new"] + os.environ.get("TREES", "").split():
    for r in ladder.RUNGS + ladder.CONFIGS:
        if r.splits_k: print(t, r.name)
PY
echo "precompile $(( $(date +%s) - t0 )) s"
timeout ${CMP_S:-480} python3 benchmarks/proto/src_cmp.py ${ROWS:-benchmarks/proto/s21_rows.txt} ${ROUNDS:-2} $TREES 2>&1 | grep -v "^regs.*new=\([0-9]*\)r/0B t_base=\1r/0B"
echo "cmp rc=${PIPESTATUS[0]} $(( $(date +%s) - t0 )) s"
