#!/bin/bash
# Session 30: kernels/pad_rows.cu as one flat run of float4 stores (benchmarks/proto/pad_rows_flat_s30.patch,
# applied before the call; not kept) against the version before (git's
# HEAD, swapped in place), 2 rounds each: the copies alone (pad_fit.py: ms, GB/s and the fit) and
# padded launches end to end; then the GPU tests of padded launches and the H100 recording with the
# new copies ($OUT/nvidia-h100-80gb-hbm3_2026-11-27.json). Carry .whl and .cc.
mkdir -p ~/.cupy && tar xJf .cc/cc.tar.xz -C ~/.cupy; tar xJf .cc/ccnew.tar.xz -C ~/.cupy
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH PYTHONUNBUFFERED=1
SHAPES="2157x919x1719 907x1027x1073 845x1099x819 1037x1689x1833 2047x2047x2047 4189x4189x4189 5995x7579x181 6157x79x1620 297x329x46641 3001x501x2999 511x4095x1023 8191x8191x511 1001x1001x1001"
{
nvidia-smi --query-gpu=name,serial,driver_version --format=csv,noheader; date -u
t0=$(date +%s)
cp kernels/pad_rows.cu /tmp/new_pad.cu
for src in before after before after; do
  if [ $src = before ]; then git show HEAD:kernels/pad_rows.cu > kernels/pad_rows.cu; else cp /tmp/new_pad.cu kernels/pad_rows.cu; fi
  echo "== $src $(date -u +%T)"
  python3 benchmarks/proto/pad_fit.py $SHAPES
  python3 -m explainer bench --kernels warptile_128x64_bk16+pad warptile_128x64_bk16 warptile_64x64_t64+pad warptile_128x256+pad --sizes 2157x919x1719 1037x1689x1833 5995x7579x181 --repeats 20 2>&1 | grep -v "^#" | grep -v "^best"
done
cp /tmp/new_pad.cu kernels/pad_rows.cu
echo "bench $(( $(date +%s) - t0 )) s"
timeout 200 python3 -m pytest -q -m gpu tests/test_gpu_ladder.py tests/test_gpu.py -k "pad" -p no:cacheprovider 2>&1 | tail -3
echo "tests $(( $(date +%s) - t0 )) s"
} 2>&1 | tee $OUT/log
bash benchmarks/proto/s22_record.sh nvidia-h100-80gb-hbm3_2026-11-27.json > $OUT/record_log.txt 2>&1; tail -3 $OUT/record_log.txt
