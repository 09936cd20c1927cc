"""Scratch: the padded launch's copies alone (kernels/pad_rows.cu through explainer's _launch
path), per shape: ms, bytes, GB/s; then a least-squares fit ms = launches * L + bytes / rate."""
import sys
import numpy as np
import cupy as cp
from explainer.gpu.runtime import _runtime
from explainer.gpu.launch import launch_config
from explainer.gpu.verify import _pad_inputs
from explainer.model import planner

rt = _runtime()
ev0, ev1 = cp.cuda.Event(), cp.cuda.Event()
_, unpad_rows = rt.pad_kernels()
i32 = np.int32
rows = []
for sh in sys.argv[1:]:
    M, N, K = (int(x) for x in sh.split("x"))
    cfg = launch_config("warptile", M, N, K, pad=True)
    _, N4, K4 = cfg.inner
    A = cp.random.standard_normal((M, K), dtype=cp.float32); B = cp.random.standard_normal((K, N), dtype=cp.float32)
    C = cp.empty((M, N), dtype=cp.float32)

    def copies():  # what _launch does around the kernel
        _, _, Cp = _pad_inputs(rt, cfg, A, B)
        if Cp is not None:
            unpad_rows((M,), (256,), (Cp, C, i32(N), i32(N4)))
    for _ in range(3): copies()
    ts = []
    for _ in range(20):
        rt.flush_l2(); ev0.record(); copies(); ev1.record(); ev1.synchronize(); ts.append(cp.cuda.get_elapsed_time(ev0, ev1))
    ms = float(np.median(ts))
    floats = K * N + K4 * N4 + (M * K + M * K4 if K4 != K else 0) + (2 * M * N + M * (N4 - N) if N4 != N else 0)
    launches = 2 if N4 != N else 1
    rows.append((launches, 4 * floats, ms))
    print(f"{sh}: copies {ms:.4f} ms, {4 * floats / 1e6:.1f} MB, {4 * floats / ms / 1e6:.0f} GB/s; model {planner.pad_ms(M, N, K):.4f}", flush=True)
X = np.array([[l, b / 1e6] for l, b, _ in rows]); y = np.array([m for _, _, m in rows])
coef, *_ = np.linalg.lstsq(X, y, rcond=None)
print(f"fit: {coef[0]:.4f} ms per launch, {1 / coef[1]:.0f} GB/s")
