#!/bin/bash
# Session 17, second slice: whole-K bodies picked by lda/ldb (MINB >= 2) against the previous commit
# (benchmarks/proto/prev_tree), the GPU ladder tests, then issue 13's targets (seed $1).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH
nvidia-smi --query-gpu=name,serial,driver_version --format=csv,noheader
t0=$(date +%s)
python3 - <<'PY' | xargs -P 16 -L 1 python3 benchmarks/proto/precompile_tree.py 2>&1 | grep -v "^compiled" | tail -5
from explainer.model import ladder
for r in ladder.RUNGS + ladder.CONFIGS:
    if r.splits_k:
        print("new", r.name)
        if r.name in ("warptile_64x128", "warptile_128x64_bk16", "warptile_128x256", "warptile_32x128",
                      "warptile_128x128", "warptile", "warptile_64x64_bk32", "warptile_64x64_bk16"):
            print("benchmarks/proto/prev_tree", r.name)
PY
python3 - <<'PY' | xargs -P 16 -L 1 python3 benchmarks/proto/precompile.py 2>&1 | grep -v "^compiled" | tail -5
from explainer.model import ladder
for r in ladder.RUNGS + ladder.CONFIGS:
    if r.splits_k: print(r.name, "trace")
PY
echo "precompile $(( $(date +%s) - t0 )) s"
python3 -m pytest -q -m gpu tests/test_gpu_ladder.py -p no:cacheprovider 2>&1 | tail -3
echo "tests $(( $(date +%s) - t0 )) s"
python3 benchmarks/proto/src_cmp.py benchmarks/proto/wholek2_shapes.txt 3 benchmarks/proto/prev_tree 2>&1 | grep -v "^regs" | tail -12
echo "cmp $(( $(date +%s) - t0 )) s"
python3 benchmarks/issue13_targets.py --seed "$1" --fresh 2 --out $OUT/targets.json > $OUT/targets.txt 2>&1
grep -E "MISS|pass," $OUT/targets.txt
echo "targets $(( $(date +%s) - t0 )) s"
