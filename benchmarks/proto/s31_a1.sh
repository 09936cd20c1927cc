#!/bin/bash
# Session 31: kernel 14 with HOLD_LOADS on a fresh H100 (carry .whl .cc): warm the cache with the new source
# (its builds come back as $OUT/ccnew_*), bench the configurations whose bodies changed (and two controls) at
# the mid-size shapes, then the H100 recording (s22_record.sh).
source benchmarks/proto/warm_k14.sh
python3 -m explainer bench --kernels warptile_128x64_bk16 warptile_48x128 warptile_64x64_bk32 warptile_128x48 warptile_128x48_t64 warptile_64x64_t64 warptile_128x256 \
  --sizes 2157x919x1719 2158x920x1718 2156x920x1720 3506x1802x282 845x1099x819 --repeats 20 2>&1 | grep -v "^#" | tee $OUT/bench_new.txt
echo "bench $(( $(date +%s) - t0 )) s"
bash benchmarks/proto/s22_record.sh ${REC:-nvidia-h100-80gb-hbm3_2026-11-27.json} | tail -8
echo "all $(( $(date +%s) - t0 )) s"
