"""Scratch: where K and N are both unaligned, a padded launch that copies only A (or only B) and
lets the other matrix keep its element copies, against +pad (both copied) and no padding, same
process. Lines of FILE: shape label [label ...] (labels without +pad). Median of 20, L2 flushed."""
import dataclasses, sys
import numpy as np
from explainer import gpu
from explainer.gpu.launch import launch_config, parse_launch
from explainer.gpu.verify import _Problem, _check_on, _launch
from explainer.gpu.timing import _time_loop, _time_cublas_on

rt = gpu.runtime._runtime()
lines = [l.split() for l in open(sys.argv[1]) if l.strip()]
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 2
for sh, *labels in lines:
    M, N, K = (int(x) for x in sh.split("x"))
    prob = _Problem(rt, M, N, K, seed=M + N + K)
    for lab in labels:
        name, S, T, _, red = parse_launch(lab)
        both = launch_config(name, M, N, K, 16, S, T, True, red)
        plain = launch_config(name, M, N, K, 16, S, T, False, red)
        K4, N4 = both.ld
        # A only: lda = K4, B as it is (ldb = N, unaligned): the any-rows instantiation (GUARD 2)
        a_only = dataclasses.replace(both, ld=(K4, N), expression=plain.expression)
        b_only = dataclasses.replace(both, ld=(K, N4), expression=plain.expression)
        cfgs = {"both": both, "plain": plain, "A only": a_only, "B only": b_only}
        ks = {k: rt.kernel(c) for k, c in cfgs.items()}
        for k, c in cfgs.items():
            chk = _check_on(rt, c, prob, kern=ks[k])
            assert chk["all_written"] and chk["rel_error"] < 1e-4, (sh, lab, k, chk)
        out = {}
        for r in range(rounds):
            out.setdefault("cublas", []).append(_time_cublas_on(rt, prob, repeats=20, warmup=2, budget_s=2.0, flush_l2=True).median_ms)
            for k, c in cfgs.items():
                ts, _ = _time_loop(rt, lambda: _launch(rt, ks[k], c, prob.A, prob.B, prob.C), repeats=20, warmup=2,
                                   budget_s=2.0, flush_l2=True)
                out.setdefault(k, []).append(float(np.median(ts)))
        cub = float(np.median(out.pop("cublas")))
        print(f"{sh} {lab} cublas {cub:.4f} | " + " | ".join(f"{k} {np.median(v):.4f} ({100 * cub / np.median(v):.1f}%)"
                                                        for k, v in out.items()), flush=True)
    prob.release(rt)
