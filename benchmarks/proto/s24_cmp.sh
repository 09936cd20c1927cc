#!/bin/bash
# Session 24: kernel 14 from the trees in TREES (default benchmarks/proto/trees/alongm: As copied with
# lanes along m where BK >= 16, a prototype) against the working tree's, each with
# its own reduction, over ROWS (src_cmp.py, 3 interleaved rounds, every launch checked). The trees
# are not committed (git-ignored; carry them): mkdir -p benchmarks/proto/trees/alongm; git archive HEAD kernels |
#   tar -x --strip-components=1 -C benchmarks/proto/trees/alongm, then edit 14_warptile.cu there.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,serial,driver_version,clocks.max.sm,clocks.sm,power.limit --format=csv,noheader
t0=$(date +%s)
TREES="${TREES:-benchmarks/proto/trees/alongm}"
for t in $TREES new; do for k in $(awk '{for(i=2;i<=NF;i++){split($i,a,"[@+]"); print a[1]}}' ${ROWS:-benchmarks/proto/s24_alongm_rows.txt} | sort -u); do echo $t $k; done; done | xargs -P 16 -L 1 python3 benchmarks/proto/precompile_tree.py 2>&1 | grep -v "^compiled" | tail -3
echo "precompile $(( $(date +%s) - t0 )) s"
python3 benchmarks/proto/src_cmp.py ${ROWS:-benchmarks/proto/s24_alongm_rows.txt} 3 $TREES 2>&1 | grep -v "^regs"
echo "done $(( $(date +%s) - t0 )) s"
