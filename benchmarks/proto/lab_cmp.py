"""Scratch: per line of FILE (shape label [label ...]) cuBLAS and each launch, same process,
ROUNDS interleaved rounds (median of 20, L2 flushed), each checked against float64."""
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
    ks = {}
    for lab in labels:
        try:
            name, S, T, pad, red = parse_launch(lab)
            cfg = launch_config(name, M, N, K, 16, S, T, pad, red)
            ks[lab] = (cfg, rt.kernel(cfg))
        except Exception as e:
            print(sh, lab, "refused:", str(e).splitlines()[0], flush=True)
    out = {}
    for r in range(rounds):
        out.setdefault("cublas", []).append(_time_cublas_on(rt, prob, repeats=20, warmup=2, budget_s=2.0, flush_l2=True).median_ms)
        order = list(ks) if r % 2 == 0 else list(ks)[::-1]
        for lab in order:
            cfg, kern = ks[lab]
            chk = _check_on(rt, cfg, prob, kern=kern)
            assert chk["all_written"] and chk["rel_error"] < 1e-4, (sh, lab, chk)
            ts, _ = _time_loop(rt, lambda: _launch(rt, kern, cfg, prob.A, prob.B, prob.C), repeats=20, warmup=2,
                               budget_s=2.0, flush_l2=True)
            out.setdefault(lab, []).append(float(np.median(ts)))
    prob.release(rt)
    cub = np.median(out.pop("cublas"))
    best = sorted(out.items(), key=lambda kv: np.median(kv[1]))
    print(f"{sh} cublas {cub:.4f} | " + " | ".join(f"{k} {np.median(v):.4f} {100 * cub / np.median(v):.1f}%" for k, v in best), flush=True)
