#!/bin/bash
# Session 16, device call 1: warm the cache, GUARD 4 (roomy) against GUARD 2, GPU tests of kernel 14.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH
nvidia-smi --query-gpu=name,serial,clocks.sm,power.draw --format=csv,noheader
t0=$(date +%s)
bash benchmarks/proto/precompile.sh
echo "precompile $(( $(date +%s) - t0 )) s"
python3 benchmarks/proto/roomy_cmp.py benchmarks/proto/roomy_shapes.txt 3 2>&1 | tee $OUT/roomy.txt
echo "roomy $(( $(date +%s) - t0 )) s"
timeout 240 python3 -m pytest -q -m gpu tests/test_gpu_ladder.py -x 2>&1 | tail -5
echo "tests $(( $(date +%s) - t0 )) s"
