# Sourced by the device scripts (session 34 on): CuPy's caches from the carried .cc/*.tar.xz, the wheels
# of .whl/ into /tmp/site, the environment, the GPU's name; then `precompile [trace]` compiles every rung's
# and configuration's timed module (with `trace`, the trace builds too), 16 at once, and says how long.
mkdir -p ~/.cupy && for f in .cc/*.tar.xz; do [ -e "$f" ] && tar xJf $f -C ~/.cupy; done; touch /tmp/marker
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,serial,driver_version --format=csv,noheader; date -u
t0=$(date +%s)
precompile() {
  python3 -c "
import sys
from explainer.model import ladder
for r in ladder.RUNGS + ladder.CONFIGS:
    print(r.name)
    if sys.argv[1:] == ['trace']: print(r.name, 'trace')" "$@" | xargs -P 16 -L 1 python3 benchmarks/proto/precompile.py 2>&1 | grep -v "^compiled" | tail -3
  echo "precompile $(( $(date +%s) - t0 )) s"
}
