"""CUTLASS's sm80 TF32 mma.sync GEMMs (libcutlass_tf32.so,
built from cutlass_tf32.cu) next to cuBLAS TF32 and kernels 16 and 17, same inputs, same process:
every product checked against float64 first (C poisoned), then all timed in interleaved rounds
(median, L2 flushed), as benchmarks/bench_mma.py does.

    python benchmarks/cutlass_tf32/time_cutlass.py --shapes 4096x4096x4096 --rounds 4

The library is built on the CPU machine (cutlass_tf32.cu's header gives the nvcc line; CUTLASS's
headers from NVIDIA/cutlass; the figures quoted used commit 7107b0553) and is git-ignored: carry
benchmarks/cutlass_tf32/libcutlass_tf32.so (and .whl) to the device.
"""
import argparse
import ctypes
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from explainer import gpu  # noqa: E402
from explainer.gpu import timing  # noqa: E402
from explainer.gpu.verify import _Problem, _check_on  # noqa: E402
from bench_mma import errors, shape  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", nargs="*", default=["4096x4096x4096"])
    ap.add_argument("--configs", nargs="*", type=int, default=list(range(15)))
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=4)
    a = ap.parse_args()
    lib = ctypes.CDLL(str(Path(__file__).with_name("libcutlass_tf32.so")))
    lib.config_name.restype = ctypes.c_char_p
    lib.run_gemm.argtypes = [ctypes.c_int] * 4 + [ctypes.c_void_p] * 4
    rt = gpu.runtime._runtime()
    cp = rt.cp
    timing.ROUNDS = a.rounds
    print(f"# {rt.name}, cupy {cp.__version__}")
    for s in a.shapes:
        M, N, K = shape(s)
        prob = _Problem(rt, M, N, K, seed=M + 2 * N + 3 * K)
        Bt = cp.ascontiguousarray(prob.B.T)  # B column-major (K-major), made once, not timed
        errs, fns = {}, {}
        timing._cublas_check(rt, prob, tf32=True)
        errs["cuBLAS TF32"] = errors(prob.C.get().astype(np.float64), prob)
        cfgs = {}
        for kname in ("mma_tf32_staged", "wgmma_tma"):
            cfg = gpu.launch_config(kname, M, N, K)
            if gpu.launch.refusal(cfg, rt.limits):
                continue
            _check_on(rt, cfg, prob)
            errs[kname] = errors(prob.C.get().astype(np.float64), prob)
            cfgs[kname] = cfg
        for c in a.configs:
            name = f"cutlass {lib.config_name(c).decode()}"
            col = " B col" in name
            Bp = (Bt if col else prob.B).data.ptr

            def fn(c=c, Bp=Bp):
                rc = lib.run_gemm(c, M, N, K, prob.A.data.ptr, Bp, prob.C.data.ptr,
                                  cp.cuda.get_current_stream().ptr)
                if rc:
                    raise RuntimeError(f"cutlass config {c}: status {rc}")
            prob.C.fill(np.nan)
            try:
                fn()
                cp.cuda.Device().synchronize()
            except RuntimeError as e:
                print(f"  {s} {name}: {e}", flush=True)
                continue
            errs[name] = errors(prob.C.get().astype(np.float64), prob)
            fns[name] = fn
        parts, order = {}, list(errs)
        for name, per in timing._round_order(order, a.repeats):
            kw = dict(repeats=per, warmup=2, budget_s=3.0 / timing.ROUNDS, flush_l2=True)
            if name in cfgs:
                t = timing._time_kernel_on(rt, cfgs[name], prob, **kw)
            elif name in fns:
                with timing._cublas_math(rt, False):
                    timing._ensure_warm(rt, prob)
                    times, _ = timing._time_loop(rt, fns[name], **kw)
                t = timing.Timing(name, M, N, K, None, tuple(times), 2, True, 1.0, False, None)
            else:
                t = timing._time_cublas_on(rt, prob, **kw, tf32=True, checked={})
            parts.setdefault(name, []).append(t)
        ms = {name: timing._joined(p).median_ms for name, p in parts.items()}
        for what in order:
            rel, worst = errs[what]
            per_round = " ".join(f"{p.median_ms:.4f}" for p in parts[what])
            print(f"  {s} {what:<48} {ms[what]:8.4f} ms {2 * M * N * K / ms[what] / 1e9:7.1f} TFLOP/s "
                  f"{100 * ms['cuBLAS TF32'] / ms[what]:6.1f}% of cuBLAS TF32  rel {rel:.2e} max/bound {worst:.3f}"
                  f"  rounds {per_round}", flush=True)
        prob.release(rt)


if __name__ == "__main__":
    main()
