#!/bin/bash
# Sourced by the session-30 device scripts: unpack CuPy's carried cache (.cc), install the wheels (.whl),
# compile kernel 14's timed and trace builds of every configuration (16 at once), and return the cache
# entries compiled here in 15 MB pieces ($OUT/ccnew_*: join them into .cc/ccnew.tar.xz). Sets t0.
mkdir -p ~/.cupy && for f in .cc/*.tar.xz; do tar xJf $f -C ~/.cupy; done; touch /tmp/marker
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,serial,driver_version --format=csv,noheader; date -u
t0=$(date +%s)
python3 - <<'PY' | xargs -P 16 -L 1 python3 benchmarks/proto/precompile.py 2>&1 | grep -v "^compiled" | tail -3
from explainer.model import ladder
for r in ladder.RUNGS + ladder.CONFIGS:
    if r.splits_k: print(r.name, "timed"); print(r.name, "trace")
PY
echo "precompile $(( $(date +%s) - t0 )) s"
(cd ~/.cupy && find kernel_cache -newer /tmp/marker -type f | tar cJf /tmp/new.tar.xz -T - && split -b 15M /tmp/new.tar.xz $OUT/ccnew_)
