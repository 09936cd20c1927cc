#!/bin/bash
# Session 30, after split_fixup: every GPU test, the H100 recording and issue 13's targets (seed 30003,
# 3 fresh a family, and the named shapes) in one call. Carry .whl and .cc (ccnew: the builds of this source).
mkdir -p ~/.cupy && tar xJf .cc/cc.tar.xz -C ~/.cupy; tar xJf .cc/ccnew.tar.xz -C ~/.cupy
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH PYTHONUNBUFFERED=1
t0=$(date +%s)
{ nvidia-smi --query-gpu=name,serial,driver_version --format=csv,noheader; date -u
  timeout 200 python3 -m pytest -q -m gpu tests -p no:cacheprovider 2>&1 | tail -4
  echo "tests $(( $(date +%s) - t0 )) s"; } 2>&1 | tee $OUT/log
bash benchmarks/proto/s22_record.sh nvidia-h100-80gb-hbm3_2026-11-27.json > $OUT/record_log.txt 2>&1
echo "record $(( $(date +%s) - t0 )) s" | tee -a $OUT/log
timeout $(( 585 - $(date +%s) + t0 )) bash benchmarks/proto/device_targets.sh 30003 3 --shapes 845x1099x819 907x1027x1073 2157x919x1719 > $OUT/targets_log.txt 2>&1
tail -80 $OUT/targets_log.txt
