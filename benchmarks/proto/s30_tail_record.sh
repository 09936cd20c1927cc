#!/bin/bash
# Session 30: split tails of warptile_128x128 and warptile_64x128 at 2157x919x1719 and 2156x920x1720, S from
# 2 to 31 (what a tile's fix-up costs; $OUT/tail.txt), then the H100 recording (s22_record.sh). Carry .whl and .cc.
mkdir -p ~/.cupy && tar xJf .cc/cc.tar.xz -C ~/.cupy; tar xJf .cc/ccnew.tar.xz -C ~/.cupy
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH PYTHONUNBUFFERED=1
{ date -u; python3 -m explainer bench --kernels warptile_128x128 warptile_128x128@4x2 warptile_128x128@4x4 warptile_128x128@4x8 warptile_128x128@4x16 warptile_128x128@4x31 warptile_64x128 warptile_64x128@8x4 warptile_64x128@8x8 warptile_64x128@8x16 --sizes 2157x919x1719 2156x920x1720 --repeats 20 2>&1 | grep -v "^#"; date -u; } 2>&1 | tee $OUT/tail.txt
bash benchmarks/proto/s22_record.sh nvidia-h100-80gb-hbm3_2026-11-27.json
