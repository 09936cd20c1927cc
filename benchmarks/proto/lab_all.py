"""Scratch: at each SHAPE, every launch tune would measure for the named kernels (--kernels, comma
list), timed interleaved (time_launches, 2 rounds, median of 10, L2 flushed, each checked), with
cuBLAS in the same process; prints the best launch of each kernel."""
import sys, time
import numpy as np
from explainer import gpu
from explainer.app import tune
from explainer.gpu.sweep import time_launches
from explainer.gpu.verify import _Problem
from explainer.gpu.timing import _time_cublas_on

rt = gpu.runtime._runtime()
args = sys.argv[1:]
kernels = args[args.index("--kernels") + 1].split(",")
shapes = [a for a in args if "x" in a and a[0].isdigit()]
for sh in shapes:
    shape = tuple(int(x) for x in sh.split("x"))
    labels = tune.launches(shape, 132, kernels=kernels)
    t0 = time.time()
    res = time_launches(labels, sh, rounds=2, repeats=10)
    if not isinstance(res, dict):
        print(sh, 'status', res, flush=True); continue
    prob = _Problem(rt, *shape, seed=1)
    cub = float(np.median([_time_cublas_on(rt, prob, repeats=20, warmup=2, budget_s=2.0, flush_l2=True).median_ms
                           for _ in range(3)]))
    prob.release(rt)
    best = {}
    for lab, ms in res.items():
        if ms is None:
            continue
        k = lab.split("@")[0].split("+")[0]
        best.setdefault(k, []).append((ms, lab))
    rows = sorted((sorted(v)[0] for v in best.values()))
    print(f"{sh} cublas {cub:.4f} ({len(labels)} launches, {time.time() - t0:.0f} s): " +
          " | ".join(f"{lab} {ms:.4f} {100 * cub / ms:.1f}%" for ms, lab in rows[:8]), flush=True)
