"""Tune the ladder kernels (kernels/10-14) on the GPU at hand: compile candidate template
instantiations, check each on odd shapes (guarded path) and at the tuning size (fast path)
against numpy float64 with C poisoned, and time each against cuBLAS (FP32, TF32 off) in the
same run. The chosen instantiations go into explainer/model/ladder.py by hand, with this script's
output recorded in benchmarks/results/.

    python benchmarks/tune_ladder.py                 # every candidate at 4096^3
    python benchmarks/tune_ladder.py --only warptile --size 4096 --repeats 30
    python benchmarks/tune_ladder.py --out results/  # writes tune_ladder_<device>_<date>.json

Timing: CUDA events around each launch, 2 warm-ups, the median of --repeats with the L2
flushed before each (explainer.gpu's method); cuBLAS is timed before and after the candidates
and both medians are reported, so drift during the run shows.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explainer import gpu  # noqa: E402

from explainer.model import ladder

CHECK_SHAPES = ((1, 1, 1), (35, 79, 19), (1000, 300, 77))


def variant(base: ladder.Rung, tag: str, **changes) -> ladder.Rung:
    params = tuple((k, changes.get(k, v)) for k, v in base.params)
    return dataclasses.replace(base, name=f"{base.name.split(':')[0]}:{tag}", params=params)


def candidates() -> list[ladder.Rung]:
    R = ladder.BY_NAME
    out = list(ladder.RUNGS)
    out += [
        variant(R["blocktile_2d"], "bk16", BK=16),
        variant(R["blocktile_2d"], "64x64", BM=64, BN=64),
        variant(R["vectorized"], "bk16", BK=16),
        variant(R["double_buffered"], "bk16", BK=16),
    ]
    # warptile: the 128 x 128 starting point (8 x 8 outputs per thread as 2 x 2 micro-tiles of
    # 4 x 4, 2 blocks per SM) and variants around it; then around the winner, 256 x 128.
    w = variant(R["warptile"], "128x128", BM=128, BN=128, BK=8, WM=64, WN=32, WNITER=2, TM=4,
                TN=4, THREADS=256, PAD=4, MINB=2)
    out += [
        w,
        variant(w, "bk16", BK=16),
        variant(w, "128x128:pad0", PAD=0),
        variant(w, "128x128minb1", MINB=1),
        variant(w, "128x128wm32wn64", WM=32, WN=64),
        variant(w, "128x128tn8", WNITER=1, TN=8),
        variant(w, "128x256", BN=256, WN=64, WNITER=4, MINB=1),
        variant(w, "128x256tn8", BN=256, WN=64, WNITER=2, TN=8, MINB=1),
        variant(w, "256x128tm4", BM=256, WN=64, WNITER=4, MINB=1),
        variant(w, "t128bk16", BK=16, WN=64, WNITER=4, TM=8, THREADS=128, MINB=1),
        variant(w, "t128bk8", WN=64, WNITER=4, TM=8, THREADS=128, MINB=1),
        # around the tuned rung (256 x 128, 16 x 8 outputs per thread, 1 block per SM)
        variant(R["warptile"], "pad0", PAD=0),
        variant(R["warptile"], "wm128wn32", WM=128, WN=32, WNITER=1),
        variant(R["warptile"], "wniter1", WNITER=1, TN=8, TM=4, WM=64, WN=64),
    ]
    return out


def smi() -> str:
    try:
        return subprocess.run(
            ["nvidia-smi", "--query-gpu=clocks.sm,clocks.max.sm,power.draw,temperature.gpu",
             "--format=csv,noheader"], capture_output=True, text=True, timeout=10).stdout.strip()
    except Exception as e:  # noqa: BLE001
        return f"nvidia-smi: {e}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--only", default=None, help="keep candidates whose name contains this")
    ap.add_argument("--out", default=None, help="folder for the JSON record")
    a = ap.parse_args(argv)

    rt = gpu.runtime._runtime()
    if isinstance(rt, gpu.GpuStatus):
        print(rt.reason, file=sys.stderr)
        return 2
    cp = rt.cp
    cands = [c for c in candidates() if not a.only or a.only in c.name]
    S = a.size
    dev = gpu.device_info()
    start = smi()
    print(f"# {rt.name}  {S}^3  clocks/power/temp at start: {start}", flush=True)

    prob = gpu.verify._Problem(rt, S, S, S, seed=0)
    gpu.timing._spin_up(rt, prob)  # an idle GPU needs a moment to reach its boost clock
    timing = dict(repeats=a.repeats, warmup=2, budget_s=3.0, flush_l2=True)
    cub0 = gpu.timing._time_cublas_on(rt, prob, **timing)
    print(f"cublas (before): {cub0.median_ms:.3f} ms  "
          f"{gpu.gflops(S, S, S, cub0.median_ms) / 1e3:.1f} TFLOP/s", flush=True)

    rows = []
    for c in cands:
        row = {"name": c.name, "params": dict(c.params), "expression": c.expression(False)}
        t0 = time.time()
        try:
            src = (gpu.KERNELS_DIR / c.file).read_text()
            mod = cp.RawModule(code=src, options=gpu.launch.COMPILE_OPTIONS + (f"-I{gpu.KERNELS_DIR}",),
                               name_expressions=c.expressions)
            fast = mod.get_function(c.expression(False))
            slow = mod.get_function(c.expression(True))
        except Exception as e:  # noqa: BLE001
            row["error"] = f"compile: {type(e).__name__}: {str(e)[-400:]}"
            rows.append(row)
            print(f"{c.name}: {row['error']}", flush=True)
            continue
        attrs = fast.attributes
        row.update(registers=attrs.get("num_regs"), local_bytes=attrs.get("local_size_bytes"),
                   shared_bytes=attrs.get("shared_size_bytes"), compile_s=round(time.time() - t0, 1))
        try:
            row["blocks_per_sm"] = int(cp.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(
                fast.kernel.ptr, c.threads, 0))
        except Exception:  # noqa: BLE001
            row["blocks_per_sm"] = None

        def launch(kern, M, N, K, A, B, C):
            lds = (np.int32(K), np.int32(N)) if c.splits_k else ()  # kernel 14: the rows' strides (lda, ldb)
            kern(c.grid(M, N), (c.threads,), (A, B, C, np.int32(M), np.int32(N), np.int32(K), *lds))

        errs = []
        for (M, N, K) in CHECK_SHAPES:
            p = gpu.verify._Problem(rt, M, N, K, seed=M + N + K)
            p.C.fill(np.nan)
            launch(slow, M, N, K, p.A, p.B, p.C)
            cp.cuda.Device().synchronize()
            r = p.check_C(rt)
            errs.append(r["rel_error"] if r["all_written"] else float("nan"))
            p.release(rt)
        row["odd_rel_errors"] = errs
        prob.C.fill(np.nan)
        launch(fast, S, S, S, prob.A, prob.B, prob.C)
        cp.cuda.Device().synchronize()
        r = prob.check_C(rt)
        row["rel_error"] = r["rel_error"] if r["all_written"] else float("nan")
        row["passed"] = bool(all(e <= gpu.verify.DEFAULT_TOL for e in errs + [row["rel_error"]]))
        times, _ = gpu.timing._time_loop(rt, lambda: launch(fast, S, S, S, prob.A, prob.B, prob.C),
                                  **timing)
        med = float(np.median(times))
        row.update(median_ms=med, min_ms=min(times), max_ms=max(times), repeats=len(times),
                   tflops=gpu.gflops(S, S, S, med) / 1e3, pct_cublas=100 * cub0.median_ms / med)
        rows.append(row)
        print(f"{c.name:28s} regs {row['registers']:>3} lmem {row['local_bytes']:>3} "
              f"blk/SM {row['blocks_per_sm']} {med:8.3f} ms {row['tflops']:6.2f} TFLOP/s "
              f"{row['pct_cublas']:5.1f}% cuBLAS  ok={row['passed']} err={row['rel_error']:.1e}",
              flush=True)

    cub1 = gpu.timing._time_cublas_on(rt, prob, **timing)
    prob.release(rt)
    end = smi()
    print(f"cublas (after): {cub1.median_ms:.3f} ms; clocks/power/temp at end: {end}")
    print("\n# best first (% of cuBLAS before / after)")
    good = sorted((r for r in rows if "median_ms" in r), key=lambda r: r["median_ms"])
    for r in good:
        print(f"{r['name']:28s} {r['median_ms']:8.3f} ms  {r['tflops']:6.2f} TFLOP/s  "
              f"{r['pct_cublas']:5.1f}% / {100 * cub1.median_ms / r['median_ms']:5.1f}%  "
              f"passed={r['passed']}")
    record = {
        "script": "benchmarks/tune_ladder.py", "size": S,
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "device": dev.to_dict() if isinstance(dev, gpu.DeviceInfo) else {"name": rt.name},
        "timing": timing, "cublas_before": cub0.to_dict(), "cublas_after": cub1.to_dict(),
        "clocks_start_end": [start, end], "candidates": rows,
    }
    if a.out:
        out = Path(a.out)
        out.mkdir(parents=True, exist_ok=True)
        slug = rt.name.lower().replace(" ", "-")
        path = out / f"tune_ladder_{slug}_{record['date'][:10]}.json"
        path.write_text(json.dumps(record, indent=1, default=str))
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
