"""``tiled-explainer tune``: measure the ladder's kernels and configurations on a grid of shapes
on this GPU, and write the device's tuning table that the planner prefers.

    tiled-explainer tune [--m 256 512 ...] [--n ...] [--k ...] [--out FOLDER]

Every kernel is checked against numpy float64 and timed next to cuBLAS, as by ``bench``; the
table (device, versions, date inside) goes to ``explainer/data/tuned/`` unless ``--out`` says
otherwise. Without a GPU it prints one line and exits 1.
"""

from __future__ import annotations

import argparse
import sys

PROG = "tiled-explainer tune"
DEFAULT_M = DEFAULT_N = (256, 512, 1024, 2048, 4096)
DEFAULT_K = (256, 1024, 4096)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    for name, default in (("m", DEFAULT_M), ("n", DEFAULT_N), ("k", DEFAULT_K)):
        parser.add_argument(f"--{name}", nargs="+", type=int, default=list(default), metavar=name.upper(),
                            help=f"{name.upper()} values of the grid (default {' '.join(map(str, default))})")
    parser.add_argument("--repeats", type=int, default=10, help="timed launches per kernel and shape (default 10)")
    parser.add_argument("--out", default=None, metavar="FOLDER", help="where to write the table "
                        "(default explainer/data/tuned/)")


def run(args) -> int:
    from .. import gpu
    from ..gpu import recorded
    from ..model import ladder

    st = gpu.status()
    if not st.available:
        print(f"{PROG}: {st.reason}", file=sys.stderr)
        return 1
    bad = [v for v in args.m + args.n + args.k if v < 1]
    if bad:
        print(f"{PROG}: sizes must be at least 1, got {bad[0]}", file=sys.stderr)
        return 2
    sizes = [f"{m}x{n}x{k}" for m in args.m for n in args.n for k in args.k]
    kernels = list(ladder.BY_NAME)
    print(f"# {st.reason}: {len(kernels)} kernels x {len(sizes)} shapes", flush=True)
    done = [0]

    def progress(kind, row):
        done[0] += 1
        if kind == "error":
            print(f"  refused/failed: {row['kernel']} {row['M']}x{row['N']}x{row['K']}: {row['message']}", flush=True)

    report = gpu.benchmark(kernels=kernels, sizes=sizes, tiles=[16], repeats=args.repeats, budget_s=0.5,
                           progress=progress)
    if isinstance(report, gpu.GpuStatus):
        print(f"{PROG}: {report.reason}", file=sys.stderr)
        return 1
    data = report.to_dict()
    path = recorded.save_report(data, args.out or recorded.TUNED_DIR, command="tiled-explainer tune " + " ".join(
        [f"--m {' '.join(map(str, args.m))}", f"--n {' '.join(map(str, args.n))}",
         f"--k {' '.join(map(str, args.k))}", f"--repeats {args.repeats}"]))
    wins = {}
    for r in recorded.best_rows(data):
        wins[r["kernel"]] = wins.get(r["kernel"], 0) + 1
    print(f"wrote {path}: fastest per shape: " + ", ".join(f"{k} {n}" for k, n in sorted(wins.items(), key=lambda x: -x[1])))
    wrong = [r for r in report.results if not r.get("passed", True)]
    return 3 if (report.errors or wrong) else 0
