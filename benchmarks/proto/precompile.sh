#!/bin/bash
# Scratch: warm CuPy's kernel cache for kernel 14's configurations (timed and trace) in parallel.
python - <<'PY' > /tmp/precompile_jobs.txt
from explainer.model import ladder
for r in ladder.RUNGS + ladder.CONFIGS:
    print(r.name); print(r.name, "trace")
PY
xargs -P 16 -L 1 python benchmarks/proto/precompile.py < /tmp/precompile_jobs.txt 2>&1 | tail -3
