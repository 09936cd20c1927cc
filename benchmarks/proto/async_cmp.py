"""Scratch: kernel 14 built twice ("0": with the option given as the third argument, e.g.
-DEXPLAINER_NO_INTERIOR_ALIGNED; "1": without it), the same labels timed interleaved per shape (median of 20, L2 flushed), each
launch checked against float64 with C poisoned. Lines of FILE: shape label [label ...]."""
import sys
import numpy as np
from explainer import gpu
from explainer.gpu import launch as L
from explainer.gpu.launch import launch_config, parse_launch
from explainer.gpu.verify import _Problem, _check_on, _launch
from explainer.gpu.timing import _time_loop, _time_cublas_on

rt = gpu.runtime._runtime()
lines = [l.split() for l in open(sys.argv[1]) if l.strip()]
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 2
builds = {}
OPTION = sys.argv[3] if len(sys.argv) > 3 else "-DWARPTILE_REALIGN=0"
for d in ("0", "1"):
    rt.modules.clear()
    gpu.runtime.COMPILE_OPTIONS = L.COMPILE_OPTIONS + ((OPTION,) if d == "0" else ())
    builds[d] = {}
    for sh, *labels in lines:
        M, N, K = (int(x) for x in sh.split("x"))
        for lab in labels:
            name, S, T, pad, red = parse_launch(lab)
            cfg = launch_config(name, M, N, K, 16, S, T, pad, red)
            builds[d][(sh, lab)] = (cfg, rt.kernel(cfg))
rt.modules.clear()
for sh, *labels in lines:
    M, N, K = (int(x) for x in sh.split("x"))
    prob = _Problem(rt, M, N, K, seed=M + N + K)
    out = {}
    for r in range(rounds):
        cub = _time_cublas_on(rt, prob, repeats=20, warmup=2, budget_s=2.0, flush_l2=True).median_ms
        order = [(d, lab) for lab in labels for d in ("0", "1")]
        if r % 2:
            order = order[::-1]
        for d, lab in order:
            cfg, kern = builds[d][(sh, lab)]
            chk = _check_on(rt, cfg, prob, kern=kern)
            assert chk["all_written"] and chk["rel_error"] < 1e-4, (sh, lab, d, chk)
            ts, _ = _time_loop(rt, lambda: _launch(rt, kern, cfg, prob.A, prob.B, prob.C), repeats=20, warmup=2,
                               budget_s=2.0, flush_l2=True)
            out.setdefault((d, lab), []).append((float(np.median(ts)), cub))
    prob.release(rt)
    row = [sh]
    for lab in labels:
        for d in ("0", "1"):
            v = out[(d, lab)]
            ms = np.median([x for x, _ in v]); pct = np.median([100 * c / x for x, c in v])
            row.append(f"{lab}[{'new' if d == '1' else 'old'}] {ms:.4f} {pct:.1f}%")
    print(" | ".join(row), flush=True)
