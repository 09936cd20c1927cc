#!/bin/bash
# Session 33: kernel 14 variants (benchmarks/proto/trees/NAME for each NAME in TREES: wide1, wide4 = the staged
# epilogue over whole rows of the warp tile, scalar / 16-byte granules, mk_wide_rows_s33.py; blockrows =
# mk_block_rows_s33.py; prev = the last commit's kernels) against the shipped source ("new"),
# src_cmp.py over ROWS, ROUNDS interleaved rounds, every launch checked. Carry .whl .cc benchmarks/proto/trees.
mkdir -p ~/.cupy && for f in .cc/*.tar.xz; do tar xJf $f -C ~/.cupy; done  # (the shipped kernels' timed builds: cc33)
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH PYTHONUNBUFFERED=1; t0=$(date +%s)
nvidia-smi --query-gpu=name,serial,driver_version --format=csv,noheader; date -u
ROWS=${ROWS:-benchmarks/proto/s33_rows.txt}
for T in $TREES; do
  for k in $(awk '{for(i=2;i<=NF;i++){split($i,a,"[@+]"); print a[1]}}' $ROWS | sort -u); do echo benchmarks/proto/trees/$T $k; done
done | xargs -P 16 -L 1 python3 benchmarks/proto/precompile_tree.py 2>&1 | grep -v "^compiled" | tail -3
echo "precompile $(( $(date +%s) - t0 )) s"
python3 benchmarks/proto/src_cmp.py $ROWS ${ROUNDS:-2} $(for T in $TREES; do echo benchmarks/proto/trees/$T; done) 2>&1 | tee $OUT/s33_cmp.txt
echo "done $(( $(date +%s) - t0 )) s"
