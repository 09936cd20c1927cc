"""``tiled-explainer tune``: measure the ladder's kernels and configurations on a grid of shapes
on this GPU, and write the device's tuning table that the planner prefers.

    tiled-explainer tune [--m 256 512 ...] [--n ...] [--k ...] [--families whole odd aligned even]
                         [--kernels NAME ...] [--missing-only] [--out FOLDER]

The grid is every M x N x K of the lists ("whole": tiles divide them), the same minus 1 in each
dimension ("odd": no tile divides them and rows are not 16-byte aligned: the guarded path with
scalar loads), minus 4 ("aligned": no tile divides them, rows aligned: 16-byte loads, guarded
edges) and minus 2 ("even": rows even but not aligned: 8-byte loads, kernel 14's pairs), so that
the planner finds a tuned shape of each kind (``planner.shape_kind``); each
warp-tiled kernel also at every split-K count and split tail the planner considers at that shape
(split-K also with a separate reduction, ``+reduce``, up to 128 slices),
and at the odd shapes every launch of kernel 14 at the padded shape as a padded launch (``+pad``;
``--padded-only``: those alone).
``--kernels`` measures only the named kernels (a configuration added to the ladder's table, say, or
one changed). The rows join the device's newest table (``recorded.merge_tables``): its rows of the
kernels, padding and shapes measured replace the table's, every other row is kept, and the command
lines are joined; ``--new-table`` writes this run's rows alone. ``--missing-only`` measures only the
launches that table lacks at each shape (after the grid gained some) and adds them to its rows.

Every kernel is checked against numpy float64 and timed next to cuBLAS, as by ``bench``; the
table (device, versions, date inside; gzipped JSON) goes to ``explainer/data/tuned/`` unless
``--out`` says otherwise (a folder, or a file: plain JSON where its name ends in ``.json``).
Without a GPU it prints one line and exits 1.
"""

from __future__ import annotations

import argparse
import sys

PROG = "tiled-explainer tune"
DEFAULT_M = DEFAULT_N = (128, 256, 512, 1024, 2048, 4096)
DEFAULT_K = (256, 1024, 4096, 8192, 16384)
#: The grid's families: how much is taken off each size of the lists.
FAMILIES = {"whole": 0, "odd": 1, "aligned": 4, "even": 2}


def launches(shape, sms: int, rows=(), kernels=None, padded_only: bool = False,
             unpadded_only: bool = False) -> list[str]:
    """What ``tune`` measures at one shape, as ``bench --kernels`` labels: every kernel (or those
    named in ``kernels``), the warp-tiled ones also at each split-K count of the tuning grid the
    planner considers there (``planner.split_choices``) and with each split tail it considers
    (``planner.tail_choices``; blocks per SM from the recorded ``rows``). Where the rows of A or B
    are not 16-byte aligned (K or N not a multiple of 4), the same launches of the padded shape
    again as padded launches (``+pad``: the copies and the kernel, as the planner would run them),
    so that the planner compares padding with none measured at one tuned shape (``padded_only``:
    those alone; ``unpadded_only``: none of them)."""
    from . import planner
    from ..gpu.launch import label_of
    from ..model.launch import padded_shape

    padded = tuple(padded_shape(*shape))
    warp = [r.name for r in planner.BY_NAME.values() if r.splits_k and (kernels is None or r.name in kernels)]
    out = ([lab + "+pad" for lab in launches(padded, sms, rows, warp)]  # kernel 14's: only it takes +pad
           if padded != tuple(shape) and warp and not unpadded_only else [])
    plain = []
    for r in planner.BY_NAME.values():
        if kernels is not None and r.name not in kernels:
            continue
        res = planner.residency(r, rows)
        plain += [label_of(r.name, S) for S in planner.split_choices(r, *shape, sms)]
        plain += [label_of(r.name, S, R) for R, S in planner.tail_choices(r, *shape, sms, res)]
        # the tuning grid's split counts and every one that fills the SMs in one round, below MAX_SPLITS
        # too: at 510x254x16382 the grid's S = 24 of warptile_128x48_t64 (24 tiles, 4 an SM) runs 2
        # rounds, and a shape scaled from it was estimated 50% high (450x288x59034: S = 22)
        fills = planner.filling_splits(r, shape[0], shape[1], sms, res, K=shape[2], above=1)
        grid = planner.reduce_splits(r, shape[0], shape[1], sms, res, planner.TUNE_REDUCE_SPLITS + fills, K=shape[2])
        plain += [label_of(r.name, S, reduce=True) for S in planner.split_choices(r, *shape, sms, grid) if S > 1]
    return out if padded_only else plain + out


def add_arguments(parser: argparse.ArgumentParser) -> None:
    for name, default in (("m", DEFAULT_M), ("n", DEFAULT_N), ("k", DEFAULT_K)):
        parser.add_argument(f"--{name}", nargs="+", type=int, default=list(default), metavar=name.upper(),
                            help=f"{name.upper()} values of the grid (default {' '.join(map(str, default))})")
    parser.add_argument("--families", nargs="+", choices=FAMILIES, default=list(FAMILIES),
                        help="which grids: whole (the lists), odd (minus 1: unaligned rows), aligned (minus 4: "
                             "aligned rows, no tile divides), even (minus 2: rows even, copied by pairs); "
                             "default all")
    parser.add_argument("--no-odd", dest="odd", action="store_false",
                        help="leave out the odd grid (as --families without odd)")
    parser.add_argument("--kernels", nargs="+", default=None, metavar="NAME",
                        help="measure only these ladder kernels and configurations (default all)")
    parser.add_argument("--padded-only", action="store_true",
                        help="measure only the padded launches (+pad) of the unaligned shapes (after a change to "
                             "how a padded launch copies; the rows join the table in place of its padded rows)")
    parser.add_argument("--unpadded-only", action="store_true",
                        help="leave out the padded launches (after a change to the element copies of unaligned "
                             "rows; the table keeps its padded rows)")
    parser.add_argument("--missing-only", dest="missing", action="store_true",
                        help="measure only the launches the device's newest table lacks at each shape (after the "
                             "grid gained launches, such as each kernel's one-round split count); the table keeps its "
                             "rows and this run's join them launch by launch")
    parser.add_argument("--repeats", type=int, default=10, help="timed launches per kernel and shape (default 10)")
    parser.add_argument("--out", default=None, metavar="FOLDER", help="where to write the table "
                        "(default explainer/data/tuned/)")
    parser.add_argument("--new-table", dest="merge", action="store_false",
                        help="write this run's rows alone (default: joined into the device's newest table, "
                             "in place of its rows of the same kernels, padding and shapes)")


def missing(per_shape: dict, table: dict | None) -> dict:
    """``per_shape`` (shape -> the launches ``tune`` makes there) less the launches ``table`` (a
    tuning table) measured at that shape, as ``bench --kernels`` labels them; shapes left with
    none are dropped. Without a table, all of them."""
    from ..gpu.launch import row_label as label

    have = {(label(r), r["M"], r["N"], r["K"]) for r in (table or {}).get("results", [])}
    out = {s: [lab for lab in v if (lab, *s) not in have] for s, v in per_shape.items()}
    return {s: v for s, v in out.items() if v}


def grid_shapes(ms, ns, ks, families=tuple(FAMILIES)) -> list[tuple[int, int, int]]:
    """Every M x N x K of the lists, for each family less its offset (:data:`FAMILIES`), in that
    order, without repeats; sizes that would fall below 1 are left out."""
    grid = [(m, n, k) for m in ms for n in ns for k in ks]
    return list(dict.fromkeys((m - FAMILIES[f], n - FAMILIES[f], k - FAMILIES[f]) for f in families
                              for m, n, k in grid if min(m, n, k) > FAMILIES[f]))


def run(args) -> int:
    from .. import gpu
    from ..gpu import recorded
    from . import planner
    from ..gpu.launch import row_label as label

    unknown = [k for k in (args.kernels or ()) if k not in planner.BY_NAME]
    if unknown:
        print(f"{PROG}: unknown kernel {unknown[0]!r}; tune measures the ladder's: {', '.join(planner.BY_NAME)}",
              file=sys.stderr)
        return 2
    if args.padded_only and args.unpadded_only:
        print(f"{PROG}: --padded-only and --unpadded-only leave nothing to measure; give one", file=sys.stderr)
        return 2
    st = gpu.status()
    if not st.available:
        print(f"{PROG}: {st.reason}", file=sys.stderr)
        return 1
    bad = [v for v in args.m + args.n + args.k if v < 1]
    if bad:
        print(f"{PROG}: sizes must be at least 1, got {bad[0]}", file=sys.stderr)
        return 2
    families = [f for f in FAMILIES if f in args.families and (args.odd or f != "odd")]
    shapes = grid_shapes(args.m, args.n, args.k, families)
    dev = gpu.device_info()
    sms = dev.sm_count if isinstance(dev, gpu.DeviceInfo) else 132
    own = recorded.load_recorded(device=dev.name) if isinstance(dev, gpu.DeviceInfo) else None
    rows = recorded.recorded_rows(own or {}, split_k=True)  # this device's blocks per SM, if recorded
    per_shape = {s: launches(s, sms, rows, args.kernels, args.padded_only, args.unpadded_only) for s in shapes}
    per_shape = {s: v for s, v in per_shape.items() if v}
    newest = recorded.load_tuned(dev.name) if isinstance(dev, gpu.DeviceInfo) and (args.merge or args.missing) else None
    if args.missing:
        per_shape = missing(per_shape, newest)
        if not per_shape:
            print(f"# {newest['source'] if newest else 'no table'}: every launch of the grid is measured already")
            return 0
    shapes = list(per_shape)
    total = sum(len(v) for v in per_shape.values())
    print(f"# {st.reason}: {len(planner.BY_NAME)} kernels (with their split-K counts and split tails: {total} launches) x "
          f"{len(shapes)} shapes", flush=True)

    def progress(kind, row):
        if kind == "error":
            print(f"  refused/failed: {row['kernel']} {row['M']}x{row['N']}x{row['K']}: {row['message']}", flush=True)

    command = "tiled-explainer tune " + " ".join(
        [f"--m {' '.join(map(str, args.m))}", f"--n {' '.join(map(str, args.n))}",
         f"--k {' '.join(map(str, args.k))}", f"--repeats {args.repeats}", f"--families {' '.join(families)}"]
        + ([f"--kernels {' '.join(args.kernels)}"] if args.kernels else [])
        + (["--padded-only"] if args.padded_only else []) + (["--unpadded-only"] if args.unpadded_only else [])
        + (["--missing-only"] if args.missing else []))
    base = newest if args.merge else None
    if base:
        print(f"# joined into {base['source']} ({len(base.get('results', []))} rows): " + (
              "this run's launches added to its rows" if args.missing else
              "its rows of the kernels, padding and shapes measured here are replaced") +
              " (--new-table: this run's rows alone)", flush=True)

    def save(report, done):
        table = recorded.compact(report.to_dict())
        table["command"] = command + done
        if base:
            table = recorded.merge_tables(base, table, by_launch=args.missing)
        return recorded.save_report(table, args.out or recorded.TUNED_DIR, indent=None, command=table.pop("command"),
                                    suffix=recorded.TUNED_SUFFIX)

    report = path = None
    for i, (s, kernels) in enumerate(per_shape.items()):
        part = gpu.benchmark(kernels=kernels, sizes=["x".join(map(str, s))], tiles=[16], repeats=args.repeats,
                             budget_s=0.5, progress=progress)
        if isinstance(part, gpu.GpuStatus):
            print(f"{PROG}: {part.reason}", file=sys.stderr)
            return 1
        report = part if report is None else report.extend(part)
        if (i + 1) % 10 == 0 or i + 1 == len(shapes):
            # written as it goes: a run cut short still leaves the table of the shapes it measured
            # (the command line inside says how many of the grid's shapes it holds)
            done = "" if i + 1 == len(shapes) else f" (cut short: {i + 1} of {len(shapes)} shapes)"
            path = save(report, done)
            print(f"  {i + 1} of {len(shapes)} shapes measured", flush=True)
    data = report.to_dict()
    wins = {}
    for r in recorded.best_rows(data):
        wins[label(r)] = wins.get(label(r), 0) + 1
    print(f"wrote {path}: fastest per shape: " + ", ".join(f"{k} {n}" for k, n in sorted(wins.items(), key=lambda x: -x[1])))
    wrong = [r for r in report.results if not r.get("passed", True)]
    return 3 if (report.errors or wrong) else 0
