"""Scratch: each launch label at each shape timed with kernel 14's roomy instantiation (GUARD 4 / 6)
and with the tight one (GUARD 2 / 5), interleaved, median of 20 with L2 flushed, next to cuBLAS;
every launch checked against float64 first. Lines of FILE: shape label [label ...]."""
import sys
import numpy as np
from explainer import gpu
from explainer.gpu.launch import launch_config, parse_launch
from explainer.gpu.verify import _Problem, _check_on, _launch
from explainer.gpu.timing import _time_loop, _time_cublas_on
from explainer.model import ladder

rt = gpu.runtime._runtime()
_roomy = ladder.Rung.roomy
lines = [l.split() for l in open(sys.argv[1]) if l.strip()]
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
for sh, *labels in lines:
    M, N, K = (int(x) for x in sh.split("x"))
    prob = _Problem(rt, M, N, K, seed=M + N + K)
    builds = {}
    for lab in labels:
        name, S, T, pad, red = parse_launch(lab)
        cfg = launch_config(name, M, N, K, 16, S, T, pad, red)
        for roomy in (True, False):
            ladder.Rung.roomy = _roomy if roomy else (lambda self, blocks, sms: False)
            expr = cfg.on_device(rt.sm_count)
            kern = rt.kernel(cfg)
            chk = _check_on(rt, cfg, prob, kern=kern)
            assert chk["all_written"] and chk["rel_error"] < 1e-4, (sh, lab, roomy, chk)
            at = kern.attributes
            builds[(lab, roomy)] = (cfg, kern, f"{expr[expr.rindex(','):]} {at['num_regs']}r/{at['local_size_bytes']}B")
    ladder.Rung.roomy = _roomy
    out = {}
    for r in range(rounds):
        cub = _time_cublas_on(rt, prob, repeats=20, warmup=2, budget_s=2.0, flush_l2=True).median_ms
        for key, (cfg, kern, _) in (list(builds.items()) if r % 2 == 0 else list(builds.items())[::-1]):
            ts, _ = _time_loop(rt, lambda: _launch(rt, kern, cfg, prob.A, prob.B, prob.C), repeats=20, warmup=2,
                               budget_s=2.0, flush_l2=True)
            out.setdefault(key, []).append((float(np.median(ts)), cub))
    prob.release(rt)
    print(sh + " | " + " | ".join(
        f"{lab}[{'roomy' if roomy else 'tight'}{builds[(lab, roomy)][2]}] {np.median([x for x, _ in v]):.4f} "
        f"{np.median([100 * c / x for x, c in v]):.1f}%" for (lab, roomy), v in out.items()), flush=True)
