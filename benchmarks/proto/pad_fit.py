"""Scratch: a padded launch's copies alone (kernels/pad_rows.cu, explainer's _pad_inputs: A where
K, B where N is not a multiple of 4, one launch), per shape: ms, bytes, GB/s, the planner's
pad_ms; then a least-squares fit ms = L + bytes / rate (planner.PAD_LAUNCH_MS, PAD_GBS)."""
import sys
import numpy as np
import cupy as cp
from explainer.gpu.runtime import _runtime
from explainer.gpu.launch import launch_config
from explainer.gpu.verify import _pad_inputs
from explainer.model import planner

rt = _runtime()
ev0, ev1 = cp.cuda.Event(), cp.cuda.Event()
rows = []
for sh in sys.argv[1:]:
    M, N, K = (int(x) for x in sh.split("x"))
    cfg = launch_config("warptile", M, N, K, pad=True)
    lda, ldb = cfg.ld
    A = cp.random.standard_normal((M, K), dtype=cp.float32); B = cp.random.standard_normal((K, N), dtype=cp.float32)

    def copies():
        _pad_inputs(rt, cfg, A, B)
    for _ in range(3): copies()
    ts = []
    for _ in range(20):
        rt.flush_l2(); ev0.record(); copies(); ev1.record(); ev1.synchronize(); ts.append(cp.cuda.get_elapsed_time(ev0, ev1))
    ms = float(np.median(ts))
    floats = (M * K + M * lda if lda != K else 0) + (K * N + K * ldb if ldb != N else 0)
    rows.append((4 * floats, ms))
    print(f"{sh}: copies {ms:.4f} ms, {4 * floats / 1e6:.1f} MB, {4 * floats / ms / 1e6:.0f} GB/s; model {planner.pad_ms(M, N, K):.4f}", flush=True)
X = np.array([[1.0, b / 1e6] for b, _ in rows]); y = np.array([m for _, m in rows])
coef, *_ = np.linalg.lstsq(X, y, rcond=None)
print(f"fit: {coef[0]:.4f} ms per launch, {1 / coef[1]:.0f} GB/s")
