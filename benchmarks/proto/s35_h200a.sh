# Session 35, call 1 on the H200: refuse any other GPU; compile every configuration's timed module into
# CuPy's cache (it comes back as $OUT/ccnew_*: join into .cc/cc35.tar.xz for call 2 and later sessions),
# then the feeding measurement, recorded (benchmarks/mma_feed.py --save).
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 || { nvidia-smi --query-gpu=name --format=csv,noheader; echo "not an H200: stop"; exit 3; }
source benchmarks/proto/device_env.sh
precompile
(cd ~/.cupy && find kernel_cache -newer /tmp/marker -type f | tar cJf /tmp/new.tar.xz -T - && split -b 15M /tmp/new.tar.xz $OUT/ccnew_)
ls -la $OUT
python3 benchmarks/mma_feed.py --rounds 3 --save $OUT 2>&1 | tee $OUT/feed.txt
