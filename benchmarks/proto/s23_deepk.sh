#!/bin/bash
# Session 23: issue 13's deep-K family (named, 10 fresh from seed 23003, and the shapes that missed
# before; the 10 fresh are fresh_shapes(10, 23003)["deep K"]) with this tree's planner, then with the planner of benchmarks/proto/trees/planner_head.py
# (git show HEAD:explainer/model/planner.py; git-ignored, carry it) in a copy of the tree.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,serial,driver_version --format=csv,noheader
t0=$(date +%s)
python3 - <<'PY' | xargs -P 16 -L 1 python3 benchmarks/proto/precompile.py 2>&1 | tail -1
from explainer.model import ladder
for r in ladder.RUNGS + ladder.CONFIGS:
    if r.splits_k: print(r.name)
PY
echo "precompile $(( $(date +%s) - t0 )) s"
ARGS="--seed 1 --fresh 0 --named deep\\ K --shapes 258x194x51344 440x282x13360 140x208x17134 352x336x11896 522x514x28590 484x494x21510 546x156x34154 352x308x11242 518x146x12048 170x516x12500 490x152x38734 490x130x18596 598x332x10560 414x384x42694 570x222x15416 442x394x28170"
eval python3 benchmarks/issue13_targets.py $ARGS --out $OUT/new.json > $OUT/new.txt; tail -22 $OUT/new.txt
echo "new $(( $(date +%s) - t0 )) s"
rm -rf /tmp/oldtree && cp -r . /tmp/oldtree && cp benchmarks/proto/trees/planner_head.py /tmp/oldtree/explainer/model/planner.py
(cd /tmp/oldtree && export PYTHONPATH=/tmp/oldtree:/tmp/site && eval python3 benchmarks/issue13_targets.py $ARGS --out $OUT/old.json > $OUT/old.txt); tail -22 $OUT/old.txt
echo "old $(( $(date +%s) - t0 )) s"
