"""A student's kernel on the real GPU, and only after the simulator passed it.

:func:`run_student_kernel` first runs the source in :mod:`explainer.sim` (the default launches
for its tile, and the requested launch when it is small enough to simulate). Anything reported
there (a wrong result, a race, an out-of-bounds access, barrier divergence, an uninitialised read,
an endless loop) raises :class:`StudentKernelRefused` with the simulator's lines: a kernel with an
out-of-bounds store or a hang never reaches the device. Bad input (a syntax error, a construct
outside the simulator's subset) raises :class:`explainer.sim.SimError`.

Then the source is compiled with CuPy (NVRTC, ``-I kernels/`` for ``common.cuh``) and launched
with the ladder's geometry: blocks of T x T threads, grid ``(ceil(N/T), ceil(M/T))``, and
``2*T*T*4`` bytes of dynamic shared memory when the kernel declares ``extern __shared__``. The
inputs are the simulator's (random, non-symmetric), C is poisoned with NaN first, and the result is
compared with numpy in float64 as every GPU check of the project is.

Without CUDA it answers with the :class:`GpuStatus` that says why, like every public call of
:mod:`explainer.gpu`; a compile or launch error also comes back as a ``GpuStatus``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..i18n import _
from ..sim import check_kernel, default_launches, inputs, kernel_tile, parse_source
from ..sim.check import MAX_SIDE, MAX_WORK, LaunchSpec
from ..sim.interp import compile_kernel
from .launch import COMPILE_OPTIONS, KERNELS_DIR
from .runtime import GpuStatus, _classify, _runtime
from .verify import DEFAULT_TOL, _compare


class StudentKernelRefused(ValueError):
    """The simulator reported problems: the kernel is not run on the GPU. ``lines``: the
    simulator's one line per problem."""

    def __init__(self, name: str, lines: list[str]):
        self.lines = lines
        head = _("kernel {name} was not run on the GPU: the simulator reported {n} problem(s)", name=name, n=len(lines))
        super().__init__(head + ("\n" + "\n".join(lines) if lines else ""))


@dataclass(frozen=True)
class StudentRun:
    kernel: str
    M: int
    N: int
    K: int
    tile: int
    rel_error: float
    max_abs_error: float
    all_written: bool
    unwritten: int
    tol: float
    simulated: tuple  # the launches the simulator passed first (labels)
    # timed (CUDA events, median; only a kernel whose C matched numpy is timed), beside the
    # ladder's rung that does the same work and cuBLAS on the same inputs
    ms: float | None = None
    rung: str | None = None
    rung_ms: float | None = None
    cublas_ms: float | None = None
    device: str | None = None

    @property
    def passed(self) -> bool:
        return self.all_written and self.rel_error <= self.tol


def simulate_first(source: str, M: int, N: int, K: int, tile: int | None = None, path=None):
    """The simulator's verdict on the launches a GPU run is gated on: ``(parsed, tile, report)``."""
    parsed = parse_source(source, path)
    T = int(tile) if tile is not None else kernel_tile(parsed)
    launches = default_launches(T)
    want = LaunchSpec(int(M), int(N), int(K), T)
    if max(M, N, K) <= MAX_SIDE and M * N * K <= MAX_WORK and want not in launches:
        launches.append(want)
    report = check_kernel(source, launches, parsed=parsed)
    return parsed, T, report


def run_student_kernel(source: str, M: int, N: int, K: int, tile: int | None = None, *, seed: int = 0,
                       path: str | Path | None = None, tol: float = DEFAULT_TOL,
                       time_it: bool = False) -> StudentRun | GpuStatus:
    """Simulate, then (only if everything passed) compile and run ``source`` on the GPU at
    ``M x N x K`` with T x T blocks; returns what the device computed, checked against numpy.
    With ``time_it`` a kernel whose C matched is timed too, beside the matching rung and cuBLAS."""
    parsed, T, report = simulate_first(source, M, N, K, tile, path)
    name = parsed.kernel.name
    if not report.passed:
        raise StudentKernelRefused(name, report.lines())
    rt = _runtime()
    if isinstance(rt, GpuStatus):
        return rt
    try:
        cp = rt.cp
        folders = [KERNELS_DIR] + ([Path(path).resolve().parent] if path is not None else [])
        options = tuple(COMPILE_OPTIONS) + tuple(f"-I{d}" for d in folders)
        expr = f"{name}<{T}>" if parsed.kernel.template is not None else name
        plain = parsed.kernel.extern_c and parsed.kernel.template is None  # extern "C": unmangled
        mod = cp.RawModule(code=source, options=options, name_expressions=None if plain else [expr])
        mod.compile()
        fn = mod.get_function(expr)
        L = LaunchSpec(int(M), int(N), int(K), T)
        A, B = inputs(L, seed)
        dA, dB = cp.asarray(A), cp.asarray(B)
        dC = cp.full((L.M, L.N), np.nan, dtype=cp.float32)
        prog = compile_kernel(parsed, T)
        dynamic = sum(m.size for m in prog.shared if m.extern) * 4  # extern __shared__: 2*T*T floats
        gx, gy = L.grid
        fn((gx, gy), (T, T), (dA, dB, dC, np.int32(L.M), np.int32(L.N), np.int32(L.K)), shared_mem=dynamic)
        cp.cuda.Device().synchronize()
        ref = A.astype(np.float64) @ B.astype(np.float64)
        r = _compare(cp.asnumpy(dC), ref)
        run = StudentRun(name, L.M, L.N, L.K, T, r["rel_error"], r["max_abs_error"], r["all_written"],
                         r["unwritten"], tol, tuple(x.launch.label for x in report.launches))
        if not (time_it and run.passed):
            return run
        from dataclasses import replace

        from .timing import _time_loop, time_kernel

        args = (dA, dB, dC, np.int32(L.M), np.int32(L.N), np.int32(L.K))
        times, _spread = _time_loop(rt, lambda: fn((gx, gy), (T, T), args, shared_mem=dynamic),
                              repeats=20, warmup=2, budget_s=1.0, flush_l2=True)
        rung = "tiled" if prog.shared else "naive"  # kernel 03 or kernel 01: the same work
        ref_t = time_kernel(rung, L.M, L.N, L.K, T, repeats=20, budget_s=1.0)  # (public: the runtime is its own)
        if isinstance(ref_t, GpuStatus):
            return replace(run, ms=float(np.median(times)), device=rt.name)
        return replace(run, ms=float(np.median(times)), rung=rung, rung_ms=ref_t.median_ms,
                       cublas_ms=ref_t.cublas_ms, device=rt.name)
    except Exception as e:  # noqa: BLE001 - a GpuStatus says what went wrong, as everywhere in gpu
        return _classify(rt, e)


__all__ = ["run_student_kernel", "simulate_first", "StudentKernelRefused", "StudentRun"]
