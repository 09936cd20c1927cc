"""Scratch: kernel 14's GUARD 4 (roomy) against GUARD 2 at the same launches, one process, interleaved
rounds (median of 20, L2 flushed), each launch checked against float64 with C poisoned. Lines of FILE:
shape label [label ...]; only launches whose on-device instantiation is GUARD 4 are compared."""
import sys
import numpy as np
from explainer import gpu
from explainer.gpu.launch import launch_config, parse_launch
from explainer.gpu.verify import _Problem, _check_on, _launch
from explainer.gpu.timing import _time_loop, _time_cublas_on

rt = gpu.runtime._runtime()
lines = [l.split() for l in open(sys.argv[1]) if l.strip()]
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
for sh, *labels in lines:
    M, N, K = (int(x) for x in sh.split("x"))
    prob = _Problem(rt, M, N, K, seed=M + N + K)
    out, row = {}, [sh]
    for lab in labels:
        cfg = launch_config(M=M, N=N, K=K, tile=16, **dict(zip(("kernel", "splits", "tail", "pad", "reduce"), parse_launch(lab))))
        dev = cfg.on_device(rt.sm_count)
        if dev == cfg.expression:
            row.append(f"{lab} tight only ({cfg.expression[-3:]})")
            continue
        mod = rt.module(gpu.launch.KERNELS[cfg.kernel], False)
        kerns = {"roomy": mod.get_function(dev), "tight": mod.get_function(cfg.expression)}
        at = {k: f"{v.attributes['num_regs']}r/{v.attributes['local_size_bytes']}B" for k, v in kerns.items()}
        for r in range(rounds):
            cub = _time_cublas_on(rt, prob, repeats=20, warmup=2, budget_s=2.0, flush_l2=True).median_ms
            for k in (("roomy", "tight") if r % 2 else ("tight", "roomy")):
                chk = _check_on(rt, cfg, prob, kern=kerns[k])
                assert chk["all_written"] and chk["rel_error"] < 1e-4, (sh, lab, k, chk)
                ts, _ = _time_loop(rt, lambda: _launch(rt, kerns[k], cfg, prob.A, prob.B, prob.C), repeats=20,
                                   warmup=2, budget_s=2.0, flush_l2=True)
                out.setdefault((lab, k), []).append((float(np.median(ts)), cub))
        for k in ("tight", "roomy"):
            v = out[(lab, k)]
            ms = np.median([x for x, _ in v]); pct = np.median([100 * c / x for x, c in v])
            row.append(f"{lab}[{k} {at[k]}] {ms:.4f} {pct:.1f}%")
    prob.release(rt)
    print(" | ".join(row), flush=True)
