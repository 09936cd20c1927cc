"""A GPU's first numbers from an empty CuPy cache: seconds until page 02's and page 08's first
measurement print, and the tuning engine's first planned shape.

    python benchmarks/bench_coldstart.py [--out benchmarks/results/coldstart_<device>_<date>.json]

Each case runs ``tiled-explainer bench`` (what the pages' "measure" buttons run: the same kernels,
sizes and checks) in a fresh process whose ``CUPY_CACHE_DIR`` is a new, empty folder, so every
kernel it launches is compiled from source. It records, from the process's start, the seconds to
its first result line (the first kernel measured and checked against numpy), to its last, and the
whole run. Cases:

* ``page02``: the tiled kernel (T = 16, 32) and the naive one at 1024^3, next to cuBLAS;
* ``page08``: the ladder at 4096^3 (tiled T = 32, kernels 10-14) next to cuBLAS;
* ``engine``: ``--kernels planned`` at 3584^3 (the planner's shortlist measured, then its choice).

Targets: page 02 and page 08 within 30 s, the engine within 60 s. Needs a GPU.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CASES = {
    "page02": (["--kernels", "tiled", "naive", "--tiles", "16", "32", "--sizes", "1024"], 30.0),
    "page08": (["--kernels", "tiled", "blocktile_1d", "blocktile_2d", "vectorized", "double_buffered", "warptile",
                "--tiles", "32", "--sizes", "4096"], 30.0),
    "engine": (["--kernels", "planned", "--sizes", "3584"], 60.0),
}
COMMON = ["--repeats", "5", "--warmup", "1"]


def run_case(name: str, args: list[str], timeout: float) -> dict:
    """One case in a fresh process with an empty CuPy cache: the seconds to its first and last
    result line and to its end (``None`` where it printed none)."""
    with tempfile.TemporaryDirectory(prefix="cupy-cache-") as cache:
        env = dict(os.environ, CUPY_CACHE_DIR=cache, PYTHONUNBUFFERED="1")
        # cut off at 2.5 x the target (the figure is "not met" either way), even while it compiles silently
        cmd = ["timeout", str(int(timeout * 2.5)), sys.executable, "-m", "explainer", "bench", *args, *COMMON]
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        first = last = None
        lines = []
        try:
            for line in proc.stdout:
                now = time.perf_counter() - start
                lines.append(f"{now:7.1f}s  {line.rstrip()}")
                print(f"[{name}] {lines[-1]}", flush=True)
                if _is_result(line):
                    first = now if first is None else first
                    last = now
            rc = proc.wait(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
        cached = sum(1 for p in Path(cache).rglob("*") if p.is_file())
    return {"case": name, "command": " ".join(["tiled-explainer", "bench", *args, *COMMON]), "rc": rc,
            "first_result_s": first, "last_result_s": last, "total_s": time.perf_counter() - start,
            "target_s": timeout, "met": first is not None and first <= timeout, "cache_files": cached,
            "output": lines}


def _is_result(line: str) -> bool:
    """A table row of ``bench``'s output: a kernel's (or cuBLAS's) measured time in ms."""
    parts = line.split()
    return len(parts) >= 3 and not line.startswith("#") and any(p.replace(".", "", 1).isdigit() and "." in p
                                                                   for p in parts[1:])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", nargs="+", choices=list(CASES), default=list(CASES))
    ap.add_argument("--out", type=Path, help="write the figures here (JSON)")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from explainer import gpu

    info = gpu.device_info()
    if not getattr(info, "ok", False):
        print(f"bench_coldstart: {info}", file=sys.stderr)
        return 1
    results = [run_case(c, *CASES[c]) for c in args.cases]
    report = {"device": info.to_dict(), "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
              "cases": results}
    for r in results:
        first = f"{r['first_result_s']:.1f} s" if r["first_result_s"] is not None else "none"
        print(f"{r['case']}: first result {first} (target {r['target_s']:.0f} s: {'met' if r['met'] else 'NOT met'}), "
              f"whole run {r['total_s']:.1f} s, rc {r['rc']}")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=1) + "\n")
    return 0 if all(r["met"] for r in results) else 3


if __name__ == "__main__":
    sys.exit(main())
