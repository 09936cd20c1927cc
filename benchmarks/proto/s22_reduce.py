"""Scratch (session 22), for benchmarks/proto/reduce_s22_seq.patch (apply it first: the new kernel's
launch layout below is the patch's; the first run of this script, on the committed kernel with the
old layout, is in benchmarks/results/splitk_2026-11-23.md, session 22): kernels/splitk_reduce.cu alone, session 21's (slices M x N floats apart:
float4 only where M x N % 4 == 0, else one float at a time) against this tree's (slices 4-aligned:
float4 everywhere but C's last 1-3 floats; up to 8 slices a thread per float4, 256-thread blocks),
each on its own launch layout. Same sums, same C; CUDA events around each launch, the stream held
by a 50 us spin before each start (the host's launch time out of the span), old and new
alternating, median of 200 (W left in L2, as kernel 14 leaves it)."""
from pathlib import Path

import cupy as cp
import numpy as np

old = cp.RawModule(code=Path("benchmarks/proto/splitk_reduce_s21.cu").read_text()).get_function("splitk_reduce")
new = cp.RawModule(code=Path("kernels/splitk_reduce.cu").read_text()).get_function("splitk_reduce")
spin = cp.RawKernel(r'''extern "C" __global__ void spin(long long cycles)
{ const long long t0 = clock64(); while (clock64() - t0 < cycles) {} }''', "spin")
print(cp.cuda.runtime.getDeviceProperties(0)["name"].decode())
for M, N, S in [(1037, 1689, 2), (1023, 1023, 3), (1075, 613, 3), (1389, 687, 3), (51, 6464, 10),
                (355, 245, 44), (641, 2015, 3), (1024, 1024, 4), (6990, 42, 7)]:
    mn = M * N
    stride = -(-mn // 4) * 4
    vals = cp.random.rand(S, mn, dtype=cp.float32)
    w_old = vals.reshape(-1).copy()
    w_new = cp.zeros((S, stride), cp.float32)
    w_new[:, :mn] = vals
    c_old, c_new = cp.full(mn, cp.nan, cp.float32), cp.full(mn, cp.nan, cp.float32)
    grid, block = (-(-mn // 128), 1, 1), (32 * min(S, 8), 1, 1)
    ngrid, nblock = ((-(-mn // 1024), 1, 1) if S <= 8 else grid), (256, 1, 1)
    args_old = (w_old, c_old, np.int64(mn), np.int32(S))
    args_new = (w_new, c_new, np.int64(mn), np.int32(S))
    old(grid, block, args_old)
    new(ngrid, nblock, args_new)
    ref = vals.astype(cp.float64).sum(axis=0)
    same = bool(cp.array_equal(c_old, c_new))
    err = float(cp.abs(c_new - ref).max())
    times = {"old": [], "new": []}
    ev = [cp.cuda.Event() for _ in range(2)]
    for rep in range(200):
        for name, f, g, b, a in (("old", old, grid, block, args_old),
                                 ("new", new, ngrid, nblock, args_new))[::1 if rep % 2 else -1]:
            spin((1,), (1,), (np.int64(90000),))
            ev[0].record()
            f(g, b, a)
            ev[1].record()
            ev[1].synchronize()
            times[name].append(cp.cuda.get_elapsed_time(ev[0], ev[1]) * 1000)
    mo, mnw = np.median(times["old"]), np.median(times["new"])
    print(f"{M}x{N} S={S} (M*N % 4 = {mn % 4}): old {mo:.2f} us, new {mnw:.2f} us ({100 * (mnw / mo - 1):+.0f}%), "
          f"same bits {same}, max err {err:.1e}")
