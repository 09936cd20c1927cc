#!/bin/bash
# Session 34: every launch tune would measure at the given shapes (all_launches.py), timed builds warmed
# from the carried caches: timeout 580 bash benchmarks/proto/s34_launches.sh SHAPE... > $OUT/log.txt 2>&1
mkdir -p ~/.cupy && for f in .cc/*.tar.xz; do tar xJf $f -C ~/.cupy; done
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,serial,driver_version --format=csv,noheader; date -u
t0=$(date +%s)
python3 -c "from explainer.model import ladder; print('\n'.join(r.name for r in ladder.RUNGS + ladder.CONFIGS))" \
  | xargs -P 16 -L 1 python3 benchmarks/proto/precompile.py 2>&1 | grep -v "^compiled" | tail -3
echo "precompile $(( $(date +%s) - t0 )) s"
python3 benchmarks/proto/all_launches.py $OUT/launches.json "$@" 2>&1 | grep -v Warning
echo "done $(( $(date +%s) - t0 )) s"
