"""Scratch (session 31): a padded launch that copies only one of A and B where both have unaligned rows.
Today's +pad copies both (kernels/pad_rows.cu); kernel 14's GUARD 2 / 4 body then picks, by lda and ldb,
the copy of the matrix still unaligned element by element (warptile_run: "B's rows aligned: A's body").
Each shape's launches timed interleaved with cuBLAS (median of 20, L2 flushed, ROUNDS rounds), each
checked against numpy float64 with C poisoned. Variants of each label: plain, +pad (both), padB (B
only, A element by element), padA (A only); the one-matrix ones in the tight (GUARD 2 / 5) and the roomy
(GUARD 4 / 6) instantiation where it differs.
Usage: python3 benchmarks/proto/pad_one_cmp.py FILE [ROUNDS]; lines: SHAPE label [label ...] (no +pad)."""
import dataclasses
import sys

import numpy as np

from explainer import gpu
from explainer.gpu.launch import launch_config, parse_launch
from explainer.model.launch import padded_shape
from explainer.gpu.verify import _Problem, _check_on, _launch
from explainer.gpu.timing import _time_loop, _time_cublas_on
from explainer.model import ladder

rt = gpu.runtime._runtime()
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 2


def variants(lab, M, N, K):
    name, S, T, pad, red = parse_launch(lab)
    base = launch_config(name, M, N, K, 16, S, T, False, red)
    out = {lab: base}
    if K % 4 == 0 and N % 4 == 0:
        return out
    out[lab + "+pad"] = launch_config(name, M, N, K, 16, S, T, True, red)
    r = ladder.BY_NAME[name]
    _, N4, K4 = padded_shape(M, N, K)
    for tag, ld in (("padB", (K, N4)), ("padA", (K4, N))):
        if ld == (K, N) or ld == (K4, N4):
            continue  # that matrix's rows are aligned already: the same as +pad
        even = ld[0] % 2 == 0 and ld[1] % 2 == 0  # rows as the kernel reads them
        for roomy in (False, True):
            if roomy and not (r.has_roomy and not T):
                continue
            expr = r.expression(True, S > 1, T > 0, False, N % 4 == 0, roomy=roomy, even=even)
            cfg = dataclasses.replace(base, pad=True, ld=ld, expression=expr)
            out[f"{lab}+{tag}{'/roomy' if roomy else ''}"] = cfg
    return out


for line in open(sys.argv[1]):
    if not line.strip():
        continue
    sh, *labels = line.split()
    d = [int(x) for x in sh.split("x")]
    M, N, K = d if len(d) == 3 else d * 3
    prob = _Problem(rt, M, N, K, seed=M + N + K)
    runs = {}
    for lab in labels:
        for key, cfg in variants(lab, M, N, K).items():
            kern = rt.kernel(cfg)
            chk = _check_on(rt, cfg, prob, kern=kern)
            assert chk["all_written"] and chk["rel_error"] < 1e-4, (sh, key, chk)
            a = kern.attributes
            runs[key] = (cfg, kern, f"{a['num_regs']}r/{a['local_size_bytes']}B")
    res = {k: [] for k in runs}
    for r in range(rounds):
        cub = _time_cublas_on(rt, prob, repeats=20, warmup=2, budget_s=2.0, flush_l2=True).median_ms
        keys = list(runs) if r % 2 == 0 else list(runs)[::-1]
        for k in keys:
            cfg, kern, _ = runs[k]
            ts, _ = _time_loop(rt, lambda: _launch(rt, kern, cfg, prob.A, prob.B, prob.C), repeats=20,
                               warmup=2, budget_s=2.0, flush_l2=True)
            res[k].append((float(np.median(ts)), cub))
    prob.release(rt)
    cub = float(np.median([c for v in res.values() for _, c in v]))
    items = sorted(((float(np.median([100 * c / x for x, c in v])), float(np.median([x for x, _ in v])), k)
                    for k, v in res.items()), reverse=True)
    print(f"{sh} cuBLAS {cub:.4f} ms: " + ", ".join(f"{k} {ms:.4f} {p:.1f}% ({runs[k][2]})" for p, ms, k in items),
          flush=True)
