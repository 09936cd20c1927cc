"""Scratch: a padded launch timed the way `bench` does (gpu.benchmark: check, spin-up, time) and
the way lab_cmp.py does (check, then time at once), in one process, to find why bench measured
padded launches 5-10% slower in session 11. Also the host time of one padded launch's enqueue."""
import sys, time
import numpy as np
from explainer import gpu
from explainer.gpu.launch import launch_config, parse_launch
from explainer.gpu.verify import _Problem, _check_on, _launch
from explainer.gpu.timing import _time_loop

rt = gpu.runtime._runtime()
for sh, lab in (("2047x2047x2047", "warptile+pad"), ("1277x1277x1277", "warptile_128x128+pad"),
                ("2047x2047x2047", "warptile")):
    M, N, K = (int(x) for x in sh.split("x"))
    rep = gpu.benchmark(kernels=[lab], sizes=[sh], tiles=[16], repeats=20, budget_s=2.0)
    b = rep.results[0]["median_ms"]
    name, S, T, pad, red = parse_launch(lab)
    cfg = launch_config(name, M, N, K, 16, S, T, pad, red)
    prob = _Problem(rt, M, N, K, seed=1)
    kern = rt.kernel(cfg)
    _check_on(rt, cfg, prob, kern=kern)
    ts, _ = _time_loop(rt, lambda: _launch(rt, kern, cfg, prob.A, prob.B, prob.C), repeats=20, warmup=2,
                       budget_s=2.0, flush_l2=True)
    rt.cp.cuda.Device().synchronize()
    t0 = time.perf_counter()
    for _ in range(50):
        _launch(rt, kern, cfg, prob.A, prob.B, prob.C)
    host = (time.perf_counter() - t0) / 50 * 1e3
    rt.cp.cuda.Device().synchronize()
    print(f"{sh} {lab}: bench {b:.4f} ms, lab {np.median(ts):.4f} ms (spread {min(ts):.4f}..{max(ts):.4f}); "
          f"host enqueue+wait per launch {host:.4f} ms", flush=True)
    prob.release(rt)
