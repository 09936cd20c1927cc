"""Scratch: benchmarks/proto/k14async.cu (cp.async pipeline) against kernel 14's same tile
configuration and cuBLAS, same process, interleaved rounds, median of 20 with L2 flushed; each
result checked against float64."""
import sys, pathlib
import numpy as np
import cupy as cp
from explainer import gpu
from explainer.gpu.launch import launch_config
from explainer.gpu.verify import _Problem, _check_on, _launch
from explainer.gpu.timing import _time_loop, _time_cublas_on

rt = gpu.runtime._runtime()
src = pathlib.Path(__file__).with_name("k14async.cu").read_text()
# (proto template args, kernel 14 label, threads, BM, BN, smem floats)
CFGS = {
    "128x128": ("128,128,8,64,32,2,8,4,256,3,2,4", "warptile_128x128", 256, 128, 128),
    "128x128kv2": ("128,128,8,64,32,2,8,4,256,3,2,2", "warptile_128x128", 256, 128, 128),
    "256x128": ("256,128,8,64,64,2,8,4,256,3,1,4", "warptile", 256, 256, 128),
    "256x128kv2": ("256,128,8,64,64,2,8,4,256,3,1,2", "warptile", 256, 256, 128),
    "128x64": ("128,64,8,64,32,2,8,4,128,4,2,4", "warptile_128x64", 128, 128, 64),
    "128x64kv2": ("128,64,8,64,32,2,8,4,128,4,2,2", "warptile_128x64", 128, 128, 64),
    "128x64s3": ("128,64,8,64,32,2,8,4,128,3,2,4", "warptile_128x64", 128, 128, 64),
    "64x64bk16": ("64,64,16,32,32,2,4,4,128,3,4,4", "warptile_64x64_bk16", 128, 64, 64),
}
names = {k: f"async_gemm<{v[0]}>" for k, v in CFGS.items()}
mod = cp.RawModule(code=src, options=("-std=c++17",), name_expressions=list(names.values()))
shapes = [tuple(int(x) for x in s.split("x")) for s in sys.argv[1].split(",")]
which = sys.argv[2].split(",")
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
for M, N, K in shapes:
    prob = _Problem(rt, M, N, K, seed=M + N + K)
    ref = cp.asnumpy(prob.A).astype(np.float64) @ cp.asnumpy(prob.B).astype(np.float64)
    res = {}
    for r in range(rounds):
        cub = _time_cublas_on(rt, prob, repeats=20, warmup=2, budget_s=2.0, flush_l2=True).median_ms
        res.setdefault("cublas", []).append(cub)
        for w in which:
            targs, lab, thr, BM, BN = CFGS[w]
            a = [int(x) for x in targs.split(",")]
            BK, STAGES = a[2], a[9]
            smem = STAGES * (BM * (BK + 4) + BK * BN) * 4
            fn = mod.get_function(names[w])
            fn.max_dynamic_shared_size_bytes = smem
            grid = (N // BN, M // BM)
            go = lambda: fn(grid, (thr,), (prob.A, prob.B, prob.C, np.int32(M), np.int32(N), np.int32(K)), shared_mem=smem)
            prob.C.fill(np.nan)
            go(); cp.cuda.Device().synchronize()
            err = np.abs(cp.asnumpy(prob.C) - ref).max() / np.abs(ref).max()
            assert err < 1e-5, (w, M, N, K, err)
            ts, _ = _time_loop(rt, go, repeats=20, warmup=2, budget_s=2.0, flush_l2=True)
            res.setdefault(w, []).append(float(np.median(ts)))
            cfg = launch_config(lab, M, N, K, 16)
            kern = rt.kernel(cfg)
            ts, _ = _time_loop(rt, lambda: _launch(rt, kern, cfg, prob.A, prob.B, prob.C), repeats=20, warmup=2, budget_s=2.0, flush_l2=True)
            res.setdefault("k14:" + lab, []).append(float(np.median(ts)))
    prob.release(rt)
    cubm = np.median(res["cublas"])
    print(f"{M}x{N}x{K} cublas {cubm:.4f} | " + " | ".join(f"{k} {np.median(v):.4f} ({100 * cubm / np.median(v):.1f}%)" for k, v in res.items() if k != "cublas"), flush=True)
