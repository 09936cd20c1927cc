"""Benchmark: many kernels, sizes and tiles in one run, each checked against numpy and timed
next to cuBLAS on the same inputs (``tiled-explainer bench`` saves it as a recorded file)."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone

from .recorded import kernel_fingerprint
from .verify import _Problem, _check_on, passes
from .launch import DEFAULT_SIZES, DEFAULT_TILES, KERNELS, KERNEL_NAMES, _whole, launch_config, parse_launch
from .runtime import DeviceInfo, GpuStatus, _Runtime, _classify, _kernel_info, _public, device_info
from .timing import (DEFAULT_BUDGET_S, DEFAULT_REPEATS, DEFAULT_WARMUP, HOLD_US, IDLE_S, ROUNDS, SPIN_UP_S,
                     _cublas_check, _joined, _round_order, _time_cublas_on, _time_kernel_on)

# --------------------------------------------------------------------------------------
# Benchmark: many kernels, sizes and tiles in one run
# --------------------------------------------------------------------------------------
@dataclass
class BenchReport:
    """What :func:`benchmark` measured, and what it could not (``errors``)."""

    device: dict
    date: str
    settings: dict
    cublas: list = field(default_factory=list)  # Timing.to_dict() rows
    cublas_tf32: list = field(default_factory=list)  # cuBLAS in TF32, per size, when a tensor-core kernel ran
    results: list = field(default_factory=list)  # one dict per kernel x size x tile
    errors: list = field(default_factory=list)  # {"kernel", "M", "N", "K", "tile", "kind", "message"}
    kernels: dict | None = None  # the kernel sources measured (recorded.kernel_fingerprint); None: mixed

    ok = True

    def extend(self, other: "BenchReport") -> "BenchReport":
        """Add another run's rows (one report for several benchmark calls)."""
        self.cublas += other.cublas
        self.cublas_tf32 += other.cublas_tf32
        self.results += other.results
        self.errors += other.errors
        if self.kernels != other.kernels:
            self.kernels = None
        return self

    def to_dict(self) -> dict:
        return {"device": self.device, "date": self.date, "settings": self.settings,
                "cublas": self.cublas, "cublas_tf32": self.cublas_tf32, "results": self.results,
                "errors": self.errors, "kernels": self.kernels}


def parse_size(size) -> tuple[int, int, int]:
    """``1024`` -> (1024, 1024, 1024); ``'777x1000x333'`` -> (777, 1000, 333)."""
    if isinstance(size, (tuple, list)):
        M, N, K = size
    else:
        s = str(size).lower()
        parts = s.split("x")
        if len(parts) == 1:
            M = N = K = int(parts[0])
        elif len(parts) == 3:
            M, N, K = (int(p) for p in parts)
        else:
            raise ValueError(f"size {size!r}: give N (square) or MxNxK")
    return _whole("M", M), _whole("N", N), _whole("K", K)


@_public
def benchmark(rt: _Runtime, kernels=None, sizes=DEFAULT_SIZES, tiles=DEFAULT_TILES, *,
              repeats: int = DEFAULT_REPEATS, warmup: int = DEFAULT_WARMUP,
              budget_s: float = DEFAULT_BUDGET_S, flush_l2: bool = True, seed: int = 0,
              progress=None) -> BenchReport:
    """Check and time every kernel x size x tile, with cuBLAS per size, in one run: per size every
    launch is checked first, then cuBLAS and the launches are timed in :data:`ROUNDS` interleaved
    rounds (order reversed every other round), ``repeats`` shared among the rounds.

    A refused or failed configuration goes to ``report.errors`` and the run goes on; after a
    launch error (the CUDA context may be broken) it stops, keeping what it measured.
    ``progress(kind, row)`` is called after each row (kind: "cublas", "result" or "error"), and
    with kind "status" (row: M, N, K and a one-line "message") after each check and before a
    size's timings.
    """
    kernels = list(kernels or KERNEL_NAMES)
    for k in kernels:
        parse_launch(k)  # "name", "name@S" (split-K, "+reduce"), "name@RxS" (split tail), each with "+pad"
    shapes = [parse_size(s) for s in sizes]
    dev = device_info()
    report = BenchReport(
        device=dev.to_dict() if isinstance(dev, DeviceInfo) else {"name": rt.name},
        date=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        settings={"repeats": repeats, "warmup": warmup, "budget_s": budget_s,
                  "flush_l2": flush_l2, "seed": seed, "inputs": "uniform [-1, 1) float32",
                  "reference": "numpy float64", "timer": "CUDA events, one launch per event pair, the stream held "
                  f"{HOLD_US:g} us before each start (host time out of the span)",
                  "cublas": "cupy.matmul float32", "tf32": rt.tf32_off(),
                  "spin_up_s": SPIN_UP_S, "spin_up_after_idle_s": IDLE_S,
                  "order": f"per size every launch checked first, then cuBLAS and the launches timed in {ROUNDS} "
                           "interleaved rounds (the order reversed every other round), the repeats shared among them"},
        kernels=kernel_fingerprint(),
    )
    note = progress or (lambda kind, row: None)

    def fail(kernel, shape, tile, st: GpuStatus):
        row = {"kernel": kernel, "M": shape[0], "N": shape[1], "K": shape[2], "tile": tile,
               "kind": st.kind, "message": st.reason}
        report.errors.append(row)
        note("error", row)

    for shape in shapes:
        M, N, K = shape
        prob = None
        try:
            rt.check_fits(launch_config("naive", M, N, K, 1))
            prob = _Problem(rt, M, N, K, seed)
            refs = {"cublas": (False, _cublas_check(rt, prob))}
        except Exception as e:
            st = _classify(rt, e)
            fail("cublas", shape, None, st)
            if prob is not None:
                prob.release(rt)
            if st.kind == "launch_error":
                return report
            continue
        if any(KERNELS[parse_launch(k)[0]].math == "tf32" for k in kernels):
            try:  # the tensor-core kernels' reference: cuBLAS in TF32, same inputs, same run
                refs["cublas_tf32"] = (True, _cublas_check(rt, prob, tf32=True))
            except Exception as e:
                fail("cublas_tf32", shape, None, _classify(rt, e))
        _prepare(rt, [(label, tile) for label in kernels
                      for tile in (tiles if KERNELS[parse_launch(label)[0]].takes_tile else (None,))], M, N, K, note)
        # Every launch is checked before any is timed: a check's host work leaves the GPU idle,
        # and the spin-up after it (timing._ensure_warm) would fall on the launch timed next.
        launches = {}  # (label, tile) -> (cfg, check, kernel info)
        for label in kernels:
            kernel, splits, tail, pad, reduce = parse_launch(label)
            for tile in (tiles if KERNELS[kernel].takes_tile else (None,)):
                try:
                    cfg = launch_config(kernel, M, N, K, tile, splits, tail, pad, reduce)
                    rt.check_fits(cfg)
                    launches[(label, tile)] = (cfg, _check_on(rt, cfg, prob), _kernel_info(rt, cfg))
                    note("status", {"M": M, "N": N, "K": K, "message": f"{M}x{N}x{K}: {label}"
                                    + (f" (tile {tile})" if tile is not None else "") + " checked against numpy"})
                except Exception as e:
                    st = _classify(rt, e)
                    fail(label, shape, tile, st)
                    if st.kind == "launch_error":
                        prob.release(rt)
                        return report
        # Then cuBLAS and the launches are timed in ROUNDS interleaved rounds, the order reversed
        # every other round, each round a share of the repeats: whatever the GPU's clock and power
        # did before a timing falls on cuBLAS and on the kernels alike. (Timed one after another,
        # cuBLAS first, each kernel came right after the 1 s cuBLAS spin-up that followed its own
        # check; at 5995x7579x181 the H100 then held its power cap and the kernels timed 13-17%
        # slower than in the planner's interleaved rounds, cuBLAS not.)
        note("status", {"M": M, "N": N, "K": K, "message": f"{M}x{N}x{K}: timing cuBLAS and {len(launches)} launch"
                        f"{'es' if len(launches) != 1 else ''} in {ROUNDS} interleaved rounds"})
        timings, broken = {}, False
        for key, per in _round_order(list(refs) + list(launches), repeats):
            if key not in refs and key not in launches:
                continue  # failed in an earlier round
            try:
                if key in refs:
                    tf32, checked = refs[key]
                    t = _time_cublas_on(rt, prob, repeats=per, warmup=warmup, budget_s=budget_s / ROUNDS,
                                        flush_l2=flush_l2, tf32=tf32, checked=checked)
                else:
                    t = _time_kernel_on(rt, launches[key][0], prob, repeats=per, warmup=warmup,
                                        budget_s=budget_s / ROUNDS, flush_l2=flush_l2)
            except Exception as e:
                st = _classify(rt, e)
                name, tile = (key, None) if key in refs else key  # cuBLAS's, or a launch's (label, tile)
                for d in (refs, launches, timings):
                    d.pop(key, None)  # none of its rounds count
                fail(name, shape, tile, st)
                if st.kind == "launch_error":
                    broken = True
                    break
                continue
            timings.setdefault(key, []).append(t)
        cub = _joined(timings["cublas"]) if "cublas" in timings else None
        cub_tf32 = _joined(timings["cublas_tf32"]) if "cublas_tf32" in timings else None
        if cub is not None:
            report.cublas.append(cub.to_dict())
            note("cublas", report.cublas[-1])
        if cub_tf32 is not None:
            report.cublas_tf32.append(cub_tf32.to_dict())
            note("cublas", report.cublas_tf32[-1])
        for key, (cfg, chk, info) in launches.items():
            if key not in timings:
                continue
            kernel = cfg.kernel
            tm = replace(_joined(timings[key]), cublas_ms=cub.median_ms if cub is not None else None)
            row = tm.to_dict()
            row.update(rel_error=chk["rel_error"], all_written=chk["all_written"],
                       passed=passes(chk, kernel),
                       math=KERNELS[kernel].math,
                       registers=info.registers,
                       shared_bytes=info.static_shared_bytes + info.dynamic_shared_bytes,
                       blocks_per_sm=info.blocks_per_sm, occupancy=info.occupancy)
            if row["math"] != "fp32":  # compared with cuBLAS in the same math mode, or not at all
                ref = cub_tf32.median_ms if cub_tf32 is not None else None
                row.update(cublas_ms=ref, pct_cublas=100.0 * ref / row["median_ms"] if ref else None,
                           reference="cublas_tf32")
            report.results.append(row)
            note("result", row)
        prob.release(rt)
        if broken:
            return report
    return report


# --------------------------------------------------------------------------------------
# A shortlist of launches at one shape (bench --kernels planned: the planner's best few)
# --------------------------------------------------------------------------------------
def _prepare(rt: _Runtime, launches, M: int, N: int, K: int, note) -> None:
    """Compile, several at once, the instantiations the ``(label, tile)`` launches of one shape
    run (``_Runtime.prepare``); says so first where any is not built yet. A launch that cannot be
    made is skipped here: its check reports why."""
    cfgs = []
    for label, tile in launches:
        try:
            kernel, splits, tail, pad, reduce = parse_launch(label)
            cfgs.append(launch_config(kernel, M, N, K, tile, splits, tail, pad, reduce))
        except ValueError:
            continue
    todo = {(c.file, c.on_device(rt.sm_count)) for c in cfgs if not rt.built(c)}
    if todo:
        note("status", {"M": M, "N": N, "K": K, "message": f"{M}x{N}x{K}: compiling {len(todo)} kernel "
                        f"instantiation{'s' if len(todo) != 1 else ''} (once per process; CuPy caches them on disk)"})
    rt.prepare(cfgs)


@_public
def time_launches(rt: _Runtime, labels, size, *, rounds: int = 2, repeats: int = 10, warmup: int = 1,
                  budget_s: float = 0.5, flush_l2: bool = True, seed: int = 0, progress=None) -> dict:
    """Each launch of ``labels`` (``bench --kernels`` labels) at one shape, on one problem: checked
    against numpy float64 once, then timed in ``rounds`` interleaved rounds (the order reversed
    every other round, so that a drift of the clock falls on all alike), median of ``repeats`` per
    round with L2 flushed. Returns ``{label: the median of the rounds' medians, in ms}``; a launch
    refused, failed or wrong maps to ``None``, and ``progress("error", row)`` says why
    (``progress("result", {"label", "median_ms"})`` for the others; ``progress("status", {"message"})``
    before compiling what is not built yet)."""
    M, N, K = parse_size(size)
    note = progress or (lambda kind, row: None)
    labels = list(dict.fromkeys(labels))
    for label in labels:
        parse_launch(label)
    out, kept = {label: None for label in labels}, {}
    _prepare(rt, [(label, 16) for label in labels], M, N, K, note)
    prob = _Problem(rt, M, N, K, seed)
    try:
        for label in labels:
            kernel, splits, tail, pad, reduce = parse_launch(label)
            row = {"kernel": label, "M": M, "N": N, "K": K, "tile": None}
            try:
                cfg = launch_config(kernel, M, N, K, 16, splits, tail, pad, reduce)
                rt.check_fits(cfg)
                chk = _check_on(rt, cfg, prob)
            except Exception as e:
                st = _classify(rt, e)
                note("error", {**row, "kind": st.kind, "message": st.reason})
                if st.kind == "launch_error":
                    return out
                continue
            if passes(chk, kernel):
                kept[label] = cfg
            else:
                note("error", {**row, "kind": "error", "message": f"wrong result: rel. error "
                               f"{chk['rel_error']:.2e}, all written: {chk['all_written']}"})
        times = {label: [] for label in kept}
        for r in range(rounds):
            for label in (list(kept) if r % 2 == 0 else list(kept)[::-1]):
                times[label].append(_time_kernel_on(rt, kept[label], prob, repeats=repeats, warmup=warmup,
                                                    budget_s=budget_s, flush_l2=flush_l2).median_ms)
        for label, t in times.items():
            out[label] = statistics.median(t)
            note("result", {"label": label, "median_ms": out[label]})
        return out
    finally:
        prob.release(rt)
