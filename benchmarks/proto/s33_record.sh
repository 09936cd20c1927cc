#!/bin/bash
# Session 33: a device's recording (the pages' figures) after a kernel 14 change, timed builds only:
#   timeout 580 bash benchmarks/proto/s33_record.sh FILE_NAME > $OUT/log.txt 2>&1; tail -50 $OUT/log.txt
# unpacks every carried cache (.cc/*.tar.xz), installs the wheels, compiles every configuration's timed
# module (16 at once; the new cache entries come back as $OUT/ccnew_*: join them into .cc/ccNN.tar.xz),
# then the same bench command as s22_record.sh, writing $OUT/FILE_NAME and $OUT/record.txt; with
# TARGETS=SEED also issue 13's targets afterwards (3 fresh shapes a family).
mkdir -p ~/.cupy && for f in .cc/*.tar.xz; do tar xJf $f -C ~/.cupy; done; touch /tmp/marker
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,serial,clocks.sm,power.draw,driver_version --format=csv,noheader; date -u
t0=$(date +%s)
python3 -c "from explainer.model import ladder; print('\n'.join(r.name for r in ladder.RUNGS + ladder.CONFIGS))" \
  | xargs -P 16 -L 1 python3 benchmarks/proto/precompile.py 2>&1 | grep -v "^compiled" | tail -3
echo "precompile $(( $(date +%s) - t0 )) s"
(cd ~/.cupy && find kernel_cache -newer /tmp/marker -type f | tar cJf /tmp/new.tar.xz -T - && split -b 15M /tmp/new.tar.xz $OUT/ccnew_)
KERNELS=$(python3 -c "from explainer import gpu; print(' '.join([*gpu.KERNEL_NAMES, 'planned', *gpu.TENSOR_KERNEL_NAMES]))")
python3 -m explainer bench --kernels $KERNELS --sizes 512 1024 2048 4096 --tiles 8 16 32 --repeats 20 --warmup 2 --budget 2.0 --save $OUT/$1 > $OUT/record.txt 2>&1
echo "record rc=$? $(( $(date +%s) - t0 )) s"
tail -40 $OUT/record.txt
if [ -n "$TARGETS" ]; then
  python3 benchmarks/issue13_targets.py --seed "$TARGETS" --fresh 3 --out $OUT/targets.json > $OUT/targets.txt 2>&1
  echo "targets rc=$? $(( $(date +%s) - t0 )) s"; tail -25 $OUT/targets.txt
fi
