"""Scratch: which rounding does mma.sync apply to raw float32 bits on this GPU? Kernel 16 built
with -DEXPLAINER_TF32_TRUNCATE (no cvt) on tie / above-half inputs times an identity; then both
builds timed at 4096^3, interleaved (median of 20, L2 flushed) next to cuBLAS TF32."""
import numpy as np
from explainer import gpu
from explainer.gpu import launch as L
from explainer.gpu.launch import launch_config
from explainer.gpu.verify import _Problem, _launch
from explainer.gpu.timing import _time_loop, _time_cublas_on
from explainer.model import mma

rt = gpu.runtime._runtime()
cases = np.array([1 + 2.0 ** -11, -(1 + 2.0 ** -11), 1 + 3 * 2.0 ** -12, 1 + 2.0 ** -10 + 2.0 ** -11,
                  3 + 3 * 2.0 ** -10, 0.5 + 2.0 ** -12], dtype=np.float32)
K = 40
A = np.resize(cases, (37, K)).astype(np.float32)
B = np.zeros((K, 29), dtype=np.float32)
B[np.arange(29), np.arange(29)] = 1
builds = {}
for d in ("cvt", "nocvt"):
    rt.modules.clear()
    gpu.runtime.COMPILE_OPTIONS = L.COMPILE_OPTIONS + (("-DEXPLAINER_TF32_TRUNCATE",) if d == "nocvt" else ())
    for name in ("mma_tf32_staged", "mma_tf32"):
        C = gpu.matmul(name, A, B)
        got = [r for r in ("truncate", "rna", "rne") if np.array_equal(C, mma.tf32(A, r)[:, :29])]
        print(d, name, "rounding:", got, flush=True)
    cfg = launch_config("mma_tf32_staged", 4096, 4096, 4096, 16)
    builds[d] = (cfg, rt.kernel(cfg))
rt.modules.clear()
M = N = K = 4096
prob = _Problem(rt, M, N, K, seed=1)
res = {}
for r in range(5):
    res.setdefault("cublas_tf32", []).append(_time_cublas_on(rt, prob, repeats=20, warmup=2, budget_s=2.0, flush_l2=True, tf32=True).median_ms)
    for d in (("cvt", "nocvt") if r % 2 == 0 else ("nocvt", "cvt")):
        cfg, kern = builds[d]
        ts, _ = _time_loop(rt, lambda: _launch(rt, kern, cfg, prob.A, prob.B, prob.C), repeats=20, warmup=2, budget_s=2.0, flush_l2=True)
        res.setdefault(d, []).append(float(np.median(ts)))
cub = np.median(res["cublas_tf32"])
print({k: (round(float(np.median(v)), 4), f"{100 * cub / np.median(v):.1f}%") for k, v in res.items()})
