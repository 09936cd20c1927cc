"""Scratch: benchmarks/proto/k14async.cu (cp.async pipeline, fast path only) in tile geometries
like cuBLAS's (64x64x8 3 stages with 128 threads, ...) against the planner's launch of kernel 14 at
the same shape and cuBLAS, one process, interleaved rounds, median of 20 with L2 flushed; every
result checked against float64. Shapes must be multiples of the async tiles (fast path).
Usage: async_shapes.py 1216x1216x1216,1792x1792x1792 64x64s3,64x64bk16s4 [rounds]"""
import sys, pathlib
import numpy as np
import cupy as cp
from explainer import gpu
from explainer.app.bench import planned_kernels
from explainer.gpu.recorded import load_recorded
from explainer.gpu.launch import launch_config, parse_launch
from explainer.gpu.verify import _Problem, _launch
from explainer.gpu.timing import _time_loop, _time_cublas_on

rt = gpu.runtime._runtime()
src = pathlib.Path(__file__).with_name("k14async.cu").read_text()
# template args: BM,BN,BK,WM,WN,WNITER,TM,TN,THREADS,STAGES,MINB,KV; (args, threads, BM, BN)
CFGS = {
    "64x64s3": ("64,64,8,32,32,2,4,4,128,3,4,4", 128, 64, 64),
    "64x64s4": ("64,64,8,32,32,2,4,4,128,4,4,4", 128, 64, 64),
    "64x64bk16s3": ("64,64,16,32,32,2,4,4,128,3,4,4", 128, 64, 64),
    "64x64bk16s4": ("64,64,16,32,32,2,4,4,128,4,4,4", 128, 64, 64),
    "64x128s3": ("64,128,8,32,64,2,4,8,128,3,3,4", 128, 64, 128),
    "128x64s3": ("128,64,8,64,32,2,8,4,128,3,2,4", 128, 128, 64),
    "128x64s4": ("128,64,8,64,32,2,8,4,128,4,2,4", 128, 128, 64),
    "128x128s3": ("128,128,8,64,32,2,8,4,256,3,2,4", 256, 128, 128),
}
shapes = [tuple(int(x) for x in s.split("x")) for s in sys.argv[1].split(",")]
which = sys.argv[2].split(",")
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
names = {w: f"async_gemm<{CFGS[w][0]}>" for w in which}
mod = cp.RawModule(code=src, options=("-std=c++17",), name_expressions=list(names.values()))
for w in which:
    fn = mod.get_function(names[w])
    print(w, "regs", fn.num_regs, "local", fn.local_size_bytes, flush=True)
plans = planned_kernels(["x".join(map(str, s)) for s in shapes], load_recorded(), 132)
for M, N, K in shapes:
    lab = plans["x".join(map(str, (M, N, K)))][0]
    prob = _Problem(rt, M, N, K, seed=M + N + K)
    ref = cp.asnumpy(prob.A).astype(np.float64) @ cp.asnumpy(prob.B).astype(np.float64)
    name, S, T, pad, red = parse_launch(lab)
    cfg = launch_config(name, M, N, K, 16, S, T, pad, red)
    kern = rt.kernel(cfg)
    res = {}
    for r in range(rounds):
        res.setdefault("cublas", []).append(
            _time_cublas_on(rt, prob, repeats=20, warmup=2, budget_s=2.0, flush_l2=True).median_ms)
        ts, _ = _time_loop(rt, lambda: _launch(rt, kern, cfg, prob.A, prob.B, prob.C), repeats=20,
                           warmup=2, budget_s=2.0, flush_l2=True)
        res.setdefault("plan:" + lab, []).append(float(np.median(ts)))
        for w in which:
            targs, thr, BM, BN = CFGS[w]
            if M % BM or N % BN or K % int(targs.split(",")[2]):
                continue
            a = [int(x) for x in targs.split(",")]
            BK, STAGES = a[2], a[9]
            smem = STAGES * (BM * (BK + 4) + BK * BN) * 4
            fn = mod.get_function(names[w])
            fn.max_dynamic_shared_size_bytes = smem
            grid = (N // BN, M // BM)
            go = lambda: fn(grid, (thr,), (prob.A, prob.B, prob.C, np.int32(M), np.int32(N), np.int32(K)), shared_mem=smem)
            if r == 0:
                prob.C.fill(np.nan)
                go(); cp.cuda.Device().synchronize()
                err = np.abs(cp.asnumpy(prob.C) - ref).max() / np.abs(ref).max()
                assert err < 1e-5, (w, M, N, K, err)
            ts, _ = _time_loop(rt, go, repeats=20, warmup=2, budget_s=2.0, flush_l2=True)
            res.setdefault(w, []).append(float(np.median(ts)))
    prob.release(rt)
    cubm = np.median(res["cublas"])
    print(f"{M}x{N}x{K} cublas {cubm:.4f} | " + " | ".join(
        f"{k} {np.median(v):.4f} ({100 * cubm / np.median(v):.1f}%)" for k, v in res.items() if k != "cublas"), flush=True)
