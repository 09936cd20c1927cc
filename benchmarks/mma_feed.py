"""The ceiling of an mma.sync TF32 kernel fed from shared memory (benchmarks/mma_feed.cu), beside
cuBLAS TF32 at 4096^3 in the same run (issue 14). Each variant is kernel 16's inner loop (fragment
loads, the TF32 rounding, the mma.sync, the phase barrier) on shared memory filled once: no global
copies, no stores of C. A real kernel with the same feeding also copies its tiles in and stores C,
so its rate is at most the variant's.

    python benchmarks/mma_feed.py                 # every variant, kernel 16 and cuBLAS TF32, 3 rounds
    python benchmarks/mma_feed.py --save explainer/data/recorded/   # and record them for page 09

Prints per variant: ms per launch (median of the rounds' medians), TFLOP/s, and that rate as a
share of cuBLAS TF32's rate at 4096^3. Everything is timed alike (L2 flushed, the same hold before
each launch, median of 20), in interleaved rounds; kernel 16 itself at 4096^3 is checked against
numpy float64 (C poisoned) first and timed in the same rounds. ``--save`` writes
``feeding_<device>_<date>.json`` (schema ``tiled-explainer/recorded-feeding/1``: device, versions,
date, every row), which page 09 shows.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explainer import gpu  # noqa: E402
from explainer.gpu import recorded, timing  # noqa: E402
from explainer.gpu.verify import _check_on, _Problem  # noqa: E402
from explainer.resources import kernels_dir  # noqa: E402

HERE = Path(__file__).resolve().parent

# (label, defines): kernel 16's loop first, then one thing taken away or changed at a time.
K16 = dict(FEED_MT=4, FEED_B=0, FEED_CVT=1, FEED_BAR=1, FEED_DB=1, FEED_LOADS=1)
VARIANTS = [
    ("kernel 16's loop from shared memory (64 x 64 warps, B lane by lane, cvt.rn, barrier)", K16),
    ("  without the barrier", {**K16, "FEED_BAR": 0}),
    ("  one fragment set instead of two", {**K16, "FEED_DB": 0}),
    ("  without the cvt (truncation: not cuBLAS TF32's rounding)", {**K16, "FEED_CVT": 0}),
    ("  B by ldmatrix (needs B stored K-major: a transposed copy)", {**K16, "FEED_B": 1}),
    ("  B by ldmatrix, without the cvt", {**K16, "FEED_B": 1, "FEED_CVT": 0}),
    ("96 x 64 warps (48 mma.sync a k-step), B lane by lane, cvt.rn", {**K16, "FEED_MT": 6, "FEED_DB": 0}),
    ("96 x 64 warps, B by ldmatrix, cvt.rn", {**K16, "FEED_MT": 6, "FEED_B": 1, "FEED_DB": 0}),
    ("no fragment loads: the tensor cores alone, on registers", {**K16, "FEED_LOADS": 0, "FEED_CVT": 0}),
]
KERNEL16 = "mma_tf32_staged"
FLOP_PER_MMA = 2 * 16 * 8 * 8
WARPS, BK, STAGES = 8, 32, 3
WORK = 2 * 4096**3  # each launch does about the work of a 4096^3 product


def smem_floats(d: dict) -> int:
    """Shared-memory floats of a variant (the .cu checks it against its own SMEM_FLOATS)."""
    bm, bn = 2 * d["FEED_MT"] * 16, 4 * 8 * 8
    a_stage = bm * (BK + 4)
    b_stage = BK * (bn + 8) if d["FEED_B"] == 0 else bn * (BK + 4)
    return STAGES * (a_stage + b_stage)


def options(d: dict) -> tuple[str, ...]:
    """The compile options of a variant (nvcc and NVRTC alike)."""
    return (("-std=c++17", f"-I{kernels_dir()}") + tuple(f"-D{k}={v}" for k, v in d.items())
            + (f"-DFEED_SMEM_FLOATS={smem_floats(d)}",))


def flop_per_phase(d: dict, sms: int) -> int:
    return FLOP_PER_MMA * d["FEED_MT"] * 8 * (BK // 8) * WARPS * sms


def record(rt, cub: list[float], rows: list[dict], k16: dict, settings: dict) -> dict:
    """The recorded file's contents (what page 09's feeding table reads)."""
    dev = gpu.device_info()
    date = datetime.now(timezone.utc).isoformat(timespec="seconds")
    return {
        "schema": SCHEMA,
        "generated": "written by `python benchmarks/mma_feed.py --save DIR`; regenerate, do not edit",
        "device": dev.to_dict() if hasattr(dev, "to_dict") else {"name": rt.name},
        "date": date,
        "settings": settings,
        "cublas_tf32": {"median_ms": float(np.median(cub)), "rounds_ms": cub},
        "kernel16": k16,
        "rows": rows,
    }


SCHEMA = "tiled-explainer/recorded-feeding/1"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--save", metavar="DIR", help="write feeding_<device>_<date>.json into DIR")
    a = ap.parse_args(argv)
    rt = gpu.runtime._runtime()
    if isinstance(rt, gpu.GpuStatus):
        print(rt.reason, file=sys.stderr)
        return 2
    cp = rt.cp
    sms = int(rt.props["multiProcessorCount"])
    print(f"# {rt.name}, {sms} SMs, cupy {cp.__version__}, {datetime.now(timezone.utc).isoformat(timespec='seconds')}")
    src = (HERE / "mma_feed.cu").read_text()
    rng = np.random.default_rng(1)
    runs = {}
    for label, d in VARIANTS:
        fn = cp.RawModule(code=src, options=options(d)).get_function("mma_feed")
        nbytes = 4 * smem_floats(d)
        fn.max_dynamic_shared_size_bytes = nbytes
        fill = cp.asarray(rng.standard_normal(smem_floats(d)).astype(np.float32))
        out = cp.empty(sms * 32 * WARPS, dtype=cp.float32)
        phases = max(1, round(WORK / flop_per_phase(d, sms)))
        args = (fill, out, np.int32(phases))

        def launch(fn=fn, args=args, nbytes=nbytes):
            fn((sms,), (32 * WARPS,), args, shared_mem=nbytes)
        launch()
        cp.cuda.Device().synchronize()
        if not np.all(np.isfinite(out.get())):
            raise SystemExit(f"{label}: non-finite sums")
        runs[label] = (launch, flop_per_phase(d, sms) * phases)

    # Kernel 16 itself at 4096^3, checked against numpy float64 (C poisoned) before any timing.
    prob = _Problem(rt, 4096, 4096, 4096, seed=1)
    cfg = gpu.launch_config(KERNEL16, 4096, 4096, 4096)
    chk = _check_on(rt, cfg, prob)
    if not (chk["all_written"] and chk["rel_error"] < 2e-3):
        raise SystemExit(f"kernel 16 failed its check: {chk}")
    # cuBLAS TF32, kernel 16 and every variant timed alike (L2 flushed and the same hold before each
    # launch: timing._time_loop), in interleaved rounds, the order reversed every other round.
    kw = dict(repeats=a.repeats, warmup=2, budget_s=3.0, flush_l2=True)
    ms = {label: [] for label, _ in VARIANTS}
    cub, k16 = [], []
    order = ["cublas", KERNEL16] + [label for label, _ in VARIANTS]
    for r in range(a.rounds):
        for what in (order if r % 2 == 0 else order[::-1]):
            if what == "cublas":
                cub.append(timing._time_cublas_on(rt, prob, **kw, tf32=True, checked={}).median_ms)
            elif what == KERNEL16:
                k16.append(timing._time_kernel_on(rt, cfg, prob, **kw).median_ms)
            else:
                times, _ = timing._time_loop(rt, runs[what][0], **kw)
                ms[what].append(float(np.median(times)))
    prob.release(rt)
    cub_ms = float(np.median(cub))
    cub_tflops = WORK / cub_ms / 1e9
    print(f"cuBLAS TF32 4096^3: {cub_ms:.4f} ms (rounds {', '.join(f'{x:.4f}' for x in cub)}) = {cub_tflops:.1f} TFLOP/s")
    print(f"{'variant':<64} {'ms':>8} {'TFLOP/s':>8} {'% cuBLAS TF32':>14}   (rounds)")
    rows = []
    for label, d in VARIANTS:
        m = float(np.median(ms[label]))
        tflops = runs[label][1] / m / 1e9
        rows.append({"what": label.strip(), "indent": label != label.lstrip(), "defines": d, "median_ms": m,
                     "rounds_ms": ms[label], "tflops": tflops, "pct_cublas_tf32": 100 * tflops / cub_tflops})
        print(f"{label:<64} {m:8.4f} {tflops:8.1f} {100 * tflops / cub_tflops:14.1f}   "
              f"({', '.join(f'{x:.4f}' for x in ms[label])})", flush=True)
    k16_ms = float(np.median(k16))
    k16_row = {"what": "kernel 16 itself (copies from global memory, C stored)", "median_ms": k16_ms,
               "rounds_ms": k16, "tflops": WORK / k16_ms / 1e9, "pct_cublas_tf32": 100 * cub_ms / k16_ms,
               "rel_error": chk["rel_error"]}
    print(f"{k16_row['what']:<64} {k16_ms:8.4f} {k16_row['tflops']:8.1f} {k16_row['pct_cublas_tf32']:14.1f}   "
          f"({', '.join(f'{x:.4f}' for x in k16)})")
    if a.save:
        data = record(rt, cub, rows, k16_row, {
            "rounds": a.rounds, "repeats": a.repeats, "flush_l2": True, "work_flop": WORK,
            "launch": f"{sms} blocks of {32 * WARPS} threads (8 warps per SM), BK {BK}, {STAGES} stages",
            "source": "benchmarks/mma_feed.cu"})
        out = Path(a.save) / f"feeding_{recorded._slug(data['device']['name'])}_{data['date'][:10]}.json"
        out.write_text(json.dumps(data, indent=1) + "\n")
        print(f"# saved {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
