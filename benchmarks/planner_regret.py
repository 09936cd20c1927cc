"""How much the launch planner loses off its tuning grid (issue 13), on the CPU, from a device's
shipped tuning table alone: each tuned shape is left out in turn (with ``--triplets``, also its
siblings of the other families: the shape minus 1, 2 and 4, so that the nearest tuned
shapes lie a grid step away, as for a shape between grid points), planned from what is left, and
the chosen launch's measured time there is compared with the fastest launch measured there.

    python benchmarks/planner_regret.py                       # every shape, the H100's table
    python benchmarks/planner_regret.py --triplets --every 3  # a third of the shapes, siblings out
    python benchmarks/planner_regret.py --triplets --pad      # padded launches too (odd shapes)
    python benchmarks/planner_regret.py --triplets --shortlist  # what bench --kernels planned runs

Prints the regret (chosen / fastest - 1): geometric mean, median, 90th percentile, the count over
5%, per family, and the worst shapes. With ``--shortlist`` the launch counted is the fastest
measured of the planner's shortlist (``planner.shortlist``: what ``bench --kernels planned``
times at a shape before it runs the fastest), padded launches included. Shapes where the planner chose a launch the table did not
measure there are counted apart. Rules of the planner are changed in explainer/tuning/planner.py
and compared with this script before they ship (benchmarks/results/splitk_2026-11-23.md).
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explainer.gpu.recorded import load_recorded, load_tuned, recorded_rows  # noqa: E402
from explainer.tuning import planner  # noqa: E402
from explainer.gpu.launch import label_of  # noqa: E402


def family(s) -> str:
    aligned, whole = planner.shape_kind(*s)
    return "whole" if whole else ("aligned" if aligned else "odd")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default=None, help="the recorded device's name (default: the first recorded)")
    ap.add_argument("--every", type=int, default=1, help="plan every N-th tuned shape (default 1: all)")
    ap.add_argument("--offset", type=int, default=0, help="start at this shape (with --every)")
    ap.add_argument("--triplets", action="store_true",
                    help="leave out the shape's siblings of the other families too (a grid step to the nearest)")
    ap.add_argument("--pad", action="store_true",
                    help="plan padded launches too, and count the table's padded launches among the fastest")
    ap.add_argument("--shortlist", action="store_true",
                    help="count the fastest measured launch of the planner's shortlist (bench --kernels planned), "
                         "padded launches included")
    ap.add_argument("--worst", type=int, default=5, help="list this many of the worst shapes")
    args = ap.parse_args(argv)
    args.pad = args.pad or args.shortlist
    if args.every < 1 or args.offset < 0:
        print("planner_regret: --every must be >= 1 and --offset >= 0", file=sys.stderr)
        return 2
    data = load_recorded(device=args.device) if args.device else load_recorded()
    tuned = load_tuned(data["device"]["name"]) if data else None
    if not tuned:
        print(f"planner_regret: no tuning table for {data['device']['name'] if data else 'any device'}",
              file=sys.stderr)
        return 2
    sms = data["device"].get("sm_count", 132)
    rows = recorded_rows(data, split_k=True)
    trows = recorded_rows(tuned, split_k=True)
    at = {}
    for r in trows:
        if (r.get("median_ms") and r.get("passed", True) and (args.pad or not r.get("pad"))
                and not r["kernel"].startswith("cublas")):
            lab = label_of(r["kernel"], r.get("splits", 1), r.get("tail", 0), bool(r.get("pad")), bool(r.get("reduce")))
            at.setdefault((r["M"], r["N"], r["K"]), {})[lab] = r["median_ms"]
    shapes = sorted(at)[args.offset::args.every]

    def left_out(s):
        if args.triplets:  # the shape and anything within a 20th of a log2 step of it
            return lambda r: sum(abs(math.log2(a / b)) for a, b in zip((r["M"], r["N"], r["K"]), s)) < 0.05
        return lambda r: (r["M"], r["N"], r["K"]) == s

    regret, unmeasured, worst = {}, 0, []
    for s in shapes:
        out = left_out(s)
        here_rows, here_tuned = [r for r in rows if not out(r)], [r for r in trows if not out(r)]
        if args.shortlist:  # bench --kernels planned measures these and runs the fastest
            times = {c.label: at[s][c.label] for c in planner.shortlist(*s, here_rows, sms, here_tuned)
                     if c.label in at[s]}
            label = min(times, key=times.get) if times else None
        else:
            label = planner.plan(*s, here_rows, sms, here_tuned, pad=args.pad)[0].label
        got = at[s].get(label)
        if got is None:
            unmeasured += 1
            continue
        fastest = min(at[s], key=at[s].get)
        x = got / at[s][fastest]
        regret.setdefault(family(s), []).append(x)
        worst.append((x, s, label, fastest))
    every = [x for v in regret.values() for x in v]
    if not every:
        print("planner_regret: no shape planned", file=sys.stderr)
        return 2

    def line(name, v):
        v = sorted(v)
        geo = math.exp(sum(math.log(x) for x in v) / len(v)) - 1
        p90 = v[min(len(v) - 1, int(0.9 * len(v)))] - 1
        return (f"{name:<8} {len(v):>4} shapes: geometric mean {100 * geo:5.2f}%, median {100 * (v[len(v) // 2] - 1):5.2f}%, "
                f"90th percentile {100 * p90:5.1f}%, over 5%: {sum(x > 1.05 for x in v)}")

    print(f"# {tuned.get('source', '')}: {len(shapes)} shapes, {'siblings' if args.triplets else 'the shape'} "
          f"left out; {'fastest of the shortlist' if args.shortlist else 'chosen launch'} / fastest measured - 1")
    print(line("all", every))
    for f in ("whole", "aligned", "odd"):
        if f in regret:
            print(line(f, regret[f]))
    print(f"chosen launch not measured at the shape: {unmeasured}")
    for x, s, lab, fastest in sorted(worst, reverse=True)[:args.worst]:
        print(f"  {'x'.join(map(str, s))}: {lab} {100 * (x - 1):.1f}% slower than {fastest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
