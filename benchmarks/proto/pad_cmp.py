"""Scratch: unaligned shapes (K or N not a multiple of 4) run as planned, against the same
product with A / B copied into zero-padded buffers whose rows are 16-byte aligned (K, N rounded
up to 4), the padded shape's planned launch, and C copied back; same process, cuBLAS FP32 first."""
import sys
import numpy as np
import cupy as cp
from explainer.gpu.runtime import _runtime
from explainer.gpu.launch import launch_config, parse_label
from explainer.gpu.verify import _launch
from explainer.gpu.recorded import load_recorded, recorded_rows, load_tuned
from explainer.model import planner

rt = _runtime()
sms = cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"]
rec = load_recorded(device=rt.name); tuned = load_tuned(device=rt.name)
rows = recorded_rows(rec, split_k=True); trows = recorded_rows(tuned, split_k=True) if tuned else ()
pad = cp.ElementwiseKernel("raw T src, int32 rows, int32 cols, int32 ld", "T dst",
                           "const int r = i / ld, c = i % ld; dst = (r < rows && c < cols) ? src[(long long)r * cols + c] : (T)0;",
                           "pad2d")
unpad = cp.ElementwiseKernel("raw T src, int32 cols, int32 ld", "T dst",
                             "const long long r = i / cols, c = i % cols; dst = src[r * ld + c];", "unpad2d")
ev0, ev1 = cp.cuda.Event(), cp.cuda.Event()


def timed(fn, n=20):
    for _ in range(3): fn()
    ts = []
    for _ in range(n):
        rt.flush_l2(); ev0.record(); fn(); ev1.record(); ev1.synchronize()
        ts.append(cp.cuda.get_elapsed_time(ev0, ev1))
    return float(np.median(ts))


def launcher(M, N, K, A, B, C):
    lab = planner.plan(M, N, K, rows, sms, trows)[0].label
    name, S, T = parse_label(lab)
    cfg = launch_config(name, M, N, K, 16, S, T)
    kern = rt.kernel(cfg)
    return lab, (lambda: _launch(rt, kern, cfg, A, B, C))


for sh in sys.argv[1:]:
    M, N, K = (int(x) for x in sh.split("x"))
    K4, N4 = -(-K // 4) * 4, -(-N // 4) * 4
    A = cp.random.standard_normal((M, K), dtype=cp.float32)
    B = cp.random.standard_normal((K, N), dtype=cp.float32)
    C = cp.empty((M, N), dtype=cp.float32)
    Ap = cp.empty((M, K4), dtype=cp.float32); Bp = cp.empty((K4, N4), dtype=cp.float32)
    Cp = cp.empty((M, N4), dtype=cp.float32)
    ref = cp.matmul(A.astype(cp.float64), B.astype(cp.float64))
    lab1, plain = launcher(M, N, K, A, B, C)
    lab2, inner = launcher(M, N4, K4, Ap if K4 != K else A, Bp if (K4, N4) != (K, N) else B, Cp if N4 != N else C)

    def copies():
        if K4 != K: pad(A, M, K, K4, Ap)
        if (K4, N4) != (K, N): pad(B, K, N, N4, Bp)

    def padded():
        copies(); inner()
        if N4 != N: unpad(Cp, N, N4, C)
    for fn in (plain, padded):
        C.fill(cp.nan); fn(); cp.cuda.Device().synchronize()
        err = float(cp.linalg.norm(C - ref) / cp.linalg.norm(ref))
        assert err < 1e-5 and not bool(cp.isnan(C).any()), (sh, err)
    for r in range(2):
        cub = timed(lambda: cp.matmul(A, B, out=C))
        t1, t2, tc = timed(plain), timed(padded), timed(copies)
        print(f"{sh} r{r}: cuBLAS {cub:.4f} | {lab1} {t1:.4f} {100 * cub / t1:.1f}% | padded {lab2} {t2:.4f} "
              f"{100 * cub / t2:.1f}% (copies in {tc:.4f})", flush=True)
