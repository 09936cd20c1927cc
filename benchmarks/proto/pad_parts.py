"""Scratch: a padded launch (+pad: A and / or B copied into padded rows, C stored in place) against
the same launch unpadded and cuBLAS, per shape and label, and the copies alone. Median of 20, L2
flushed, ROUNDS interleaved rounds; every launch checked against float64 first."""
import sys
import numpy as np
from explainer import gpu
from explainer.gpu.launch import launch_config, parse_launch
from explainer.gpu.verify import _Problem, _check_on, _launch, _pad_inputs
from explainer.gpu.timing import _time_loop, _time_cublas_on

rt = gpu.runtime._runtime()
lines = [l.split() for l in open(sys.argv[1]) if l.strip()]
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 2
def t(fn):
    ts, _ = _time_loop(rt, fn, repeats=20, warmup=2, budget_s=2.0, flush_l2=True)
    return float(np.median(ts))
for sh, *labels in lines:
    M, N, K = (int(x) for x in sh.split("x"))
    prob = _Problem(rt, M, N, K, seed=M + N + K)
    for lab in labels:
        name, S, T, pad, red = parse_launch(lab)
        cfgp = launch_config(name, M, N, K, 16, S, T, True, red)
        cfg0 = launch_config(name, M, N, K, 16, S, T, False, red)
        kp, k0 = rt.kernel(cfgp), rt.kernel(cfg0)
        for c, k in ((cfgp, kp), (cfg0, k0)):
            chk = _check_on(rt, c, prob, kern=k)
            assert chk["all_written"] and chk["rel_error"] < 1e-4, (sh, lab, chk)
        parts = {
            "padded": lambda: _launch(rt, kp, cfgp, prob.A, prob.B, prob.C),
            "unpadded": lambda: _launch(rt, k0, cfg0, prob.A, prob.B, prob.C),
            "copies": lambda: _pad_inputs(rt, cfgp, prob.A, prob.B),
        }
        out = {}
        for r in range(rounds):
            out.setdefault("cublas", []).append(_time_cublas_on(rt, prob, repeats=20, warmup=2, budget_s=2.0, flush_l2=True).median_ms)
            for p, fn in parts.items():
                out.setdefault(p, []).append(t(fn))
        med = {p: float(np.median(v)) for p, v in out.items()}
        cub = med.pop("cublas")
        print(f"{sh} {lab} ld {cfgp.ld} {cfgp.expression.split('<')[0]} G{cfgp.expression[-2]} cublas {cub:.4f} | " +
              " | ".join(f"{p} {v:.4f}" + (f" ({100 * cub / v:.1f}%)" if p in ("padded", "unpadded") else "")
                         for p, v in med.items()), flush=True)
    prob.release(rt)
