"""Scratch (session 22): where splitk_reduce's time goes. The shipped kernel (one float4 of C per
lane, ZW = min(S, 8) warps a block on the slices) against one-warp-per-slice-free variants: 256
threads a block, each thread F float4 of C, the S slices summed in order z = 0, 1, .. (same bits as
the shipped kernel where S <= 8), and an empty kernel (the events' own span). Median of 200."""
from pathlib import Path

import cupy as cp
import numpy as np

VARIANTS = r'''
extern "C" __global__ void empty_k(const float* W, float* C, long long mn, int splits) {}
template <int F>
__device__ void seq(const float* __restrict__ W, float* __restrict__ C, long long mn, int splits)
{
    const long long stride = (mn + 3) & ~3LL;
    float4 sum[F];
#pragma unroll
    for (int f = 0; f < F; ++f) sum[f] = make_float4(0.f, 0.f, 0.f, 0.f);
    const long long base = 4LL * (blockIdx.x * (long long)blockDim.x * F + threadIdx.x);
#pragma unroll 4
    for (int z = 0; z < splits; ++z) {
#pragma unroll
        for (int f = 0; f < F; ++f) {
            const long long i = base + 4LL * f * blockDim.x;
            if (i + 3 < mn) {
                const float4 v = *reinterpret_cast<const float4*>(W + z * stride + i);
                sum[f].x += v.x; sum[f].y += v.y; sum[f].z += v.z; sum[f].w += v.w;
            } else if (i < mn) {
                const float* p = W + z * stride + i;
                sum[f].x += p[0];
                if (i + 1 < mn) sum[f].y += p[1];
                if (i + 2 < mn) sum[f].z += p[2];
            }
        }
    }
#pragma unroll
    for (int f = 0; f < F; ++f) {
        const long long i = base + 4LL * f * blockDim.x;
        if (i + 3 < mn) *reinterpret_cast<float4*>(C + i) = sum[f];
        else if (i < mn) { C[i] = sum[f].x; if (i + 1 < mn) C[i + 1] = sum[f].y; if (i + 2 < mn) C[i + 2] = sum[f].z; }
    }
}
extern "C" __global__ void __launch_bounds__(256) seq1(const float* W, float* C, long long mn, int s) { seq<1>(W, C, mn, s); }
extern "C" __global__ void __launch_bounds__(256) seq2(const float* W, float* C, long long mn, int s) { seq<2>(W, C, mn, s); }
extern "C" __global__ void __launch_bounds__(256) seq4(const float* W, float* C, long long mn, int s) { seq<4>(W, C, mn, s); }
'''
shipped = cp.RawModule(code=Path("kernels/splitk_reduce.cu").read_text()).get_function("splitk_reduce")
mod = cp.RawModule(code=VARIANTS, options=("-std=c++17",))
print(cp.cuda.runtime.getDeviceProperties(0)["name"].decode())
ev = [cp.cuda.Event() for _ in range(2)]
for M, N, S in [(1037, 1689, 2), (1075, 613, 3), (1023, 1023, 3), (641, 2015, 3), (355, 245, 44), (51, 6464, 10),
                (1024, 1024, 4), (4096, 64, 12)]:
    mn = M * N
    stride = -(-mn // 4) * 4
    W = cp.zeros((S, stride), cp.float32)
    W[:, :mn] = cp.random.rand(S, mn, dtype=cp.float32)
    ref = W[:, :mn].astype(cp.float64).sum(axis=0)
    runs = {"shipped": (shipped, (-(-mn // 128), 1, 1), (32 * min(S, 8), 1, 1)),
            "empty": (mod.get_function("empty_k"), (-(-mn // 128), 1, 1), (32 * min(S, 8), 1, 1))}
    for F in (1, 2, 4):
        runs[f"seq{F}"] = (mod.get_function(f"seq{F}"), (-(-mn // (1024 * F)), 1, 1), (256, 1, 1))
    Cs = {k: cp.full(mn, cp.nan, cp.float32) for k in runs}
    times = {k: [] for k in runs}
    for rep in range(200):
        for k, (f, g, b) in (list(runs.items()) if rep % 2 else list(runs.items())[::-1]):
            ev[0].record()
            f(g, b, (W, Cs[k], np.int64(mn), np.int32(S)))
            ev[1].record()
            ev[1].synchronize()
            times[k].append(cp.cuda.get_elapsed_time(ev[0], ev[1]) * 1000)
    out = []
    for k in runs:
        ok = "" if k == "empty" else (" ok" if float(cp.abs(Cs[k] - ref).max()) < 1e-5 * S else " WRONG")
        same = "" if k in ("empty", "shipped") else (" =" if bool(cp.array_equal(Cs[k], Cs["shipped"])) else " !=")
        out.append(f"{k} {np.median(times[k]):.2f}{ok}{same}")
    print(f"{M}x{N} S={S} ({S * stride * 4 / 2**20:.1f} MiB of slices): " + ", ".join(out))
