#!/bin/bash
# Session 24: the As swizzle of BK-32 configurations (kernel 14; session 25: CFGS and SEL name
# BK-16 ones): their GPU ladder and edge tests
# (trace equal to the model, products checked), then src_cmp of the last commit's kernels
# (benchmarks/proto/trees/head, git-ignored: git archive HEAD kernels | tar -x --strip-components=1 -C ...)
# against the working tree's over ROWS (3 interleaved rounds, every launch checked).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,serial,driver_version --format=csv,noheader
t0=$(date +%s)
for c in ${CFGS:-warptile_64x64_bk32 warptile_48x128 warptile_128x48}; do echo "$c trace"; echo $c; done | xargs -P 16 -L 1 python3 benchmarks/proto/precompile.py 2>&1 | grep -v "^compiled" | tail -3
python3 -m pytest -q -m gpu tests/test_gpu_ladder.py tests/test_gpu_edges.py -k "${SEL:-bk32 or 48x128 or 128x48}" -p no:cacheprovider 2>&1 | tail -4
echo "tests $(( $(date +%s) - t0 )) s"
# TREES: the trees to compare with (default benchmarks/proto/trees/head; TREES="" for none: the
# working tree's launches alone, as session 26's new configuration)
TREES="${TREES-benchmarks/proto/trees/head}"
TREES="${TREES:- }" ROWS=${ROWS:-benchmarks/proto/s24_swz_rows.txt} bash benchmarks/proto/s23_cmp.sh 2>&1 | tail -${TAIL:-14}
