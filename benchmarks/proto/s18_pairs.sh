#!/bin/bash
# Session 18: kernel 14's copies by pairs (GUARD 5, 6) -- warm the cache (timed and trace builds of
# every kernel-14 configuration, and HEAD's kernels for the compared ones), the GPU ladder tests,
# then src_cmp of the working kernels against benchmarks/proto/head_tree (the commit before:
#   mkdir -p benchmarks/proto/head_tree && for f in $(git ls-tree --name-only REV kernels/); do git show REV:$f > benchmarks/proto/head_tree/$(basename $f); done).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,serial,driver_version --format=csv,noheader
t0=$(date +%s)
CMP="warptile_64x128 warptile_128x256 warptile warptile_64x64 warptile_64x64_bk16 warptile_128x128 warptile_128x64_bk16 warptile_32x128"
( python3 - <<'PY'
from explainer.model import ladder
for r in ladder.RUNGS + ladder.CONFIGS:
    if r.splits_k: print("python3 benchmarks/proto/precompile.py", r.name); print("python3 benchmarks/proto/precompile.py", r.name, "trace")
PY
for k in $CMP; do echo "python3 benchmarks/proto/precompile_tree.py benchmarks/proto/head_tree $k"; done ) | xargs -P 16 -I{} sh -c '{}' 2>&1 | grep -v "^compiled" | tail -5
echo "precompile $(( $(date +%s) - t0 )) s"
timeout ${TEST_S:-300} python3 -m pytest -q -m gpu tests/test_gpu_ladder.py -p no:cacheprovider -x 2>&1 | tail -6
echo "tests $(( $(date +%s) - t0 )) s"
timeout ${CMP_S:-200} python3 benchmarks/proto/src_cmp.py benchmarks/proto/pairs_cmp_shapes.txt 3 benchmarks/proto/head_tree 2>&1 | grep -v "^regs" | tail -20
echo "done $(( $(date +%s) - t0 )) s"
