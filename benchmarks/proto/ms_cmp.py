"""Scratch (session 31): benchmarks/proto/ms_gemm.cu's multistage body against cuBLAS and kernel 14's
launches, interleaved per shape (median of 20, L2 flushed, ROUNDS rounds), every launch checked against
numpy float64 with C poisoned (NaN) first.
Usage: python3 benchmarks/proto/ms_cmp.py SHAPES_FILE [ROUNDS]; lines: SHAPE [kernel-14 label ...]."""
import pathlib
import sys

import numpy as np

from explainer import gpu
from explainer.gpu.launch import launch_config, parse_launch
from explainer.gpu.verify import _Problem, _check_on, _launch
from explainer.gpu.timing import _time_loop, _time_cublas_on

#          name: BM, BN, BK, WM, WN, WNITER, TM, TN, THREADS, STAGES, MINB
CONFIGS = {
    "ms64": (64, 64, 8, 64, 16, 1, 4, 4, 128, 3, 4),
    "ms64s4": (64, 64, 8, 64, 16, 1, 4, 4, 128, 4, 4),
    "ms64k16": (64, 64, 16, 64, 16, 1, 4, 4, 128, 3, 4),
    "ms128x64": (128, 64, 8, 64, 32, 2, 4, 4, 128, 3, 3),
    "ms64x128": (64, 128, 8, 32, 64, 2, 4, 4, 128, 3, 3),
    "ms128": (128, 128, 8, 64, 64, 4, 4, 4, 128, 3, 2),
    "ms128s4": (128, 128, 8, 64, 64, 4, 4, 4, 128, 4, 2),
}
rt = gpu.runtime._runtime()
cp = rt.cp
src = (pathlib.Path(__file__).parent / "ms_gemm.cu").read_text()
expr = {n: "ms_gemm<%s>" % ", ".join(map(str, c)) for n, c in CONFIGS.items()}
mod = cp.RawModule(code=src, options=("--std=c++17",), name_expressions=list(expr.values()) + [])
fns = {n: mod.get_function(e) for n, e in expr.items()}
red = cp.RawModule(code=src, options=("--std=c++17",)).get_function("ms_reduce")
for n, f in fns.items():
    a = f.attributes
    print(f"regs {n} {a['num_regs']}r spill {a['local_size_bytes']}B", flush=True)
SM = cp.cuda.Device().attributes["MultiProcessorCount"]
WS = {}


def ms_launch(name, S, prob):
    c = CONFIGS[name]
    BM, BN, THREADS = c[0], c[1], c[8]
    M, N, K = prob.M, prob.N, prob.K
    grid = ((N + BN - 1) // BN, (M + BM - 1) // BM, S)
    sm = c[9] * (c[2] * (BM + 4) + c[2] * BN) * 4
    f = fns[name]
    if S == 1:
        return lambda: f(grid, (THREADS,), (prob.A, prob.B, prob.C, np.int32(M), np.int32(N), np.int32(K)), shared_mem=sm)
    W = WS.get((S, M, N))
    if W is None:
        W = WS[(S, M, N)] = cp.empty(S * M * N, dtype=cp.float32)

    def run():
        f(grid, (THREADS,), (prob.A, prob.B, W, np.int32(M), np.int32(N), np.int32(K)), shared_mem=sm)
        red((SM * 8,), (256,), (W, prob.C, np.int64(M * N), np.int32(S)))
    return run


def splits_for(name, M, N, K):
    c = CONFIGS[name]
    tiles = -(-M // c[0]) * -(-N // c[1])
    slots = SM * c[10]
    out = [1]
    for S in (2, 3, 4):
        if tiles * (S - 1) < slots and -(-K // c[2]) >= 8 * S:
            out.append(S)
    return out


rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 2
for line in open(sys.argv[1]):
    if not line.strip():
        continue
    sh, *labels = line.split()
    dims = [int(x) for x in sh.split("x")]
    M, N, K = dims if len(dims) == 3 else dims * 3
    prob = _Problem(rt, M, N, K, seed=M + N + K)
    runs = {}
    for lab in labels:
        name, S, T, pad, red_ = parse_launch(lab)
        cfg = launch_config(name, M, N, K, 16, S, T, pad, red_)
        kern = rt.kernel(cfg)
        chk = _check_on(rt, cfg, prob, kern=kern)
        assert chk["all_written"] and chk["rel_error"] < 1e-4, (sh, lab, chk)
        runs[lab] = (lambda cfg=cfg, kern=kern: _launch(rt, kern, cfg, prob.A, prob.B, prob.C))
    for name in CONFIGS:
        for S in splits_for(name, M, N, K):
            fn = ms_launch(name, S, prob)
            prob.C.fill(np.nan)
            fn()
            cp.cuda.Device().synchronize()
            out = prob.C.get()
            ref = prob.reference
            ok = np.isfinite(out).all()
            rel = float(np.linalg.norm(out.astype(np.float64) - ref) / np.linalg.norm(ref))
            assert ok and rel < 1e-5, (sh, name, S, ok, rel)
            runs[f"{name}@{S}" if S > 1 else name] = fn
    res = {k: [] for k in runs}
    for r in range(rounds):
        cub = _time_cublas_on(rt, prob, repeats=20, warmup=2, budget_s=2.0, flush_l2=True).median_ms
        keys = list(runs) if r % 2 == 0 else list(runs)[::-1]
        for k in keys:
            ts, _ = _time_loop(rt, runs[k], repeats=20, warmup=2, budget_s=2.0, flush_l2=True)
            res[k].append((float(np.median(ts)), cub))
    prob.release(rt)
    WS.clear()
    cub = float(np.median([c for v in res.values() for _, c in v]))
    items = sorted(((float(np.median([100 * c / x for x, c in v])), float(np.median([x for x, _ in v])), k)
                    for k, v in res.items()), reverse=True)
    print(f"{sh} cuBLAS {cub:.4f} ms: " + ", ".join(f"{k} {ms:.4f} {p:.1f}%" for p, ms, k in items), flush=True)
