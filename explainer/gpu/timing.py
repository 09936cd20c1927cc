"""Timing one launch: CUDA events around each launch, warm-up first, the median of repeats
with min / max / CV, an optional L2 flush before each repeat, a time budget that cuts the
repeats of a slow launch, and cuBLAS (``cupy.matmul``, plain FP32) on the same inputs."""

from __future__ import annotations

import gc
import statistics
import time
from contextlib import contextmanager
from dataclasses import dataclass, field, replace

import numpy as np

from .verify import _Problem, _launch
from .launch import launch_config
from .runtime import _Runtime, _public

# --------------------------------------------------------------------------------------
# Timing
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Timing:
    """Repeated CUDA-event timings of one launch (``kernel == "cublas"`` for cupy.matmul)."""

    kernel: str
    M: int
    N: int
    K: int
    tile: int | None
    times_ms: tuple[float, ...]
    warmup: int
    flush_l2: bool
    budget_s: float
    cut_by_budget: bool  # fewer repeats than asked because one launch is slow
    cublas_ms: float | None = None  # cuBLAS median on the same inputs, same run
    extra: dict = field(default_factory=dict)
    splits: int = 1  # split-K: blocks per tile of C along K
    tail: int = 0  # split tail: only the last `tail` tiles of C split (0: all, with splits > 1)
    pad: bool = False  # A and / or B copied into rows padded to 4 floats first (the copies are timed too)
    reduce: bool = False  # split-K's slices added by a separate kernel (timed too)

    ok = True

    @property
    def repeats(self) -> int:
        return len(self.times_ms)

    @property
    def median_ms(self) -> float:
        return float(statistics.median(self.times_ms))

    @property
    def min_ms(self) -> float:
        return float(min(self.times_ms))

    @property
    def max_ms(self) -> float:
        return float(max(self.times_ms))

    @property
    def mean_ms(self) -> float:
        return float(statistics.fmean(self.times_ms))

    @property
    def cv(self) -> float:
        """Coefficient of variation: population standard deviation / mean."""
        return float(statistics.pstdev(self.times_ms) / self.mean_ms) if self.repeats > 1 else 0.0

    @property
    def spread(self) -> float:
        """(max - min) / median."""
        return (self.max_ms - self.min_ms) / self.median_ms

    @property
    def gflops(self) -> float:
        return 2.0 * self.M * self.N * self.K / (self.median_ms * 1e-3) / 1e9

    @property
    def pct_cublas(self) -> float | None:
        return 100.0 * self.cublas_ms / self.median_ms if self.cublas_ms else None

    def to_dict(self) -> dict:
        d = {k: getattr(self, k) for k in ("kernel", "M", "N", "K", "tile", "median_ms",
                                           "min_ms", "max_ms", "mean_ms", "cv", "spread",
                                           "repeats", "warmup", "flush_l2", "budget_s",
                                           "cut_by_budget", "gflops", "cublas_ms",
                                           "pct_cublas")}
        d["times_ms"] = [round(t, 6) for t in self.times_ms]
        if self.splits > 1:
            d["splits"] = self.splits
        if self.tail:
            d["tail"] = self.tail
        if self.pad:
            d["pad"] = True
        if self.reduce:
            d["reduce"] = True
        d.update(self.extra)
        return d


DEFAULT_REPEATS = 20
DEFAULT_WARMUP = 2
DEFAULT_BUDGET_S = 2.0
MIN_REPEATS = 3


#: Rounds in which cuBLAS and the launches compared with it are timed, interleaved (the order
#: reversed every other round, the repeats shared among them): ``benchmark``, ``time_kernel``.
ROUNDS = 2


def _round_repeats(repeats: int) -> list[int]:
    """``repeats`` shared among the ROUNDS rounds, the first ones taking the remainder (15: 8 and
    7); a round still times at least MIN_REPEATS (``_time_loop``)."""
    return [repeats // ROUNDS + (1 if r < repeats % ROUNDS else 0) for r in range(ROUNDS)]


def _round_order(keys: list, repeats: int):
    """``(key, repeats)`` in the order the keys are timed: ROUNDS rounds, the order reversed every
    other round, each round its share of ``repeats`` (:func:`_round_repeats`)."""
    for r, per in enumerate(_round_repeats(repeats)):
        for key in (keys if r % 2 == 0 else keys[::-1]):
            yield key, per


def _joined(parts: list[Timing]) -> Timing:
    """One Timing from a launch's rounds: their times together (the median over all of them)."""
    return replace(parts[0], times_ms=tuple(t for p in parts for t in p.times_ms),
                   cut_by_budget=any(p.cut_by_budget for p in parts))


#: Before each start event the stream is held this long (kernels/hold.cu), so that every kernel of
#: the timed launch (a padded launch's copies, a separate reduction) is queued before the GPU
#: reaches it: Python's time between its enqueues stays out of the span (a
#: padded launch timed 0.105 ms in one loop and 0.120-0.149 ms in the next, its kernels waiting
#: for the host).
HOLD_US = 100.0


def _time_loop(rt: _Runtime, fn, *, repeats: int, warmup: int, budget_s: float,
               flush_l2: bool) -> tuple[list[float], bool]:
    cp = rt.cp
    start, end = cp.cuda.Event(), cp.cuda.Event()

    def once() -> float:
        if flush_l2:
            rt.flush_l2()
        rt.hold(HOLD_US)
        start.record()
        fn()
        end.record()
        end.synchronize()
        return cp.cuda.get_elapsed_time(start, end)

    collecting = gc.isenabled()
    gc.disable()  # no collection pause between the enqueues of one launch
    try:
        warm = [once() for _ in range(max(1, warmup))]
        per_launch_s = max(min(warm), 1e-6) * 1e-3
        affordable = int(budget_s / per_launch_s)
        n = max(MIN_REPEATS, min(int(repeats), affordable))
        times = [once() for _ in range(n)]
    finally:
        if collecting:
            gc.enable()
    rt.last_busy = time.perf_counter()
    return times, n < repeats


#: Seconds of cuBLAS work before timing on a GPU that has been idle: an idle H100 sits at
#: ~350 MHz and needs a moment to reach its boost clock (seen 2026-11-22: cuBLAS 2.75 ms cold,
#: 2.66 ms warm at 4096^3; 0.41 ms instead of 0.063 ms at 1024^3).
SPIN_UP_S = 1.0
#: A GPU idle longer than this since its last timed work is spun up again before the next.
IDLE_S = 0.5


def _spin_up(rt: _Runtime, prob, seconds: float = SPIN_UP_S) -> float:
    """Keep the GPU busy with cuBLAS for ``seconds`` (wall clock), so that the timings that
    follow run at the clock the GPU holds under load. Returns the seconds spent."""
    cp = rt.cp
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        for _ in range(4):
            cp.matmul(prob.A, prob.B, out=prob.C)
        cp.cuda.Device().synchronize()
    rt.last_busy = time.perf_counter()
    return rt.last_busy - t0


def _ensure_warm(rt: _Runtime, prob) -> float:
    """The one spin-up path of every timing: spin the GPU up unless timed work ended less than
    :data:`IDLE_S` ago. Returns the seconds spent (0 when it was warm)."""
    if SPIN_UP_S <= 0 or (rt.last_busy is not None and time.perf_counter() - rt.last_busy <= IDLE_S):
        return 0.0
    return _spin_up(rt, prob)


def _time_kernel_on(rt, cfg, prob, *, repeats, warmup, budget_s, flush_l2, cublas_ms=None):
    kern = rt.kernel(cfg)  # compiling (first use) may take a while: warm up after it
    _ensure_warm(rt, prob)
    times, cut = _time_loop(
        rt, lambda: _launch(rt, kern, cfg, prob.A, prob.B, prob.C),
        repeats=repeats, warmup=warmup, budget_s=budget_s, flush_l2=flush_l2)
    return Timing(cfg.kernel, cfg.M, cfg.N, cfg.K, cfg.tile, tuple(times), warmup, flush_l2,
                  budget_s, cut, cublas_ms, splits=cfg.splits, tail=cfg.tail, pad=cfg.pad,
                  reduce=cfg.reduce)


@contextmanager
def _cublas_math(rt, tf32: bool):
    """cupy.matmul in FP32 (TF32 off), or with ``tf32`` in cuBLAS's TF32 mode until the block
    ends; yields ``rt.tf32_off()``'s report."""
    info = rt.tf32_off()
    if tf32:
        rt.cublas_tf32(True)
    try:
        yield info
    finally:
        if tf32:
            rt.cublas_tf32(False)


def _cublas_check(rt, prob, tf32: bool = False) -> dict:
    """cuBLAS's product on ``prob`` (C poisoned first) against numpy float64: the ``extra`` of
    its Timing (rel_error, all_written, tf32; math "tf32" for the TF32 mode)."""
    cp = rt.cp
    with _cublas_math(rt, tf32) as info:
        prob.C.fill(np.nan)
        cp.matmul(prob.A, prob.B, out=prob.C)
        cp.cuda.Device().synchronize()
    err = prob.check_C(rt)
    extra = {"rel_error": err["rel_error"], "all_written": err["all_written"],
             "tf32": True if tf32 else info.get("tf32")}
    if tf32:
        extra["math"] = "tf32"
    return extra


def _time_cublas_on(rt, prob, *, repeats, warmup, budget_s, flush_l2, tf32: bool = False, checked=None):
    """cuBLAS through cupy.matmul: FP32 (the reference of every FP32 kernel), or with ``tf32``
    its TF32 mode (the tensor-core kernels' reference: row "cublas_tf32", math "tf32"). Checked
    after the timing (:func:`_cublas_check`), unless ``checked`` gives that check's result."""
    cp = rt.cp
    with _cublas_math(rt, tf32):
        _ensure_warm(rt, prob)
        times, cut = _time_loop(rt, lambda: cp.matmul(prob.A, prob.B, out=prob.C),
                                repeats=repeats, warmup=warmup, budget_s=budget_s,
                                flush_l2=flush_l2)
    extra = dict(checked) if checked is not None else _cublas_check(rt, prob, tf32)
    return Timing("cublas_tf32" if tf32 else "cublas", prob.M, prob.N, prob.K, None, tuple(times), warmup,
                  flush_l2, budget_s, cut, None, extra)


@_public
def time_kernel(rt: _Runtime, kernel: str, M: int, N: int, K: int, tile: int = 16, *,
                repeats: int = DEFAULT_REPEATS, warmup: int = DEFAULT_WARMUP,
                budget_s: float = DEFAULT_BUDGET_S, flush_l2: bool = True,
                compare_cublas: bool = True, seed: int = 0, splits: int = 1, tail: int = 0,
                pad: bool = False, reduce: bool = False) -> Timing:
    """Time ``kernel`` with CUDA events: ``warmup`` launches, then up to ``repeats`` (at least
    3, fewer than asked when they would take more than ``budget_s``). With
    ``compare_cublas`` cuBLAS (FP32, TF32 off) is timed on the same inputs too, in ``ROUNDS``
    rounds interleaved with the kernel's (the repeats shared among them). ``splits``:
    split-K (the tuning engine's configurations); ``tail``: only the last ``tail`` tiles split; ``pad``: A
    and B copied into rows padded to 4 floats first (the copies inside the timed span);
    ``reduce``: split-K's slices added by a separate kernel (timed too)."""
    cfg = launch_config(kernel, M, N, K, tile, splits, tail, pad, reduce)
    rt.check_fits(cfg)
    prob = _Problem(rt, cfg.M, cfg.N, cfg.K, seed)
    try:
        if not compare_cublas:
            return _time_kernel_on(rt, cfg, prob, repeats=repeats, warmup=warmup,
                                   budget_s=budget_s, flush_l2=flush_l2)
        checked = _cublas_check(rt, prob)  # before any timing (as benchmark does)
        parts = {"cublas": [], "kernel": []}
        for which, per in _round_order(list(parts), repeats):
            parts[which].append(
                _time_cublas_on(rt, prob, repeats=per, warmup=warmup, budget_s=budget_s / ROUNDS,
                                flush_l2=flush_l2, checked=checked) if which == "cublas" else
                _time_kernel_on(rt, cfg, prob, repeats=per, warmup=warmup, budget_s=budget_s / ROUNDS,
                                flush_l2=flush_l2))
        return replace(_joined(parts["kernel"]), cublas_ms=_joined(parts["cublas"]).median_ms)
    finally:
        prob.release(rt)


@_public
def time_cublas(rt: _Runtime, M: int, N: int, K: int, *, repeats: int = DEFAULT_REPEATS,
                warmup: int = DEFAULT_WARMUP, budget_s: float = DEFAULT_BUDGET_S,
                flush_l2: bool = True, seed: int = 0) -> Timing:
    """Time ``cupy.matmul`` (cuBLAS SGEMM, TF32 off) on random float32 inputs."""
    cfg = launch_config("naive", M, N, K, 1)  # sizes only
    rt.check_fits(cfg)
    prob = _Problem(rt, cfg.M, cfg.N, cfg.K, seed)
    try:
        return _time_cublas_on(rt, prob, repeats=repeats, warmup=warmup, budget_s=budget_s,
                               flush_l2=flush_l2)
    finally:
        prob.release(rt)


