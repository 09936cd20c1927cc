"""The tensor-core kernels (15, 16: mma.sync TF32; 17: Hopper wgmma, on compute capability 9.0) next to cuBLAS in TF32 and in FP32, same run, same
inputs: median time (L2 flushed) and error against numpy float64, per shape (issue 14).

    python benchmarks/bench_mma.py                     # 4096^3 and two smaller shapes
    python benchmarks/bench_mma.py --shapes 4096x4096x4096 --repeats 20

Prints one row per (shape, what): ms, TFLOP/s, % of cuBLAS TF32, relative error (Frobenius) and
max |error| over the TF32 bound of explainer.model.mma.error_bound. Each is checked first, then all
are timed in interleaved rounds (explainer.gpu.timing.ROUNDS, the repeats shared), as `bench` times.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explainer import gpu  # noqa: E402
from explainer.gpu import timing  # noqa: E402
from explainer.gpu.verify import _Problem, _check_on  # noqa: E402
from explainer.model import mma  # noqa: E402


def shape(s: str) -> tuple[int, int, int]:
    m, n, k = (int(x) for x in s.lower().split("x"))
    return m, n, k


def errors(out: np.ndarray, prob) -> tuple[float, float]:
    ref = prob.reference
    rel = float(np.linalg.norm(out - ref) / np.linalg.norm(ref))
    bound = mma.error_bound(prob.A_host, prob.B_host)
    return rel, float(np.max(np.abs(out - ref) / bound))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shapes", nargs="*", default=["4096x4096x4096", "2048x2048x2048", "1000x1000x1000"])
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--define", action="append", default=[],
                    help="a compile-time define for the kernels (a measurement variant), e.g. EXPLAINER_TF32_TRUNCATE")
    ap.add_argument("--variant", default=None,
                    help="kernel 16 with another geometry, measurement only: BM,BN,BK,WM,WN,STAGES "
                         "(e.g. 128,128,32,64,32,3); its launch follows explainer.model.mma.MmaKernel")
    ap.add_argument("--kernels", nargs="*", default=None,
                    help="tensor-core kernels to time (default: all of them, e.g. wgmma_tma)")
    a = ap.parse_args(argv)
    variant = None
    if a.variant:
        BM, BN, BK, WM, WN, ST = (int(x) for x in a.variant.split(","))
        variant = dataclasses.replace(mma.STAGED, BM=BM, BN=BN, BK=BK, WM=WM, WN=WN, stages=ST)
        a.define += [f"SG_BM={BM}", f"SG_BN={BN}", f"SG_BK={BK}", f"SG_WM={WM}", f"SG_WN={WN}", f"SG_STAGES={ST}"]
    gpu.runtime.COMPILE_OPTIONS = gpu.launch.COMPILE_OPTIONS + tuple(f"-D{d}" for d in a.define)
    rt = gpu.runtime._runtime()
    if isinstance(rt, gpu.GpuStatus):
        print(rt.reason, file=sys.stderr)
        return 2
    info = gpu.device_info()
    print(f"# {rt.name}, cupy {rt.cp.__version__}, {datetime.now(timezone.utc).isoformat(timespec='seconds')}"
          + (f", defines {' '.join(a.define)}" if a.define else ""))
    print(f"# {'shape':>16} {'what':<24} {'ms':>9} {'TFLOP/s':>8} {'% TF32':>7} {'rel err':>9} {'max/bound':>9}")
    for s in a.shapes:
        M, N, K = shape(s)
        prob = _Problem(rt, M, N, K, seed=M + 2 * N + 3 * K)
        # Each checked first (its product against float64), then all timed in interleaved rounds,
        # the order reversed every other round, as `bench` does: what ran before a timing (a check's
        # idle GPU, a spin-up) falls on cuBLAS and the kernels alike.
        errs, cfgs = {}, {}
        timing._cublas_check(rt, prob)  # each leaves its own result in prob.C
        errs["cuBLAS FP32"] = errors(prob.C.get().astype(np.float64), prob)
        timing._cublas_check(rt, prob, tf32=True)
        errs["cuBLAS TF32"] = errors(prob.C.get().astype(np.float64), prob)
        for kern in ([variant] if variant else [gpu.KERNELS[n] for n in (a.kernels or gpu.TENSOR_KERNEL_NAMES)]):
            cfg = gpu.launch_config(kern.name, M, N, K)
            why = gpu.launch.refusal(cfg, rt.limits)
            if why:
                print(f"  {s:>16} {kern.name}: {why}", flush=True)
                continue
            if variant:  # the launch of the variant's geometry
                cfg = dataclasses.replace(cfg, grid=(*kern.grid(M, N), 1), block=(kern.threads, 1, 1),
                                          shared_bytes=kern.shared_bytes, dynamic_shared_bytes=kern.shared_bytes,
                                          phases=kern.phases(K))
            name = f"{kern.name} ({kern.file[:2]})" if not variant else f"16 {a.variant}"
            _check_on(rt, cfg, prob)
            errs[name], cfgs[name] = errors(prob.C.get().astype(np.float64), prob), cfg
        parts, order = {}, list(errs)
        for name, per in timing._round_order(order, a.repeats):
            kw = dict(repeats=per, warmup=2, budget_s=3.0 / timing.ROUNDS, flush_l2=True)
            if name in cfgs:
                t = timing._time_kernel_on(rt, cfgs[name], prob, **kw)
            else:
                t = timing._time_cublas_on(rt, prob, **kw, tf32=name == "cuBLAS TF32", checked={})
            parts.setdefault(name, []).append(t)
        prob.release(rt)
        ms = {name: timing._joined(p).median_ms for name, p in parts.items()}
        tf32_ms = ms["cuBLAS TF32"]
        for what in order:
            rel, worst = errs[what]
            print(f"  {s:>16} {what:<24} {ms[what]:9.4f} {2 * M * N * K / ms[what] / 1e9:8.1f} "
                  f"{100 * tf32_ms / ms[what]:7.1f} {rel:9.2e} {worst:9.3f}", flush=True)
    print(f"# device {info.name if hasattr(info, 'name') else rt.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
