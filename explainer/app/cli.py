"""``tiled-explainer``: terminal answers about the kernels, timings, and the app server.

Every subcommand takes ``--json`` where it prints data. Bad input exits with status 2 and
one line on stderr (never a traceback).
"""

from __future__ import annotations

import argparse
import importlib
import os
import json
import platform
import sys

from .. import __version__
from ..model.hardware import OccupancyError, arches, occupancy, tile_occupancy
from ..model import KERNELS, MAX_TILE, Launch, LaunchError

PROG = "tiled-explainer"
TRACE_ROWS = 16  # phases shown in the readable trace before it points at --json


class UsageError(Exception):
    """Bad input: reported as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse prints usage + message; we want one line
        raise UsageError(message)


def _pair(text: str) -> tuple[int, int]:
    """``"2,1"`` -> (2, 1): CUDA's (x, y) order."""
    parts = text.replace(" ", "").split(",")
    if len(parts) != 2 or not all(p.lstrip("-").isdigit() for p in parts):
        raise argparse.ArgumentTypeError(f"expected x,y (two whole numbers), got {text!r}")
    return int(parts[0]), int(parts[1])


def _size(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {v}")
    return v


def _add_launch_args(p, kernels=tuple(KERNELS), default_kernel="tiled"):
    p.add_argument("--kernel", choices=kernels, default=default_kernel)
    for dim, what in (("M", "rows of A and C"), ("N", "columns of B and C"), ("K", "columns of A, rows of B")):
        p.add_argument(f"--{dim}", type=_size, required=True, help=what)
    p.add_argument("--tile", type=_size, default=16, help=f"tile / block edge T, 1..{MAX_TILE}")
    p.add_argument("--json", action="store_true", help="machine-readable output")


def _launch(args) -> Launch:
    return Launch(args.kernel, args.M, args.N, args.K, args.tile)


def _emit(args, data: dict, text: str) -> None:
    print(json.dumps(data, indent=2) if args.json else text)


def _fmt_elem(name: str, rc) -> str:
    return "0 (padding)" if rc is None else f"{name}[{rc[0]}][{rc[1]}]"


# ---- trace ---------------------------------------------------------------------------
def cmd_trace(args) -> int:
    L = _launch(args)
    d = L.thread(args.block, args.thread).to_dict()
    (bx, by), (tx, ty) = args.block, args.thread
    lines = [
        f"{L.kernel} kernel, M={L.M} N={L.N} K={L.K}, tile {L.T}x{L.T}, grid (x={L.grid[0]}, y={L.grid[1]})",
        f"blockIdx (x={bx}, y={by}), threadIdx (x={tx}, y={ty})",
        f"  computes        C[{d['row']}][{d['col']}]"
        + ("" if d["writes_c"] else "  (outside C: this thread stores nothing)"),
        f"  linear thread   {d['linear_thread']} = {tx} + {ty}*{L.T}  ->  warp {d['warp']}, lane {d['lane']}",
        f"  barriers        {d['barriers']} per block",
    ]
    if L.is_tiled:
        lines.append(f"  {'phase':>5}  {'As[ty][tx] <-':<22} {'Bs[ty][tx] <-':<22}")
        shown = d["phases"] if len(d["phases"]) <= TRACE_ROWS else d["phases"][: TRACE_ROWS - 2]
        for ph in shown:
            lines.append(
                f"  {ph['phase']:>5}  As[{ty}][{tx}] = {_fmt_elem('A', ph['a']):<12} "
                f"Bs[{ty}][{tx}] = {_fmt_elem('B', ph['b'])}"
            )
        hidden = len(d["phases"]) - len(shown)
        if hidden:
            last = d["phases"][-1]
            lines.append(f"  ... {hidden - 1} more phases (use --json for all) ...")
            lines.append(
                f"  {last['phase']:>5}  As[{ty}][{tx}] = {_fmt_elem('A', last['a']):<12} "
                f"Bs[{ty}][{tx}] = {_fmt_elem('B', last['b'])}"
            )
    elif d["writes_c"]:
        lines.append(
            f"  reads           A[{d['row']}][0..{L.K - 1}] and B[0..{L.K - 1}][{d['col']}] from global memory"
        )
    _emit(args, d, "\n".join(lines))
    return 0


# ---- stats ---------------------------------------------------------------------------
def cmd_stats(args) -> int:
    s = _launch(args).stats()
    rows = [
        ("grid (x, y)", f"({s['grid'][0]}, {s['grid'][1]})"),
        ("threads per block", s["threads_per_block"]),
        ("threads launched", f"{s['threads']:,} ({s['ghost_threads']:,} outside C)"),
        ("phases", s["phases"]),
        ("barriers per block", s["barriers_per_block"]),
        ("global loads (A + B)", f"{s['global_loads']:,} ({s['global_loads_a']:,} + {s['global_loads_b']:,})"),
        ("padding zeros stored", f"{s['padding_loads']:,}"),
        ("global stores", f"{s['global_stores']:,}"),
        ("flops (2MNK)", f"{s['flops']:,}"),
        ("FLOP per byte (DRAM bound)", f"{s['flop_per_byte']:.4g}"),
        ("shared bytes per block", f"{s['shared_bytes_per_block']:,}"),
    ]
    head = f"{s['kernel']} kernel, M={s['M']} N={s['N']} K={s['K']}, tile {s['tile']}"
    _emit(args, s, head + "\n" + "\n".join(f"  {k:<27} {v}" for k, v in rows))
    return 0


# ---- check-kernel ----------------------------------------------------------------------
def cmd_check_kernel(args) -> int:
    """Run a student's kernel in the simulator: exit 0 right and clean, 1 anything reported."""
    from ..sim import SimError, check_kernel, kernel_tile, load_source, parse_source

    shape = (args.M, args.N, args.K)
    if any(v is not None for v in shape) and not all(v is not None for v in shape):
        raise UsageError("check-kernel: give all of --M --N --K, or none for the default launches")
    try:
        source = load_source(args.file)
        parsed = parse_source(source, args.file)
        tile = args.tile if args.tile is not None else kernel_tile(parsed)
        launches = [(args.M, args.N, args.K, tile)] if args.M is not None else None
        report = check_kernel(source, launches, tile=tile, parsed=parsed, dynamic_shared=args.dynamic_shared)
    except SimError as e:
        raise UsageError(f"{args.file}: {e}") from None
    except (RecursionError, MemoryError) as e:  # a pathological input the checks did not foresee
        raise UsageError(f"{args.file}: the simulator cannot take this file ({type(e).__name__})") from None
    if args.json:
        print(json.dumps({"file": str(args.file), **report.to_dict()}, indent=2))
        return 0 if report.passed else 1
    runs = report.launches
    print(f"{args.file}: kernel {report.kernel} (line {report.line}), "
          f"{len(runs) + len(report.skipped)} launch(es): "
          + ", ".join(r.launch.label for r in runs) + ("" if not report.skipped else
                                                       ", " + ", ".join(L.label + " (not run)" for L in report.skipped)))
    for line in report.lines():
        print(line)
    if report.passed:
        print("PASS: every launch computed C right, with no race, out-of-bounds access, barrier "
              "divergence or uninitialised read")
        return 0
    bad = sum(not r.passed for r in runs)
    n = len(report.problems)
    print(f"FAIL: {n} problem{'s' if n != 1 else ''} in {bad} of {len(runs)} launch(es) run")
    return 1


# ---- plan ----------------------------------------------------------------------------
def plan_table(M: int, N: int, K: int) -> tuple[dict, str]:
    """The ladder's rungs planned for M x N x K on the recorded device (explainer.tuning.planner)."""
    from ..gpu import recorded
    from ..tuning import planner
    from ..tuning.view import why_text

    data = recorded.load_recorded()
    if not data:
        raise UsageError("no recorded timings to calibrate the planner (tiled-explainer bench --save)")
    sms = int(data["device"]["sm_count"])
    tuned = recorded.load_tuned(device=data["device"]["name"])
    cands = planner.best_per_kernel(planner.plan(M, N, K, recorded.recorded_rows(data, split_k=True), sms,
                                                 recorded.recorded_rows(tuned, split_k=True) if tuned else ()))
    rows = [{"kernel": c.rung.name, "splits": c.splits, "tail": c.tail, "label": c.label, "block_tile": [c.rung.BM, c.rung.BN],
             "blocks": c.blocks, "tuned_ms": c.tuned_ms, "pad": c.pad, "pad_ms": c.pad_ms, "reduce": c.reduce,
             "busiest_sm_blocks": c.longest, "busy_fraction": round(c.busy_fraction, 4), "guarded": c.guarded,
             "predicted_ms": c.predicted_ms, "measured_ms": c.measured_ms, "why": why_text(c)} for c in cands]
    d = {"M": M, "N": N, "K": K, "device": data["device"]["name"], "sms": sms, "recorded": data["label"],
         "tuned": tuned["source"] if tuned else None,
         "choice": cands[0].label, "candidates": rows}
    lines = [f"ladder kernels for M={M} N={N} K={K} on {d['device']} ({sms} SMs); calibrated on {d['recorded']}",
             f"  {'kernel[@S or @RxS][+...]':<24} {'tile':>9} {'blocks':>7} {'busiest SM':>10} {'SM time used':>12} "
             f"{'predicted':>10} {'tuned':>10} {'measured':>10}"]
    for c in cands:
        meas = f"{c.measured_ms:.4f}" if c.measured_ms else "-"
        pred = f"{c.predicted_ms:.4f}" if c.predicted_ms else "-"
        tune = f"{c.tuned_ms + c.pad_ms:.4f}" if c.tuned_ms else "-"
        lines.append(f"  {c.label:<24} {c.rung.BM:>4}x{c.rung.BN:<4} {c.blocks:>7,} {c.longest:>10} "
                     f"{c.busy_fraction:>12.0%} {pred:>10} {tune:>10} {meas:>10}")
    lines.append(f"choice: {cands[0].label}: {why_text(cands[0])}")
    lines.append("(ms; predicted = blocks on the busiest SM x SM time per block, from the recorded run; "
                 "tuned = the tuning table's time at the nearest tuned shape, scaled by the model; "
                 "each kernel at its best split: @S split-K, @RxS the last R tiles split in S; "
                 "+pad: A and B first copied into rows padded to 4 floats, the copies in its times)")
    return d, "\n".join(lines)


def cmd_plan(args) -> int:
    d, text = plan_table(args.M, args.N, args.K)
    _emit(args, d, text)
    return 0


# ---- occupancy -----------------------------------------------------------------------
def cmd_occupancy(args) -> int:
    if args.tile is not None:
        if args.threads is not None or args.smem is not None:
            raise UsageError("give either --tile or --threads with --smem, not both")
        if not 1 <= args.tile <= MAX_TILE:
            raise UsageError(f"--tile must be 1..{MAX_TILE}, got {args.tile}")
        occ = tile_occupancy(args.arch, args.tile, args.regs)
    else:
        if args.threads is None:
            raise UsageError("give --tile T, or --threads N (with --smem BYTES)")
        occ = occupancy(args.arch, args.threads, args.smem or 0, args.regs)
    d = occ.to_dict()
    a = arches()[args.arch]
    limits = ", ".join(f"{k} {v}" for k, v in d["limits"].items())
    text = "\n".join(
        [
            f"{a['label']}: {d['threads_per_block']} threads and {d['shared_bytes_per_block']} shared bytes per block"
            + (f", {d['regs_per_thread']} registers per thread" if d["regs_per_thread"] else ""),
            f"  blocks per SM    {d['blocks_per_sm']}   (allowed by: {limits})",
            f"  limiter          {d['limiter']}",
            f"  active threads   {d['active_threads']} of {a['max_threads_per_sm']}",
            f"  occupancy        {d['occupancy']:.0%} ({d['active_warps']} of {a['max_warps_per_sm']} warps)",
        ]
    )
    _emit(args, d, text)
    return 0


# ---- info ----------------------------------------------------------------------------
def _version(dist: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def cmd_info(args) -> int:
    pkgs = ["numpy", "ipywidgets", "plotly", "anywidget", "voila", "jupyterlab", "cupy-cuda13x", "cupy-cuda12x", "cupy"]
    versions = {p: _version(p) for p in pkgs}
    versions = {k: v for k, v in versions.items() if v or not k.startswith("cupy")}
    d = {
        "explainer": __version__,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "packages": versions,
        "cuda": _cuda_status(),
    }
    pk = "\n".join(f"  {k:<14} {v or 'not installed'}" for k, v in versions.items())
    cuda = d["cuda"]
    dev = cuda["device"] if cuda["available"] else f"no CUDA device ({cuda['reason']})"
    text = f"tiled-explainer {__version__}, Python {d['python']} on {d['platform']}\n{pk}\n  {'CUDA':<14} {dev}"
    _emit(args, d, text)
    return 0


def _cuda_status() -> dict:
    """The CUDA device, or why there is none. Never raises."""
    try:
        gpu = importlib.import_module("explainer.gpu")
        st = gpu.status()
        return {
            "available": bool(st.available),
            "device": getattr(st, "device", None),
            "reason": getattr(st, "reason", None),
        }
    except ImportError:
        pass
    except Exception as e:  # a broken driver must not break `info`
        return {"available": False, "device": None, "reason": f"{type(e).__name__}: {e}"}
    try:
        import cupy  # noqa: F401
    except Exception:
        return {"available": False, "device": None, "reason": "cupy is not installed"}
    try:
        import cupy

        n = cupy.cuda.runtime.getDeviceCount()
        if n < 1:
            return {"available": False, "device": None, "reason": "no CUDA device"}
        name = cupy.cuda.runtime.getDeviceProperties(0)["name"]
        return {"available": True, "device": name.decode() if isinstance(name, bytes) else name, "reason": None}
    except Exception as e:
        return {"available": False, "device": None, "reason": f"{type(e).__name__}: {e}"}


# ---- parser --------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog=PROG, description="Explain and measure tiled CUDA matrix multiplication.")
    p.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    t = sub.add_parser("trace", help="what one thread of a launch does, phase by phase")
    _add_launch_args(t)
    t.add_argument("--block", type=_pair, required=True, help="blockIdx as x,y")
    t.add_argument("--thread", type=_pair, required=True, help="threadIdx as x,y")
    t.set_defaults(func=cmd_trace)

    s = sub.add_parser("stats", help="per-launch totals: loads, stores, flops, FLOP/B, shared bytes")
    _add_launch_args(s)
    s.set_defaults(func=cmd_stats)

    pl = sub.add_parser("plan", help="which ladder kernel suits a shape: blocks per SM, predicted and recorded time")
    for n in ("M", "N", "K"):
        pl.add_argument(f"--{n}", type=_size, required=True)
    pl.add_argument("--json", action="store_true")
    pl.set_defaults(func=cmd_plan)

    o = sub.add_parser("occupancy", help="resident blocks per SM and the limiting resource")
    o.add_argument("--arch", choices=sorted(arches()), required=True)
    o.add_argument("--tile", type=int, help="T: T*T threads and 2*T*T*4 bytes of shared memory")
    o.add_argument("--threads", type=_size, help="threads per block")
    o.add_argument("--smem", type=int, help="shared bytes per block")
    o.add_argument("--regs", type=_size, help="registers per thread")
    o.add_argument("--json", action="store_true")
    o.set_defaults(func=cmd_occupancy)

    ck = sub.add_parser("check-kernel", help="run a student's kernel (.cu) in the CPU simulator: wrong results, "
                        "races, out-of-bounds, barrier divergence, uninitialised reads, endless loops")
    ck.add_argument("file", help="the kernel's .cu file (the ladder's signature)")
    ck.add_argument("--tile", type=_size, help=f"block edge T (default: the kernel's own, else 16), 1..{MAX_TILE}")
    for n in ("M", "N", "K"):
        ck.add_argument(f"--{n}", type=_size, help="one launch of this shape (all three), instead of the default set")
    ck.add_argument("--dynamic-shared", metavar="FLOATS", help="floats the launch gives extern __shared__, "
                    "in M, N, K, T (default 2*T*T, two T x T windows; 2*T*K for a block's whole strips)")
    ck.add_argument("--json", action="store_true")
    ck.set_defaults(func=cmd_check_kernel)

    i = sub.add_parser("info", help="Python, package versions and the CUDA device")
    i.add_argument("--json", action="store_true")
    i.set_defaults(func=cmd_info)

    # Subcommands whose code lives beside the GPU runner and the app server.
    for name, module, help_ in (
        ("bench", "explainer.app.bench", "launch the real kernels and cuBLAS, print or save timings"),
        ("tune", "explainer.tuning.tune", "the tuning engine: measure its kernels on a grid of shapes (the planner's table)"),
        ("serve", "explainer.app.serve", "serve the notebooks as a Voila web app"),
        ("export", "explainer.app.export", "write every page as static HTML (no kernel, no network)"),
        ("hub", "explainer.app.hub", "a JupyterHub on this machine: every student their own live app"),
    ):
        try:
            mod = importlib.import_module(module)
        except ImportError:
            continue
        sp = sub.add_parser(name, help=help_)
        mod.add_arguments(sp)
        sp.set_defaults(func=mod.run)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help()
            return 2
        return int(args.func(args) or 0)
    except (UsageError, LaunchError, OccupancyError) as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `tiled-explainer ... | head` closed the pipe: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
