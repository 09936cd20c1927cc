#!/bin/bash
# Session 17: the multi-stage cp.async element copies (benchmarks/proto/async_tree) against kernels/.
# The trees: mkdir -p T && cp kernels/* T && patch T/14_warptile.cu benchmarks/proto/k14_async_s17.patch (or k14_realign_s17.patch), then TREE=T.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH
nvidia-smi --query-gpu=name,serial,driver_version --format=csv,noheader
t0=$(date +%s)
for t in new ${TREE:-benchmarks/proto/async_tree}; do for k in ${CONFIGS:-warptile_64x128 warptile_128x64_bk16 warptile_128x256 warptile_32x128 warptile_128x32_bk16 warptile_128x128}; do echo $t $k; done; done \
  | xargs -P 16 -L 1 python3 benchmarks/proto/precompile_tree.py 2>&1 | grep -v "^compiled" | tail -20
echo "precompile $(( $(date +%s) - t0 )) s"
python3 benchmarks/proto/src_cmp.py ${SHAPES:-benchmarks/proto/async_shapes.txt} ${ROUNDS:-3} ${TREE:-benchmarks/proto/async_tree} 2>&1 | tail -40
echo "done $(( $(date +%s) - t0 )) s"
