"""``tiled-explainer bench``: launch the real kernels and cuBLAS, print a table, save timings.

    tiled-explainer bench [--kernels ...] [--sizes ...] [--tiles ...] [--save [PATH]] [--json]

``--kernels planned`` runs, per size, the planner's choice: the fastest launch of its shortlist
(explainer.tuning.planner.shortlist), each measured at that size first (``--plan-only``: its
choice from the tables, unmeasured).

Without a GPU it prints one line to stderr and exits 1. ``--save`` writes a recorded-timings
file (device, versions, date, every figure with its spread) into ``explainer/data/recorded/``;
:func:`load_recorded` reads the newest one back, for pages on machines without a GPU.

Exit status: 0 all measured and correct; 1 no GPU or nothing measured; 3 something was refused,
failed, or computed a wrong result (the rest is still printed and saved).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import NamedTuple

from ..gpu import KERNEL_NAMES
from ..gpu.recorded import OVERHEAD_NOTE, best_rows, launch_bound, load_recorded, save_report

PROG = "tiled-explainer bench"
#: ``--kernels planned``: per size, the ladder kernel explainer.tuning.planner chooses.
PLANNED = "planned"
DEFAULT_SIZES = ("512", "1024", "2048", "4096")
DEFAULT_TILES = (8, 16, 32)


# --------------------------------------------------------------------------------------
# The command
# --------------------------------------------------------------------------------------
def _kernel_arg(value: str) -> str:
    """A kernel name, ``name@S`` (a warp-tiled kernel with split-K, S slices; ``+reduce``: the
    slices added by a separate kernel), ``name@RxS`` (its last R tiles split in S), any of them
    with ``+pad`` (rows padded to 4 floats first), or ``planned``."""
    if value == PLANNED:
        return value
    from ..gpu.launch import parse_launch

    try:
        parse_launch(value)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--kernels", nargs="+", type=_kernel_arg, metavar="KERNEL",
                        help=f"kernels to run (default: all of {', '.join(KERNEL_NAMES)}); NAME@S: a "
                             f"warp-tiled kernel with K split in S (split-K; +reduce after it: the slices added by a "
                             f"second kernel over every SM); NAME@RxS: only its last R tiles "
                             f"of C split in S (split tail); any of them +pad (kernels 10-14): A and B first "
                             f"copied into rows padded to 4 floats; "
                             f"{PLANNED!r}: per size, the ladder kernel the planner chooses (the fastest "
                             f"of its shortlist, measured at that size first)")
    parser.add_argument("--sizes", nargs="+", default=list(DEFAULT_SIZES), metavar="SIZE",
                        help="N for M=N=K, or MxNxK (default: 512 1024 2048 4096)")
    parser.add_argument("--tiles", nargs="+", type=int, default=list(DEFAULT_TILES),
                        metavar="T", help="block / tile edges (default: 8 16 32)")
    parser.add_argument("--repeats", type=int, default=20,
                        help="timed launches per configuration, at most (default 20)")
    parser.add_argument("--warmup", type=int, default=2, help="untimed launches first (default 2)")
    parser.add_argument("--budget", type=float, default=2.0, metavar="SECONDS",
                        help="time budget per configuration: fewer repeats (at least 3) when "
                             "one launch is slow (default 2.0)")
    parser.add_argument("--no-flush-l2", dest="flush_l2", action="store_false",
                        help="do not flush L2 between repeats")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    parser.add_argument("--save", nargs="?", const="", default=None, metavar="PATH",
                        help="write the recorded-timings JSON (default folder: "
                             "explainer/data/recorded/)")
    parser.add_argument("--plan-only", dest="measure", action="store_false",
                        help=f"with --kernels {PLANNED}: run the planner's choice from its tables, without "
                             f"first measuring its shortlist at each size")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")


def _fmt_size(r: dict) -> str:
    return f"{r['M']}x{r['N']}x{r['K']}"


HEADER = (f"{'kernel':<20} {'size':>15} {'tile':>4} {'ms':>10} {'GFLOP/s':>9} {'% cuBLAS':>8} "
          f"{'rel.err':>8} {'CV':>6} {'min..max ms':>19} {'n':>3}")


def label(r: dict) -> str:
    """A row's kernel as ``--kernels`` takes it: ``name``, ``name@S`` for split-K, ``name@RxS`` for
    the split tail, ``+pad`` for rows padded first."""
    from ..gpu.launch import row_label

    return row_label(r)


#: Under the table when it has tensor-core rows.
TF32_NOTE = ("[TF32]: tensor cores, inputs rounded to 10 mantissa bits; their % is of cuBLAS in TF32 "
             "(the cublas_tf32 row, same inputs, same run), not of FP32 cuBLAS")


def format_row(r: dict) -> str:
    tile = "-" if r.get("tile") is None else str(r["tile"])
    pct = "" if r.get("pct_cublas") is None else f"{r['pct_cublas']:.1f}"
    if r["kernel"] in ("cublas", "cublas_tf32"):
        pct = "100.0"
    overhead = launch_bound(r["median_ms"] if r["kernel"] in ("cublas", "cublas_tf32") else r.get("cublas_ms"))
    if overhead and pct:
        pct += "*"  # see OVERHEAD_NOTE (printed under the table)
    err = r.get("rel_error")
    err_s = "-" if err is None else f"{err:.1e}"
    if r.get("all_written") is False:
        err_s = "UNWRITTEN"
    elif r.get("passed") is False:
        err_s += "!"
    spread = f"{r['min_ms']:.3f}..{r['max_ms']:.3f}"
    name = label(r) + (" [TF32]" if r.get("math", "fp32") == "tf32" else "")
    return (f"{name:<20} {_fmt_size(r):>15} {tile:>4} {r['median_ms']:>10.4f} "
            f"{r['gflops']:>9.1f} {pct:>8} {err_s:>8} {100 * r['cv']:>5.1f}% {spread:>19} "
            f"{r['repeats']:>3}" + (f"  * {OVERHEAD_NOTE}" if overhead and pct else ""))


def format_error(e: dict) -> str:
    tile = "" if e.get("tile") is None else f" tile {e['tile']}"
    return f"{e['kernel']} {_fmt_size(e)}{tile}: {e['message']}"


def format_best(r: dict) -> str:
    tile = f" T={r['tile']}" if r.get("tile") is not None else ""
    note = f"; {OVERHEAD_NOTE}, the percentage says little" if launch_bound(r["cublas_ms"]) else ""
    return (f"best at {_fmt_size(r)}: {label(r)}{tile} {r['median_ms']:.3f} ms, "
            f"{r['gflops'] / 1e3:.2f} TFLOP/s = {r['pct_cublas']:.1f}% of cuBLAS "
            f"({r['cublas_ms']:.3f} ms, same inputs, same run{note})")


class Plan(NamedTuple):
    """One size's planned launch, as data: the launch run (``label``, its planner candidate
    ``chosen``), the planner's own first choice (``choice``) and its shortlist as measured there
    (``measured``: ``{label: ms, or None where it failed}`` in the list's order; empty where nothing
    was measured), which ``--json`` and ``--save`` keep. The words are written from these by
    :func:`explainer.tuning.view.plan_text`."""

    label: str
    chosen: object  # explainer.tuning.planner.Candidate
    choice: str
    measured: dict

    @property
    def why(self) -> str:
        from ..tuning.view import plan_text

        return plan_text(self)


def planned_kernels(sizes, data: dict, sms: int, measure=None) -> dict:
    """Per size (as given), the planner's choice among the ladder kernels, from the recorded
    timings ``data`` (explainer.tuning.planner): ``{size: Plan}``.

    With ``measure`` (``measure(size, labels) -> {label: ms or None}``, :func:`explainer.gpu.time_launches`
    on a GPU) the planner's shortlist at each size (``planner.shortlist``: its choice and the
    launches it estimates close to it) is measured there and the fastest is chosen. Where nothing
    on the list could be measured, the planner's choice stands."""
    from ..gpu.recorded import load_tuned, recorded_rows
    from ..gpu.sweep import parse_size
    from ..tuning import planner

    tuned = load_tuned(device=data["device"]["name"])
    rows, tuned_rows = recorded_rows(data, split_k=True), (recorded_rows(tuned, split_k=True) if tuned else ())
    out = {}
    for size in sizes:
        shape = parse_size(size)
        if measure is None:
            best = planner.plan(*shape, rows, sms, tuned_rows)[0]
            out[size] = Plan(best.label, best, best.label, {})
            continue
        listed = planner.shortlist(*shape, rows, sms, tuned_rows)
        times = measure(size, [c.label for c in listed]) or {}
        measured = {c.label: times.get(c.label) for c in listed}
        timed = sorted((t, i) for i, c in enumerate(listed) if (t := times.get(c.label)))
        chosen = listed[timed[0][1]] if timed else listed[0]
        out[size] = Plan(chosen.label, chosen, listed[0].label, measured)
    return out


def shortlist_line(kind: str, row: dict) -> str:
    """One line of ``--kernels planned``'s shortlist run, for each kind of progress
    :func:`explainer.gpu.time_launches` reports: a status (compiling), an error, a time."""
    if kind == "error":
        return f"#   {row['kernel']}: {row['message'].splitlines()[0]}"
    if kind == "status":
        return f"#   {row['message']}"
    return f"#   {row['label']}: {row['median_ms']:.4f} ms"


def run(args) -> int:
    from .. import gpu

    st = gpu.status()
    if not st.available:
        rec = load_recorded()
        hint = (f"; recorded timings: {rec['label']} (explainer.gpu.recorded.load_recorded())"
                if rec else "")
        print(f"{PROG}: {st.reason}{hint}", file=sys.stderr)
        return 1

    as_json = bool(getattr(args, "json", False))
    if not as_json:
        print(f"# {st.reason}", flush=True)
        print(HEADER, flush=True)

    def progress(kind, row):
        if as_json:
            return
        if kind == "status":
            print(f"# {row['message']}", flush=True)
        elif kind == "error":
            print(f"  refused/failed: {format_error(row)}", flush=True)
        else:
            print(format_row(row), flush=True)

    def shortlist_progress(kind, row):
        print(shortlist_line(kind, row), flush=True)

    common = dict(tiles=args.tiles, repeats=args.repeats, warmup=args.warmup, budget_s=args.budget,
                  flush_l2=args.flush_l2, seed=args.seed, progress=progress)
    plans = None
    if args.kernels and PLANNED in args.kernels:
        # The planner picks per size, calibrated on this device's recorded timings (else the newest).
        rec = load_recorded(device=st.device) or load_recorded()
        dev = gpu.device_info()
        if rec is None or not isinstance(dev, gpu.DeviceInfo):
            print(f"{PROG}: --kernels {PLANNED} needs recorded timings and the device's SM count", file=sys.stderr)
            return 2
        measure = None
        if getattr(args, "measure", True):
            def measure(size, labels):
                if not as_json:
                    print(f"# {size}: measuring the planner's shortlist ({len(labels)} launches: "
                          f"{' '.join(labels)})", flush=True)
                got = gpu.time_launches(labels, size, seed=args.seed, flush_l2=args.flush_l2,
                                        progress=None if as_json else shortlist_progress)
                return got if isinstance(got, dict) else {}
        try:
            plans = planned_kernels(args.sizes, rec, dev.sm_count, measure)
        except ValueError as e:
            print(f"{PROG}: {e}", file=sys.stderr)
            return 2
        others = [k for k in args.kernels if k != PLANNED]
        report = None
        for size, plan in plans.items():
            name = plan.label
            if not as_json:
                print(f"# planned for {size}: {name}: {plan.why} (calibrated on {rec['label']})", flush=True)
            part = gpu.benchmark(kernels=list(dict.fromkeys(others + [name])), sizes=[size], **common)
            if isinstance(part, gpu.GpuStatus):
                print(f"{PROG}: {part.reason}", file=sys.stderr)
                return 1
            report = part if report is None else report.extend(part)
    else:
        report = gpu.benchmark(kernels=args.kernels, sizes=args.sizes, **common)
    if isinstance(report, gpu.GpuStatus):
        print(f"{PROG}: {report.reason}", file=sys.stderr)
        return 1

    data = report.to_dict()
    if plans is not None:
        data["plans"] = {str(size): {"label": p.label, "choice": p.choice, "measured": p.measured, "why": p.why}
                         for size, p in plans.items()}
    if args.save is not None:
        command = "tiled-explainer bench " + " ".join(
            [f"--kernels {' '.join(args.kernels)}" if args.kernels else "",
             f"--sizes {' '.join(map(str, args.sizes))}",
             f"--tiles {' '.join(map(str, args.tiles))}",
             f"--repeats {args.repeats} --warmup {args.warmup} --budget {args.budget}",
             "" if args.flush_l2 else "--no-flush-l2",
             "" if getattr(args, "measure", True) else "--plan-only", "--save"]).replace("  ", " ").strip()
        path = save_report(data, args.save or None, command=command)
        print(f"saved {path}", file=sys.stderr if as_json else sys.stdout, flush=True)
    if as_json:
        print(json.dumps(data, indent=1))
    else:
        if any(r.get("math", "fp32") != "fp32" for r in data.get("results", [])):
            print(TF32_NOTE, flush=True)
        for r in best_rows(data):
            print(format_best(r), flush=True)
    for e in report.errors:
        print(f"{PROG}: {format_error(e)}", file=sys.stderr)
    if not report.results and not report.cublas:
        return 1
    wrong = [r for r in report.results if not r.get("passed", True)]
    for r in wrong:
        tile = "" if r.get("tile") is None else f" tile {r['tile']}"
        print(f"{PROG}: WRONG RESULT {label(r)} {_fmt_size(r)}{tile}: "
              f"rel. error {r['rel_error']:.2e}, all written: {r['all_written']}",
              file=sys.stderr)
    return 3 if (report.errors or wrong) else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
