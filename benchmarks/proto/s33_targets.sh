#!/bin/bash
# Session 33: issue 13's targets with only the timed builds warmed (the carried .cc/*.tar.xz):
#   timeout 580 bash benchmarks/proto/s33_targets.sh SEED FRESH [more issue13_targets.py arguments] > $OUT/log.txt 2>&1
mkdir -p ~/.cupy && for f in .cc/*.tar.xz; do tar xJf $f -C ~/.cupy; done
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,serial,driver_version --format=csv,noheader; date -u
t0=$(date +%s)
python3 -c "from explainer.model import ladder; print('\n'.join(r.name for r in ladder.RUNGS + ladder.CONFIGS))" \
  | xargs -P 16 -L 1 python3 benchmarks/proto/precompile.py 2>&1 | grep -v "^compiled" | tail -3
echo "precompile $(( $(date +%s) - t0 )) s"
python3 benchmarks/issue13_targets.py --seed "${1:-$RANDOM}" --fresh "${2:-3}" "${@:3}" --out $OUT/targets.json > $OUT/targets.txt 2>&1
echo "targets rc=$? $(( $(date +%s) - t0 )) s"; tail -12 $OUT/targets.txt
