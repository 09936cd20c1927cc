"""Scratch: the padded launch's copies (kernels/pad_rows.cu) against a float4-store variant and
plain device-to-device copies of the same bytes, per shape. Median of 20, L2 flushed."""
import sys
import numpy as np
import cupy as cp
from explainer import gpu
from explainer.gpu.launch import launch_config
from explainer.gpu.verify import _Problem, _pad_inputs
from explainer.gpu.timing import _time_loop

V4 = r'''
extern "C" __global__ void __launch_bounds__(256)
pad_rows4(const float* __restrict__ s0, float* __restrict__ d0, int rows0, int cols0, int ld0, int shift0,
          int chunks0, const float* __restrict__ s1, float* __restrict__ d1, int cols1, int ld1, int shift1, int chunks1)
{
    long long b = blockIdx.x;
    const float* s = s0; float* d = d0;
    int cols = cols0, ld = ld0, shift = shift0, chunks = chunks0;
    if (b >= (long long)rows0 * chunks0) { b -= (long long)rows0 * chunks0; s = s1; d = d1; cols = cols1; ld = ld1; shift = shift1; chunks = chunks1; }
    const long long r = b / chunks;
    const int c = (int)(b % chunks) * 1024 + 4 * threadIdx.x;
    if (c >= ld) return;
    const float* src = s + r * cols - shift;
    float v[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) v[u] = c + u >= shift && c + u < cols + shift ? src[c + u] : 0.0f;
    *reinterpret_cast<float4*>(d + r * ld + c) = make_float4(v[0], v[1], v[2], v[3]);
}
'''
rt = gpu.runtime._runtime()
k4 = cp.RawKernel(V4, "pad_rows4")
np32 = np.int32
for sh in sys.argv[1:]:
    M, N, K = (int(x) for x in sh.split("x"))
    prob = _Problem(rt, M, N, K, seed=1)
    cfg = launch_config("warptile", M, N, K, pad=True)
    Ap, Bp = rt.pad_buffers(cfg)
    lda, ldb = cfg.ld
    jobs = ([(prob.A, Ap, M, K, lda, lda - K, -(-lda // 1024))] if Ap is not None else []) + \
           ([(prob.B, Bp, K, N, ldb, 0, -(-ldb // 1024))] if Bp is not None else [])
    (s0, d0, r0, *a0), (s1, d1, r1, *a1) = jobs[0], jobs[-1]
    if len(jobs) == 1:
        r1 = 0
    blocks = r0 * a0[-1] + r1 * a1[-1]
    args = (s0, d0, *map(np32, (r0, *a0)), s1, d1, *map(np32, a1))
    A2, B2 = cp.empty_like(prob.A), cp.empty_like(prob.B)
    def plain():
        A2[...] = prob.A
        B2[...] = prob.B
    fns = {"pad_rows": lambda: _pad_inputs(rt, cfg, prob.A, prob.B),
           "pad_rows4": lambda: k4((blocks,), (256,), args),
           "memcpy": lambda: (cp.cuda.runtime.memcpyAsync(A2.data.ptr, prob.A.data.ptr, A2.nbytes, 3, 0),
                              cp.cuda.runtime.memcpyAsync(B2.data.ptr, prob.B.data.ptr, B2.nbytes, 3, 0))}
    # check the variant
    _pad_inputs(rt, cfg, prob.A, prob.B); ref = [x.copy() for x in (Ap, Bp) if x is not None]
    for x in (Ap, Bp):
        if x is not None: x.fill(np.nan)
    k4((blocks,), (256,), args); cp.cuda.Device().synchronize()
    got = [x for x in (Ap, Bp) if x is not None]
    assert all(bool((a == b).all()) for a, b in zip(ref, got)), sh
    out = {}
    for rnd in range(3):
        for name, fn in fns.items():
            ts, _ = _time_loop(rt, fn, repeats=20, warmup=2, budget_s=2.0, flush_l2=True)
            out.setdefault(name, []).append(float(np.median(ts)))
    mb = 4 * (M * K * (Ap is not None) + K * N * (Bp is not None)) / 1e6
    print(sh, f"{mb:.1f} MB copied:", " | ".join(f"{k} {np.median(v) * 1e3:.1f} us" for k, v in out.items()), flush=True)
    prob.release(rt)
