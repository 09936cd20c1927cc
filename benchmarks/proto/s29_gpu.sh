# Session 29: warm the cache (kernel 14, timed and trace; carry .cc with cc.tar.xz and, if there, ccnew.tar.xz),
# a split tail and a plain launch at two odd shapes, the GPU tests of the ladder and its traces;
# the cache entries it compiled come back in pieces of 15 MB ($OUT/ccnew_*: join them into .cc/ccnew.tar.xz).
mkdir -p ~/.cupy && tar xJf .cc/cc.tar.xz -C ~/.cupy; [ -f .cc/ccnew.tar.xz ] && tar xJf .cc/ccnew.tar.xz -C ~/.cupy; touch /tmp/marker
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,serial,driver_version --format=csv,noheader; date -u
t0=$(date +%s)
python3 - <<'PY' | xargs -P 16 -L 1 python3 benchmarks/proto/precompile.py 2>&1 | grep -v "^compiled" | tail -3
from explainer.model import ladder
for r in ladder.RUNGS + ladder.CONFIGS:
    if r.splits_k: print(r.name, "timed"); print(r.name, "trace")
PY
echo "precompile $(( $(date +%s) - t0 )) s"
(cd ~/.cupy && find kernel_cache -newer /tmp/marker -type f | tar cJf /tmp/new.tar.xz -T - && split -b 15M /tmp/new.tar.xz $OUT/ccnew_ && ls -la $OUT)
python3 -m explainer bench --kernels warptile_64x128@8x16 warptile_64x64_t64 --sizes 2157x919x1719 1531x1283x1777 --repeats 20 2>&1 | grep -v "^#" | grep -v "^best"
echo "bench $(( $(date +%s) - t0 )) s"
timeout $(( 580 - $(date +%s) + t0 )) python3 -m pytest -q -m gpu tests/test_gpu_ladder.py -p no:cacheprovider 2>&1 | tail -8
echo "tests $(( $(date +%s) - t0 )) s"
