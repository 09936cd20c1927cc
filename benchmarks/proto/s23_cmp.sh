#!/bin/bash
# Session 23: kernel 14 and splitk_reduce from the trees in benchmarks/proto/trees (s22: 76c1605,
# before the aligned slices; c436: c436ee0, aligned slices) against the working tree's, each with
# its own reduction, over ROWS (src_cmp.py, 3 interleaved rounds, every launch checked). The trees
# are not committed (git-ignored; carry them): for t in s22:76c1605 c436:c436ee0; do
#   mkdir -p benchmarks/proto/trees/${t%%:*}; git archive ${t#*:} kernels | tar -x --strip-components=1 -C benchmarks/proto/trees/${t%%:*}; done
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,serial,driver_version,clocks.max.sm,clocks.sm,power.limit --format=csv,noheader
t0=$(date +%s)
TREES="${TREES:-benchmarks/proto/trees/s22 benchmarks/proto/trees/c436}"  # (any trees: TREES=benchmarks/proto/trees/head, session 24)
for t in $TREES new; do for k in $(awk '{for(i=2;i<=NF;i++){split($i,a,"[@+]"); print a[1]}}' ${ROWS:-benchmarks/proto/s23_rows.txt} | sort -u); do echo $t $k; done; done | xargs -P 16 -L 1 python3 benchmarks/proto/precompile_tree.py 2>&1 | grep -v "^compiled" | tail -3
echo "precompile $(( $(date +%s) - t0 )) s"
python3 benchmarks/proto/src_cmp.py ${ROWS:-benchmarks/proto/s23_rows.txt} 3 $TREES 2>&1 | grep -v "^regs"
echo "done $(( $(date +%s) - t0 )) s"
