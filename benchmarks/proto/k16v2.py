"""Prototype timing of the next kernel 16 against cuBLAS TF32 (same run, median of 20, L2 flushed),
with a check of each variant against float64 on odd shapes (C poisoned with NaN). The measurements
of benchmarks/results/k16_rewrite_2026-11-24.md.

    python benchmarks/proto/k16v2.py --variant 128,256,32,64,3 --define P_BSCALAR --define P_TRUNC
    python benchmarks/proto/k16v2.py --kernel16 kernels/16_mma_tf32_staged.cu   # kernel 16 or a copy
"""
import argparse
import sys
import time
from pathlib import Path

import numpy as np
import cupy as cp
from cupy._core import _routines_linalg as rl

ROOT = Path(__file__).resolve().parents[2]


FILE, SYMBOL = Path(__file__).parent / "k16v2.cu", "k16v2"
KERNEL16 = False


def build(variant, defines):
    BM, BN, BK, WM, ST = variant
    if KERNEL16:  # kernel 16 (or a copy with experiment defines): its SG_ geometry
        geo = [f"-DSG_BM={BM}", f"-DSG_BN={BN}", f"-DSG_BK={BK}", f"-DSG_WM={WM}", "-DSG_WN=64", f"-DSG_STAGES={ST}"]
        defines = list(defines) + ["P_BSCALAR"]
    else:
        geo = [f"-DP_BM={BM}", f"-DP_BN={BN}", f"-DP_BK={BK}", f"-DP_WM={WM}", f"-DP_STAGES={ST}"]
    opts = ["-std=c++17", f"-I{ROOT / 'kernels'}", *geo] + [f"-D{d}" for d in defines]
    mod = cp.RawModule(code=Path(FILE).read_text(), options=tuple(opts),
                       name_expressions=None)
    f = mod.get_function(SYMBOL)
    threads = 32 * (BM // WM) * (BN // 64)
    smem = ST * (BM * (BK + 4) + BK * (BN + (8 if "P_BSCALAR" in defines else 0))) * 4
    f.max_dynamic_shared_size_bytes = smem
    return f, threads, smem


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--variant", action="append", default=[])
    ap.add_argument("--define", action="append", default=[])
    ap.add_argument("--defs", action="append", default=[],
                    help="a comma list of defines for one more build; each --defs is timed in the same process")
    ap.add_argument("--rounds", type=int, default=1, help="interleaved rounds of timing (cuBLAS, then each build)")
    ap.add_argument("--sustain", type=float, default=0, help="seconds of back-to-back launches per build")
    ap.add_argument("--kernel16", metavar="FILE", help="time kernel 16's file, or a copy of it, instead")
    ap.add_argument("--shapes", nargs="*", default=["4096x4096x4096"])
    ap.add_argument("--check", nargs="*", default=["1000x777x333", "129x257x37", "4096x4096x4096"])
    a = ap.parse_args()
    global FILE, SYMBOL, KERNEL16
    if a.kernel16:
        FILE, SYMBOL, KERNEL16 = a.kernel16, "mma_tf32_staged_gemm", True
    variants = [tuple(int(x) for x in v.split(",")) for v in (a.variant or ["128,256,32,64,3"])]
    flush = cp.empty(2 * 50 * 2**20 // 4, dtype=cp.float32)
    print(f"# {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}, defines {a.define}")
    compiled = []
    builds = [(v, a.define + [d for d in ds.split(",") if d]) for v in variants for ds in (a.defs or [""])]
    for v, defines in builds:
        print(f"# {v} defines {defines}")
        f, threads, smem = build(v, defines)
        BM, BN = v[0], v[1]
        for s in a.check:
            M, N, K = (int(x) for x in s.split("x"))
            rng = np.random.default_rng(M + N + K)
            Ah = rng.standard_normal((M, K)).astype(np.float32)
            Bh = rng.standard_normal((K, N)).astype(np.float32)
            A, B = cp.asarray(Ah), cp.asarray(Bh)
            C = cp.full((M, N), np.nan, dtype=cp.float32)
            f(((N + BN - 1) // BN, (M + BM - 1) // BM), (threads,), (A, B, C, np.int32(M), np.int32(N), np.int32(K)),
              shared_mem=smem)
            ref = Ah.astype(np.float64) @ Bh.astype(np.float64)
            bound = (np.abs(Ah).astype(np.float64) @ np.abs(Bh).astype(np.float64)) * 2.0 ** -10 + 1e-30
            out = C.get().astype(np.float64)
            worst = float(np.nanmax(np.abs(out - ref) / bound)) if not np.isnan(out).any() else float("nan")
            rel = float(np.linalg.norm(out - ref) / np.linalg.norm(ref))
            print(f"  {v} check {s}: nan={int(np.isnan(out).sum())} rel={rel:.2e} max/bound={worst:.3f}", flush=True)
        compiled.append((v, defines, f, threads, smem))

    def timed(fn, n=20):
        st, en = cp.cuda.Event(), cp.cuda.Event()
        for _ in range(3):
            fn()
        ts = []
        for _ in range(n):
            flush.fill(0)
            st.record(); fn(); en.record(); en.synchronize()
            ts.append(cp.cuda.get_elapsed_time(st, en))
        return float(np.median(ts))

    def sustained(fn, seconds):  # back to back, no flush: the clock the load settles at
        st, en = cp.cuda.Event(), cp.cuda.Event()
        fn(); cp.cuda.Device().synchronize()
        t0 = time.time(); n = 0
        st.record()
        while time.time() - t0 < seconds:
            for _ in range(50):
                fn()
            n += 50
            en.record(); en.synchronize()
        return cp.cuda.get_elapsed_time(st, en) / n, t0, time.time()

    for s in a.shapes:
        M, N, K = (int(x) for x in s.split("x"))
        A = cp.random.standard_normal((M, K), dtype=cp.float32)
        B = cp.random.standard_normal((K, N), dtype=cp.float32)
        C = cp.empty((M, N), dtype=cp.float32)

        def cublas():
            rl.set_compute_type(np.float32, rl.COMPUTE_TYPE_TF32)
            cp.matmul(A, B, out=C)
            rl.set_compute_type(np.float32, rl.COMPUTE_TYPE_DEFAULT)

        def launcher(f, threads, smem, BM, BN):
            grid = ((N + BN - 1) // BN, (M + BM - 1) // BM)
            return lambda: f(grid, (threads,), (A, B, C, np.int32(M), np.int32(N), np.int32(K)), shared_mem=smem)

        runs = [(f"{v} {d}", launcher(f, th, sm, v[0], v[1])) for v, d, f, th, sm in compiled]
        for _ in range(100):
            cublas()
        table = {name: [] for name, _ in runs}
        for r in range(a.rounds):  # interleaved: cuBLAS, then each build, every round
            cub = timed(cublas)
            for name, fn in runs:
                ms = timed(fn)
                table[name].append((ms, cub / ms))
                print(f"  round {r} {name} {s}: {ms:.4f} ms {2 * M * N * K / ms / 1e9:.1f} TFLOP/s; "
                      f"cuBLAS TF32 {cub:.4f} ms; {100 * cub / ms:.1f}%", flush=True)
        for name, rows in table.items():
            ms = np.median([x for x, _ in rows]); pct = np.median([y for _, y in rows])
            print(f"SUMMARY {name} {s}: median {ms:.4f} ms ({min(x for x, _ in rows):.4f}-{max(x for x, _ in rows):.4f}), "
                  f"median {100 * pct:.1f}% of cuBLAS TF32 over {len(rows)} rounds", flush=True)
        if a.sustain:
            for name, fn in [("cuBLAS TF32", cublas)] + runs:
                ms, t0, t1 = sustained(fn, a.sustain)
                print(f"SUSTAINED {name} {s}: {ms:.4f} ms per launch, back to back, "
                      f"t {t0:.1f}-{t1:.1f}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
