"""Launch one ladder kernel (any launch ``bench --kernels`` takes: split-K, split tail, +reduce,
+pad) a few times on one shape, for a profiler
(``ncu --launch-skip 2 --launch-count 1 python benchmarks/profile_one.py warptile_64x64 1023x1023x1023``;
with +reduce or +pad every launch is two kernels, so skip 4 or 6 to profile the product).

    python benchmarks/profile_one.py LAUNCH MxNxK
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explainer import gpu  # noqa: E402
from explainer.gpu.launch import parse_launch  # noqa: E402


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    name, S, tail, pad, reduce = parse_launch(argv[0])
    M, N, K = (int(x) for x in argv[1].lower().split("x"))
    rt = gpu.runtime._runtime()
    cfg = gpu.launch_config(name, M, N, K, splits=S, tail=tail, pad=pad, reduce=reduce)
    prob = gpu.verify._Problem(rt, M, N, K)
    kern = rt.kernel(cfg)
    for _ in range(3):
        gpu.verify._launch(rt, kern, cfg, prob.A, prob.B, prob.C)
    rt.cp.cuda.Device().synchronize()
    print(f"{argv[0]} {M}x{N}x{K}: {cfg.expression} grid {cfg.grid}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
