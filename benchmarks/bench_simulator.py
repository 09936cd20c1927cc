"""Time the kernel simulator (explainer.sim) end to end: parse, compile, run every block, check
against numpy float64. Targets on a 2-core machine: the tiled kernel (kernels/03_tiled.cu) at
128x128x128 with TILE 16 (64 blocks of 256 threads) within 5 s, and at 35x79x19 with TILE 4 within
1 s. Each case runs in both modes: blocks batched (the default: several blocks' threads in one set
of numpy arrays) and one block at a time; both give the same report.

    python benchmarks/bench_simulator.py [--repeats 5] [--save]

Prints JSON: the machine, the versions, the date, and per case the median and the slowest of the
repeats, in seconds. ``--save`` also writes it to benchmarks/results/simulator_<date>.json.
Exit status 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path

from explainer.resources import kernels_dir
from explainer.sim import check_kernel

ROOT = Path(__file__).resolve().parent.parent
# (name, kernel file, (M, N, K, tile), target seconds or None)
CASES = [
    ("tiled 128^3 T=16", "03_tiled.cu", (128, 128, 128, 16), 5.0),
    ("tiled 35x79x19 T=4", "03_tiled.cu", (35, 79, 19, 4), 1.0),
    ("naive 128^3 T=16", "01_naive.cu", (128, 128, 128, 16), None),
    ("no barriers 128^3 T=16 (races reported)", "09_tiled_no_barriers.cu", (128, 128, 128, 16), None),
    ("default launches of tiled, T=16", "03_tiled.cu", None, None),
]
MODES = {"batched": None, "one block at a time": 1}


def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def time_case(path: Path, launch, batch, repeats: int) -> dict:
    src = path.read_text()
    kw = {} if batch is None else {"batch_threads": batch}
    times, passed = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        r = check_kernel(src, None if launch is None else [launch], path=path,
                         tile=16 if launch is None else None, **kw)
        times.append(time.perf_counter() - t0)
        passed = r.passed
    return {"median_s": round(statistics.median(times), 4), "max_s": round(max(times), 4), "passed": passed}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--save", action="store_true", help="also write benchmarks/results/simulator_<date>.json")
    args = ap.parse_args(argv)
    now = datetime.now(timezone.utc)
    report = {
        "device": {"cpu": _cpu(), "cores": os.cpu_count(), "machine": platform.machine()},
        "versions": {"python": platform.python_version(),
                     **{d: _version(d) for d in ("numpy", "tree-sitter", "tree-sitter-cuda", "tiled-gemm-explainer")}},
        "date": now.strftime("%Y-%m-%d %H:%M UTC"),
        "repeats": args.repeats,
        "cases": [],
    }
    ok = True
    for name, file, launch, target in CASES:
        for mode, batch in MODES.items():
            r = time_case(kernels_dir() / file, launch, batch, args.repeats)
            row = {"case": name, "mode": mode, "kernel": file,
                   "launch": None if launch is None else dict(zip(("M", "N", "K", "tile"), launch)), **r}
            if target is not None:
                row["target_s"] = target
                row["met"] = r["median_s"] <= target
                ok &= row["met"]
            report["cases"].append(row)
    report["targets_met"] = ok
    text = json.dumps(report, indent=1)
    print(text)
    if args.save:
        out = ROOT / "benchmarks" / "results" / f"simulator_{now.strftime('%Y-%m-%d')}.json"
        out.write_text(text + "\n")
        print(f"saved {out.relative_to(ROOT)}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
