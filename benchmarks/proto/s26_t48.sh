#!/bin/bash
# Session 26: a new configuration of kernel 14 (CFG, default warptile_128x48_t64): its GPU ladder
# and edge tests (trace equal to the model, products against float64 with C poisoned), then its
# launches against the others over ROWS (src_cmp.py, 3 interleaved rounds, every launch checked).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,serial,driver_version --format=csv,noheader
t0=$(date +%s)
CFG=${CFG:-warptile_128x48_t64}
for k in "$CFG trace" $(awk '{for(i=2;i<=NF;i++){split($i,a,"[@+]"); print a[1]}}' ${ROWS:-benchmarks/proto/s26_t48_rows.txt} | sort -u); do echo $k; done | xargs -P 16 -L 1 python3 benchmarks/proto/precompile.py 2>&1 | grep -v "^compiled" | tail -3
echo "precompile $(( $(date +%s) - t0 )) s"
python3 -m pytest -q -m gpu tests/test_gpu_ladder.py tests/test_gpu_edges.py -k "${CFG#warptile_}" -p no:cacheprovider 2>&1 | tail -4
echo "tests $(( $(date +%s) - t0 )) s"
python3 benchmarks/proto/src_cmp.py ${ROWS:-benchmarks/proto/s26_t48_rows.txt} 3 2>&1 | grep -v "^regs"
echo "done $(( $(date +%s) - t0 )) s"
