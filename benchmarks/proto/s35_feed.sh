# Session 35, issue 14: the feeding ceiling of mma.sync, kernel 16 and cuBLAS TF32 in the same rounds
# (benchmarks/mma_feed.py), recorded for page 09. Logs and the recorded file to $OUT.
source benchmarks/proto/device_env.sh
python3 benchmarks/mma_feed.py --rounds 3 --save $OUT 2>&1 | tee $OUT/feed.txt
