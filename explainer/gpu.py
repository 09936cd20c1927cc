"""Launch the real kernels in ``kernels/`` through CuPy: compile, check, trace and time them.

Everything here answers with a value, never an exception into a notebook:

* No CUDA (CuPy missing, no device, a broken driver, or ``EXPLAINER_NO_GPU=1``): every public
  function returns ``GpuStatus(available=False, reason="no GPU: ...")``.
* A request the GPU cannot serve (a tile too large for the device, out of memory, a compile or
  launch error): ``GpuStatus(available=True, kind=..., reason=...)`` with a one-paragraph reason
  (compile errors carry the compiler's log). :func:`benchmark` keeps what it measured before.

Geometry comes from one place, :func:`launch_config` (pure Python, works without a GPU).
Each ``.cu`` file is compiled once per process (timed build, and separately the
``-DEXPLAINER_TRACE`` build) through ``cupy.RawModule``; templates through ``name_expressions``.

Timing follows the usual method: CUDA events around each launch, warm-up first, the median of
repeats with min / max / CV, an optional L2 flush (a buffer twice the L2 size written) before
each repeat, and a time budget that cuts the repeats of a slow launch (4096^3 naive_col).
cuBLAS (``cupy.matmul``, plain FP32: TF32 off) is timed on the same inputs in the same run.
"""

from __future__ import annotations

import functools
import inspect
import os
import statistics
import subprocess
import time
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone

import numpy as np

from . import ladder, model, resources

#: The ``kernels/`` folder of this checkout (the package's sibling).
KERNELS_DIR = resources.kernels_dir()
#: Set to 1 to make every entry point answer "no GPU" (e.g. a lecture server on a GPU box).
NO_GPU_ENV = "EXPLAINER_NO_GPU"
COMPILE_OPTIONS = ("-std=c++17",)
TRACE_DEFINE = "-DEXPLAINER_TRACE"
NEVER_WRITTEN = -2  # the value the host puts in every trace slot before a launch
PADDING = -1  # what a kernel records for a padding zero
FLOAT_BYTES = 4
MAX_INDEX = 2**31 - 1  # the kernels index with 32-bit int

DEFAULT_TILES = (8, 16, 32)
#: The instantiations of the template kernels (03, 05): the seeds' small examples use T = 2.
TEMPLATE_TILES = (2, 4, 8, 16, 32)
DEFAULT_SIZES = (512, 1024, 2048, 4096)


# --------------------------------------------------------------------------------------
# The kernels and their launch geometry (no GPU needed)
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class KernelSpec:
    """One kernel file. ``tiles`` lists a template's compile-time instantiations; ``None``
    means the tile (= block edge) is chosen at run time."""

    name: str
    file: str
    symbol: str
    tiles: tuple[int, ...] | None
    shared: str  # "none" | "static" | "dynamic"
    model: str  # the explainer.model kernel that describes it ("ladder": explainer.ladder)
    summary: str
    rung: str | None = None  # the ladder kernels (10-14): their entry in explainer.ladder.RUNGS

    @property
    def ladder(self) -> "ladder.Rung | None":
        return ladder.BY_NAME[self.rung] if self.rung else None

    def expression(self, tile: int) -> str:
        """The name ``RawModule.get_function`` takes (``tiled_gemm<16>`` for a template). A ladder
        kernel's names come from its rung (``Rung.expression``)."""
        return f"{self.symbol}<{int(tile)}>" if self.tiles else self.symbol

    @property
    def name_expressions(self) -> list[str] | None:
        if self.rung:
            return self.ladder.expressions
        return [self.expression(t) for t in self.tiles] if self.tiles else None

    @property
    def traces_tiles(self) -> bool:
        return self.shared != "none"


_SPECS = (
    KernelSpec("naive", "01_naive.cu", "naive_gemm", None, "none", "naive",
               "one thread per C element, threadIdx.x -> column (coalesced)"),
    KernelSpec("naive_col", "02_naive_col.cu", "naive_col_gemm", None, "none", "naive_col",
               "one thread per C element, threadIdx.x -> row (uncoalesced, seed 004)"),
    KernelSpec("tiled", "03_tiled.cu", "tiled_gemm", TEMPLATE_TILES, "static", "tiled",
               "shared-memory tiles, template<int TILE> (PMPP fig. 5.9)"),
    KernelSpec("tiled_dynamic", "04_tiled_dynamic.cu", "tiled_dynamic_gemm", None, "dynamic",
               "tiled", "shared-memory tiles sized at launch (extern __shared__, PMPP 5.6)"),
    KernelSpec("tiled_register_copy", "05_tiled_register_copy.cu", "tiled_register_copy_gemm",
               TEMPLATE_TILES, "static", "tiled",
               "tiled, each shared element copied to a local first (seed 004)"),
) + tuple(
    # The ladder beyond tiling (page 08): one thread, many outputs. Parameters: explainer.ladder.
    KernelSpec(r.name, r.file, r.symbol, None, "static", "ladder", r.title, r.name)
    for r in ladder.RUNGS
)
#: Deliberately broken teaching variants (pages 03, 04): registered so that check / trace /
#: benchmark run them by name, but not in KERNEL_NAMES (the "every kernel is correct" set).
_BROKEN_SPECS = (
    KernelSpec("tiled_unguarded", "06_tiled_unguarded.cu", "tiled_unguarded_gemm", TEMPLATE_TILES,
               "static", "tiled_unguarded", "PMPP fig. 5.9 as printed: no boundary checks, K/T phases"),
    KernelSpec("tiled_no_barrier1", "07_tiled_no_barrier1.cu", "tiled_no_barrier1_gemm",
               TEMPLATE_TILES, "static", "tiled_no_barrier1", "tiled without barrier 1 (a race)"),
    KernelSpec("tiled_no_barrier2", "08_tiled_no_barrier2.cu", "tiled_no_barrier2_gemm",
               TEMPLATE_TILES, "static", "tiled_no_barrier2", "tiled without barrier 2 (a race)"),
    KernelSpec("tiled_no_barriers", "09_tiled_no_barriers.cu", "tiled_no_barriers_gemm",
               TEMPLATE_TILES, "static", "tiled_no_barriers", "tiled without both barriers (a race)"),
)
KERNELS: dict[str, KernelSpec] = {s.name: s for s in _SPECS + _BROKEN_SPECS}
KERNEL_NAMES = tuple(s.name for s in _SPECS)
BROKEN_KERNEL_NAMES = tuple(s.name for s in _BROKEN_SPECS)


def _spec(kernel: str) -> KernelSpec:
    if kernel not in KERNELS:
        raise ValueError(f"unknown kernel {kernel!r}; choose one of {', '.join(KERNELS)}")
    return KERNELS[kernel]


def _whole(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be a whole number, got {value!r}")
    if int(value) < 1:
        raise ValueError(f"{name} must be at least 1, got {value}")
    return int(value)


@dataclass(frozen=True)
class LaunchConfig:
    """Grid, block and shared memory of one launch: the only place they are computed."""

    kernel: str
    M: int
    N: int
    K: int
    tile: int | None  # T of the tiled / naive kernels; None for the ladder kernels
    grid: tuple[int, int, int]  # (x over the N columns of C, y over its M rows, 1)
    block: tuple[int, int, int]  # (T, T, 1); (threads, 1, 1) for the ladder kernels
    shared_bytes: int  # shared memory per block, static or dynamic
    dynamic_shared_bytes: int  # what the launch passes as shared_mem (0 unless dynamic)
    phases: int  # ceil(K / T) for the tiled kernels, 0 for the naive ones
    file: str
    expression: str

    @property
    def threads_per_block(self) -> int:
        return self.block[0] * self.block[1]

    @property
    def flops(self) -> int:
        return 2 * self.M * self.N * self.K

    @property
    def bytes_in_out(self) -> int:
        return FLOAT_BYTES * (self.M * self.K + self.K * self.N + self.M * self.N)


def launch_config(kernel: str, M: int, N: int, K: int, tile: int = 16) -> LaunchConfig:
    """The launch geometry of ``kernel`` for C = A (M x K) @ B (K x N) with T x T blocks.

    Raises ``ValueError`` (one readable line) for an unknown kernel, a size < 1, or a tile the
    kernel was not compiled for. Device limits are checked at launch (see :func:`refusal`).
    """
    spec = _spec(kernel)
    if spec.rung:
        return _ladder_config(spec, *(_whole(n, v) for n, v in (("M", M), ("N", N), ("K", K))))
    M, N, K, T = (_whole(n, v) for n, v in (("M", M), ("N", N), ("K", K), ("tile", tile)))
    if spec.tiles and T not in spec.tiles:
        raise ValueError(
            f"{kernel} is compiled for tiles {', '.join(map(str, spec.tiles))} only "
            f"(template<int TILE>); tiled_dynamic takes any tile at run time, got {T}"
        )
    # Geometry from the model (the kernel it mirrors), so the pictures and the launch agree.
    shared = model.tile_bytes(spec.model, T)
    return LaunchConfig(
        kernel=kernel, M=M, N=N, K=K, tile=T, grid=(*model.grid_dims(M, N, T), 1), block=(T, T, 1),
        shared_bytes=shared,
        dynamic_shared_bytes=shared if spec.shared == "dynamic" else 0,
        phases=model.phase_count(spec.model, K, T),
        file=spec.file, expression=spec.expression(T),
    )


def _ladder_config(spec: KernelSpec, M: int, N: int, K: int) -> LaunchConfig:
    """A ladder kernel: 1D blocks, one per BM x BN tile of C; the fast instantiation when the
    block tile divides the problem, the guarded one otherwise (explainer.ladder)."""
    r = spec.ladder
    return LaunchConfig(
        kernel=spec.name, M=M, N=N, K=K, tile=None, grid=(*r.grid(M, N), 1),
        block=(r.threads, 1, 1), shared_bytes=r.shared_bytes, dynamic_shared_bytes=0,
        phases=r.phases(K), file=spec.file, expression=r.expression(not r.fast(M, N, K)),
    )


def refusal(cfg: LaunchConfig, limits: dict) -> str | None:
    """Why the device described by ``limits`` (see :class:`DeviceInfo`) cannot run ``cfg``,
    or ``None``. Every reason is spelled out, joined by '; '."""
    reasons = []
    T = cfg.tile
    smem_limit = limits.get("shared_per_block")
    if T is None:  # a ladder kernel
        if smem_limit and cfg.shared_bytes > smem_limit:
            reasons.append(f"{cfg.expression} needs {cfg.shared_bytes} bytes of shared memory "
                           f"per block; the device allows {smem_limit} (sharedMemPerBlock)")
    elif smem_limit and cfg.shared_bytes > smem_limit:
        reasons.append(
            f"tile {T} needs 2*{T}*{T}*4 = {cfg.shared_bytes} bytes of shared memory per block; "
            f"the device allows {smem_limit} bytes per block (sharedMemPerBlock)"
        )
    max_threads = limits.get("max_threads_per_block")
    if max_threads and cfg.threads_per_block > max_threads:
        shape = f"{T}x{T}" if T is not None else f"{cfg.block[0]}-thread"
        reasons.append(
            f"a {shape} block has {cfg.threads_per_block} threads; the device allows at most "
            f"{max_threads} threads per block (maxThreadsPerBlock)"
        )
    for what, n in (("A (M*K)", cfg.M * cfg.K), ("B (K*N)", cfg.K * cfg.N),
                    ("C (M*N)", cfg.M * cfg.N)):
        if n > MAX_INDEX:
            reasons.append(f"{what} has {n} elements; the kernels index with 32-bit int")
    if cfg.kernel == "tiled_unguarded" and (cfg.M % T or cfg.N % T):
        reasons.append(
            f"tiled_unguarded has no boundary checks: with tile {T} not dividing M={cfg.M} and "
            f"N={cfg.N} its edge threads read past A / B and store past C (undefined behaviour); "
            "it runs here only when T divides M and N; explainer.gpu_edges.run_unguarded pads "
            "the buffers so that every access stays inside them")
    if not reasons:
        return None
    tile = "" if T is None else f" tile {T}"
    return f"refused: {cfg.kernel} {cfg.M}x{cfg.N}x{cfg.K}{tile}: " + "; ".join(reasons)


# --------------------------------------------------------------------------------------
# Values returned instead of exceptions
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class GpuStatus:
    """Whether a GPU is usable, or why a request could not run.

    ``kind``: ``"ok"`` (only from :func:`status`), ``"no_gpu"``, ``"refused"``,
    ``"out_of_memory"``, ``"compile_error"``, ``"launch_error"`` or ``"error"``.
    """

    available: bool
    reason: str
    kind: str = "no_gpu"
    device: str | None = None

    @property
    def ok(self) -> bool:
        return self.kind == "ok"

    def __str__(self) -> str:
        return self.reason


class _Refused(Exception):
    def __init__(self, message: str, kind: str = "refused"):
        super().__init__(message)
        self.kind = kind


# --------------------------------------------------------------------------------------
# The runtime: CuPy, the device, compiled modules (created on first use, once per process)
# --------------------------------------------------------------------------------------
class _Runtime:
    def __init__(self, cp, device_id: int):
        self.cp = cp
        self.device_id = device_id
        props = cp.cuda.runtime.getDeviceProperties(device_id)
        name = props.get("name", b"?")
        self.name = name.decode() if isinstance(name, bytes) else str(name)
        self.props = props
        self.modules: dict[tuple[str, bool], object] = {}
        self._flush = None
        self._tf32 = None

    # -- compiling ---------------------------------------------------------------------
    def module(self, spec: KernelSpec, trace: bool):
        key = (spec.file, trace)
        if key in self.modules:
            return self.modules[key]
        cp = self.cp
        path = KERNELS_DIR / spec.file
        try:
            source = path.read_text()
        except OSError as e:
            raise _Refused(f"cannot read {path}: {e}", "compile_error") from None
        options = COMPILE_OPTIONS + (f"-I{KERNELS_DIR}",) + ((TRACE_DEFINE,) if trace else ())
        mod = cp.RawModule(code=source, options=options, name_expressions=spec.name_expressions)
        try:
            mod.compile()  # now, so that errors surface here with their log
        except Exception as e:
            log = e.get_message() if hasattr(e, "get_message") else str(e)
            build = "trace build (-DEXPLAINER_TRACE)" if trace else "timed build"
            raise _Refused(
                f"compiling kernels/{spec.file} ({build}, options {' '.join(options)}) failed:\n"
                f"{log}", "compile_error") from None
        self.modules[key] = mod
        return mod

    def kernel(self, cfg: LaunchConfig, trace: bool = False):
        spec = KERNELS[cfg.kernel]
        return self.module(spec, trace).get_function(cfg.expression)

    # -- device limits -----------------------------------------------------------------
    @property
    def limits(self) -> dict:
        p = self.props
        return {
            "shared_per_block": p.get("sharedMemPerBlock"),
            "max_threads_per_block": p.get("maxThreadsPerBlock"),
        }

    def check_fits(self, cfg: LaunchConfig, extra_bytes: int = 0) -> None:
        why = refusal(cfg, self.limits)
        if why:
            raise _Refused(why)
        free, total = self.free_bytes()
        need = cfg.bytes_in_out + extra_bytes
        if need > free:
            raise _Refused(
                f"out of memory: {cfg.M}x{cfg.N}x{cfg.K} needs {need / 2**20:.0f} MiB on the GPU "
                f"and {free / 2**20:.0f} MiB of {total / 2**20:.0f} MiB are free",
                "out_of_memory")

    def free_bytes(self) -> tuple[int, int]:
        """(free, total) device memory, counting blocks CuPy's pool holds but does not use."""
        free, total = self.cp.cuda.runtime.memGetInfo()
        return free + self.cp.get_default_memory_pool().free_bytes(), total

    def flush_l2(self):
        """Write a buffer twice the L2 size: what the timed launch reads afterwards comes from
        DRAM, not from lines left by the previous repeat."""
        cp = self.cp
        if self._flush is None:
            l2 = int(self.props.get("l2CacheSize") or 64 * 2**20)
            self._flush = cp.empty(2 * l2 // 4, dtype=cp.float32)
        self._flush.fill(0)

    def tf32_off(self) -> dict:
        """Make cupy.matmul on float32 use plain FP32 (CUBLAS_COMPUTE_32F), whatever CUPY_TF32
        says; returns what was set. CuPy 14 reads CUPY_TF32 once and keeps a per-dtype compute
        type in cupy._core._routines_linalg, which set_compute_type overrides."""
        if self._tf32 is None:
            info = {"tf32": None, "cupy_tf32_env": os.environ.get("CUPY_TF32")}
            try:
                from cupy._core import _routines_linalg as rl

                rl.set_compute_type(np.float32, rl.COMPUTE_TYPE_DEFAULT)
                info["compute_type"] = int(rl.get_compute_type(np.float32))
                info["tf32"] = info["compute_type"] == int(rl.COMPUTE_TYPE_TF32)
            except Exception as e:  # an older or newer CuPy: fall back on the environment
                info["error"] = f"{type(e).__name__}: {e}"
                info["tf32"] = os.environ.get("CUPY_TF32", "0") not in ("", "0")
            self._tf32 = info
        return self._tf32


_RUNTIME: _Runtime | GpuStatus | None = None


def _reset() -> None:
    """Forget the runtime and compiled modules (tests use it to simulate a missing CuPy)."""
    global _RUNTIME
    _RUNTIME = None


def _runtime() -> _Runtime | GpuStatus:
    global _RUNTIME
    if os.environ.get(NO_GPU_ENV, "") not in ("", "0"):
        return GpuStatus(False, f"no GPU: disabled by {NO_GPU_ENV}={os.environ[NO_GPU_ENV]}")
    if _RUNTIME is not None:
        return _RUNTIME
    try:
        import cupy as cp
    except ImportError:
        _RUNTIME = GpuStatus(False, "no GPU: cupy is not installed "
                                    "(pip install cupy-cuda13x, or cupy-cuda12x on a CUDA 12 driver)")
        return _RUNTIME
    except Exception as e:
        _RUNTIME = GpuStatus(False, f"no GPU: cupy failed to import ({type(e).__name__}: {e})")
        return _RUNTIME
    try:
        n = cp.cuda.runtime.getDeviceCount()
        if n < 1:
            _RUNTIME = GpuStatus(False, "no GPU: CUDA reports no device")
            return _RUNTIME
        dev = cp.cuda.Device().id
        _RUNTIME = _Runtime(cp, dev)
    except Exception as e:
        _RUNTIME = GpuStatus(False, f"no GPU: the CUDA driver or device is not usable "
                                    f"({type(e).__name__}: {e})")
    return _RUNTIME


def _classify(rt: _Runtime, e: Exception) -> GpuStatus:
    name = type(e).__name__
    if isinstance(e, _Refused):
        return GpuStatus(True, str(e), e.kind, rt.name)
    if isinstance(e, ValueError):
        return GpuStatus(True, f"refused: {e}", "refused", rt.name)
    if "OutOfMemory" in name:
        return GpuStatus(True, f"out of memory: {e}", "out_of_memory", rt.name)
    if "CompileException" in name:
        return GpuStatus(True, f"compile error:\n{e}", "compile_error", rt.name)
    if "CUDADriverError" in name or "CUDARuntimeError" in name:
        return GpuStatus(True, f"CUDA error: {e} (after a launch error the CUDA context may be "
                               "unusable: restart the kernel / process)", "launch_error", rt.name)
    return GpuStatus(True, f"{name}: {e}", "error", rt.name)


def _public(fn):
    """Entry point wrapper: no GPU -> the status; any failure -> a GpuStatus, never a raise."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        rt = _runtime()
        if isinstance(rt, GpuStatus):
            return rt
        try:
            return fn(rt, *args, **kwargs)
        except Exception as e:  # noqa: BLE001 - the point is that nothing escapes
            return _classify(rt, e)

    sig = inspect.signature(fn)
    wrapper.__signature__ = sig.replace(parameters=list(sig.parameters.values())[1:])
    return wrapper


# --------------------------------------------------------------------------------------
# Status and device
# --------------------------------------------------------------------------------------
def status() -> GpuStatus:
    """``GpuStatus(available=True, kind="ok", device=...)`` or why there is no GPU."""
    try:
        rt = _runtime()
    except Exception as e:  # pragma: no cover - _runtime already catches
        return GpuStatus(False, f"no GPU: {type(e).__name__}: {e}")
    if isinstance(rt, GpuStatus):
        return rt
    major, minor = rt.props.get("major"), rt.props.get("minor")
    return GpuStatus(True, f"{rt.name} (compute capability {major}.{minor})", "ok", rt.name)


def _fmt_cuda_version(v: int | None) -> str | None:
    if not v:
        return None
    return f"{v // 1000}.{(v % 1000) // 10}"


def _nvidia_smi_driver() -> str | None:
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=10)
        return out.stdout.strip().splitlines()[0] if out.returncode == 0 and out.stdout else None
    except Exception:
        return None


@dataclass(frozen=True)
class DeviceInfo:
    name: str
    compute_capability: str
    sm_count: int
    l2_bytes: int
    memory_bytes: int
    limits: dict  # per-block and per-SM limits, CUDA's names in the comments of device_info
    versions: dict

    ok = True

    def to_dict(self) -> dict:
        return asdict(self)


@_public
def device_info(rt: _Runtime) -> DeviceInfo:
    """The device, its limits (threads, shared memory, registers per block and per SM) and
    the driver / CUDA runtime / NVRTC / CuPy / numpy versions."""
    cp, p = rt.cp, rt.props
    limits = {
        "max_threads_per_block": p.get("maxThreadsPerBlock"),
        "max_threads_per_sm": p.get("maxThreadsPerMultiProcessor"),
        "max_blocks_per_sm": p.get("maxBlocksPerMultiProcessor"),
        "warp_size": p.get("warpSize"),
        "shared_per_block": p.get("sharedMemPerBlock"),
        "shared_per_block_optin": p.get("sharedMemPerBlockOptin"),
        "shared_per_sm": p.get("sharedMemPerMultiprocessor"),
        "regs_per_block": p.get("regsPerBlock"),
        "regs_per_sm": p.get("regsPerMultiprocessor"),
    }
    versions = {"cupy": cp.__version__, "numpy": np.__version__}
    for key, getter in (("cuda_driver_api", cp.cuda.runtime.driverGetVersion),
                        ("cuda_runtime", cp.cuda.runtime.runtimeGetVersion)):
        try:
            versions[key] = _fmt_cuda_version(getter())
        except Exception:
            versions[key] = None
    try:
        major, minor = cp.cuda.nvrtc.getVersion()
        versions["nvrtc"] = f"{major}.{minor}"
    except Exception:
        versions["nvrtc"] = None
    versions["driver"] = _nvidia_smi_driver()
    return DeviceInfo(
        name=rt.name,
        compute_capability=f"{p.get('major')}.{p.get('minor')}",
        sm_count=int(p.get("multiProcessorCount") or 0),
        l2_bytes=int(p.get("l2CacheSize") or 0),
        memory_bytes=int(p.get("totalGlobalMem") or 0),
        limits=limits,
        versions=versions,
    )


# --------------------------------------------------------------------------------------
# Kernel resources and occupancy
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class KernelInfo:
    kernel: str
    tile: int
    expression: str
    registers: int  # per thread (num_regs)
    static_shared_bytes: int  # __shared__ arrays (shared_size_bytes)
    dynamic_shared_bytes: int  # passed at launch
    local_bytes: int  # spills and local arrays (local_size_bytes)
    max_threads_per_block: int  # what this kernel can launch with (its registers allow)
    blocks_per_sm: int  # live: cuOccupancyMaxActiveBlocksPerMultiprocessor
    warps_per_sm: int
    occupancy: float  # resident warps / the SM's maximum

    ok = True

    def to_dict(self) -> dict:
        return asdict(self)


def _kernel_info(rt: _Runtime, cfg: LaunchConfig) -> KernelInfo:
    kern = rt.kernel(cfg)
    attrs = kern.attributes
    threads = cfg.threads_per_block
    try:
        blocks = int(rt.cp.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(
            kern.kernel.ptr, threads, cfg.dynamic_shared_bytes))
    except Exception:
        blocks = -1
    warps_per_block = -(-threads // int(rt.props.get("warpSize") or 32))
    warps = blocks * warps_per_block if blocks >= 0 else -1
    max_warps = int(rt.props.get("maxThreadsPerMultiProcessor") or 2048) // 32
    return KernelInfo(
        kernel=cfg.kernel, tile=cfg.tile, expression=cfg.expression,
        registers=int(attrs.get("num_regs", -1)),
        static_shared_bytes=int(attrs.get("shared_size_bytes", -1)),
        dynamic_shared_bytes=cfg.dynamic_shared_bytes,
        local_bytes=int(attrs.get("local_size_bytes", -1)),
        max_threads_per_block=int(attrs.get("max_threads_per_block", -1)),
        blocks_per_sm=blocks, warps_per_sm=warps,
        occupancy=warps / max_warps if warps >= 0 else float("nan"),
    )


@_public
def kernel_info(rt: _Runtime, kernel: str, tile: int = 16) -> KernelInfo:
    """Registers, shared bytes, local bytes of ``kernel`` at ``tile`` and its live occupancy."""
    spec = _spec(kernel)
    r = spec.ladder
    cfg = (launch_config(kernel, r.BM, r.BN, r.BK) if r
           else launch_config(kernel, tile, tile, tile, tile))
    why = refusal(cfg, rt.limits)
    if why:
        raise _Refused(why)
    return _kernel_info(rt, cfg)


@_public
def compile_kernels(rt: _Runtime, trace: bool = False) -> dict:
    """Compile every kernel file (timed or trace build); ``{kernel: "ok"}`` or a GpuStatus
    carrying the first compiler log."""
    for spec in _SPECS:
        rt.module(spec, trace)
    return {spec.name: "ok" for spec in _SPECS}


# --------------------------------------------------------------------------------------
# Problems: inputs on the device, the float64 reference on the host
# --------------------------------------------------------------------------------------
class _Problem:
    """Random, non-symmetric inputs in [-1, 1) (fresh per seed), C, and the numpy float64
    reference, computed once."""

    def __init__(self, rt: _Runtime, M: int, N: int, K: int, seed: int = 0):
        cp = rt.cp
        rng = np.random.default_rng(seed)
        self.M, self.N, self.K = M, N, K
        self.A_host = rng.uniform(-1.0, 1.0, (M, K)).astype(np.float32)
        self.B_host = rng.uniform(-1.0, 1.0, (K, N)).astype(np.float32)
        self.A = cp.asarray(self.A_host)
        self.B = cp.asarray(self.B_host)
        self.C = cp.empty((M, N), dtype=cp.float32)
        self._ref = None

    @property
    def reference(self) -> np.ndarray:
        if self._ref is None:
            self._ref = self.A_host.astype(np.float64) @ self.B_host.astype(np.float64)
        return self._ref

    def release(self, rt: _Runtime):
        self.A = self.B = self.C = None
        rt.cp.get_default_memory_pool().free_all_blocks()


def _launch(rt: _Runtime, kern, cfg: LaunchConfig, A, B, C) -> None:
    np32 = np.int32
    kern(cfg.grid[:2], cfg.block[:2], (A, B, C, np32(cfg.M), np32(cfg.N), np32(cfg.K)),
         shared_mem=cfg.dynamic_shared_bytes)


def _compare(out: np.ndarray, ref: np.ndarray) -> dict:
    finite = np.isfinite(out)
    unwritten = int(out.size - np.count_nonzero(finite))
    ref_norm = float(np.linalg.norm(ref))
    diff = out.astype(np.float64) - ref
    rel = float(np.linalg.norm(diff) / ref_norm) if ref_norm > 0 else float(np.linalg.norm(diff))
    max_abs = float(np.max(np.abs(diff))) if out.size else 0.0
    return {"rel_error": rel, "max_abs_error": max_abs, "all_written": unwritten == 0,
            "unwritten": unwritten}


@dataclass(frozen=True)
class CheckResult:
    kernel: str
    M: int
    N: int
    K: int
    tile: int
    rel_error: float  # ||out - ref|| / ||ref||, Frobenius, against numpy float64 (NaN if unwritten)
    max_abs_error: float
    all_written: bool  # C was NaN-poisoned before the run: every element was stored
    unwritten: int
    tol: float
    seed: int

    ok = True

    @property
    def passed(self) -> bool:
        return self.all_written and self.rel_error <= self.tol

    def to_dict(self) -> dict:
        return {**asdict(self), "passed": self.passed}


def _check_on(rt: _Runtime, cfg: LaunchConfig, prob: _Problem, trace: bool = False, kern=None):
    kern = kern or rt.kernel(cfg, trace)
    prob.C.fill(np.nan)  # poison: an element no thread stores stays NaN
    _launch(rt, kern, cfg, prob.A, prob.B, prob.C)
    rt.cp.cuda.Device().synchronize()
    return _compare(prob.C.get(), prob.reference)


#: float32 against float64 with K up to a few thousand lands far below this; TF32 (~3e-4) or a
#: wrong index (~1) do not.
DEFAULT_TOL = 1e-4


@_public
def check(rt: _Runtime, kernel: str, M: int, N: int, K: int, tile: int = 16, *,
          seed: int = 0, tol: float = DEFAULT_TOL) -> CheckResult:
    """Run ``kernel`` once on random non-symmetric inputs with C poisoned by NaN and compare
    with numpy float64: relative error and whether every element of C was written."""
    cfg = launch_config(kernel, M, N, K, tile)
    rt.check_fits(cfg)
    prob = _Problem(rt, cfg.M, cfg.N, cfg.K, seed)
    try:
        r = _check_on(rt, cfg, prob)
    finally:
        prob.release(rt)
    return CheckResult(kernel, cfg.M, cfg.N, cfg.K, cfg.tile, r["rel_error"],
                       r["max_abs_error"], r["all_written"], r["unwritten"], tol, seed)


@_public
def matmul(rt: _Runtime, kernel: str, A, B, tile: int = 16) -> np.ndarray:
    """C = A @ B computed by ``kernel`` on the GPU (float32), for the pages' demo matrices."""
    A = np.ascontiguousarray(A, dtype=np.float32)
    B = np.ascontiguousarray(B, dtype=np.float32)
    if A.ndim != 2 or B.ndim != 2 or A.shape[1] != B.shape[0]:
        raise ValueError(f"shapes {A.shape} and {B.shape} do not multiply")
    cfg = launch_config(kernel, A.shape[0], B.shape[1], A.shape[1], tile)
    rt.check_fits(cfg)
    cp = rt.cp
    dA, dB = cp.asarray(A), cp.asarray(B)
    dC = cp.full((cfg.M, cfg.N), np.nan, dtype=cp.float32)
    _launch(rt, rt.kernel(cfg), cfg, dA, dB, dC)
    return dC.get()


# --------------------------------------------------------------------------------------
# Traces: what the -DEXPLAINER_TRACE build recorded
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class KernelTrace:
    """What the kernel itself recorded (layout in kernels/common.cuh).

    Without ``blocks``: ``a``, ``b`` have shape (gy, gx, phases, T, T) indexed
    [by, bx, t, ty, tx] and ``c`` (gy, gx, T, T). For a ladder kernel ``a``/``b`` are
    (gy, gx, phases, slots) indexed by shared slot and ``c`` (gy, gx, threads, outputs per
    thread), as :func:`explainer.ladder.predict_trace` predicts them. With ``blocks=[(bx, by), ...]`` the first two
    axes become one axis over the listed blocks. ``a``/``b`` hold ``r*K + c`` / ``r*N + c`` or -1
    (padding zero); ``c`` holds ``row*N + col`` or -2 (never written). The naive kernels record
    ``c`` only (``a`` and ``b`` are ``None``).
    """

    config: LaunchConfig
    a: np.ndarray | None
    b: np.ndarray | None
    c: np.ndarray
    blocks: tuple[tuple[int, int], ...] | None
    rel_error: float  # the trace build's C against numpy float64
    all_written: bool

    ok = True


def _set_pointer(rt: _Runtime, mod, name: str, ptr: int) -> None:
    cp = rt.cp
    slot = cp.ndarray((1,), dtype=cp.uint64, memptr=mod.get_global(name))
    slot[...] = cp.asarray(np.array([ptr], dtype=np.uint64))


@_public
def trace(rt: _Runtime, kernel: str, M: int, N: int, K: int, tile: int = 16, *,
          blocks=None, seed: int = 0) -> KernelTrace:
    """Launch the trace build of ``kernel`` once and return its recorded shared and C stores.

    ``blocks``: optional list of ``(blockIdx.x, blockIdx.y)`` to return (the whole launch is
    recorded on the device either way; only those blocks come back to the host).
    """
    cfg = launch_config(kernel, M, N, K, tile)
    spec = KERNELS[kernel]
    cp = rt.cp
    gx, gy, _ = cfg.grid
    T, P = cfg.tile, cfg.phases
    if spec.rung:  # by shared slot and by output (explainer.ladder.predict_trace's layout)
        r = spec.ladder
        shape_a, shape_b = (gy, gx, P, r.slots_a), (gy, gx, P, r.slots_b)
        shape_c = (gy, gx, r.threads, r.outputs_per_thread)
    else:
        shape_a = shape_b = (gy, gx, P, T, T) if spec.traces_tiles else None
        shape_c = (gy, gx, T, T)
    n_a = int(np.prod(shape_a)) if shape_a else 0
    n_b = int(np.prod(shape_b)) if shape_b else 0
    n_c = int(np.prod(shape_c))
    rt.check_fits(cfg, extra_bytes=4 * (n_a + n_b + n_c))
    if blocks is not None:
        blocks = tuple((int(bx), int(by)) for bx, by in blocks)
        for bx, by in blocks:
            if not (0 <= bx < gx and 0 <= by < gy):
                raise ValueError(f"block (x={bx}, y={by}) is outside the {gx}x{gy} grid")

    mod = rt.module(spec, trace=True)
    kern = mod.get_function(cfg.expression)
    buf_c = cp.full(n_c, NEVER_WRITTEN, dtype=cp.int32)
    buf_a = cp.full(n_a, NEVER_WRITTEN, dtype=cp.int32) if n_a else None
    buf_b = cp.full(n_b, NEVER_WRITTEN, dtype=cp.int32) if n_b else None
    _set_pointer(rt, mod, "g_trace_c", buf_c.data.ptr)
    _set_pointer(rt, mod, "g_trace_a", buf_a.data.ptr if n_a else 0)
    _set_pointer(rt, mod, "g_trace_b", buf_b.data.ptr if n_b else 0)
    prob = _Problem(rt, cfg.M, cfg.N, cfg.K, seed)
    try:
        r = _check_on(rt, cfg, prob, kern=kern)
    finally:
        prob.release(rt)

    def pick(buf, shape):
        if buf is None:
            return None
        arr = buf.reshape(shape)
        if blocks is None:
            return arr.get()
        by = cp.asarray([b[1] for b in blocks])
        bx = cp.asarray([b[0] for b in blocks])
        return arr[by, bx].get()

    out = KernelTrace(
        config=cfg,
        a=pick(buf_a, shape_a),
        b=pick(buf_b, shape_b),
        c=pick(buf_c, shape_c),
        blocks=blocks, rel_error=r["rel_error"], all_written=r["all_written"],
    )
    _set_pointer(rt, mod, "g_trace_a", 0)
    _set_pointer(rt, mod, "g_trace_b", 0)
    _set_pointer(rt, mod, "g_trace_c", 0)
    return out


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
        d.update(self.extra)
        return d


DEFAULT_REPEATS = 20
DEFAULT_WARMUP = 2
DEFAULT_BUDGET_S = 2.0
MIN_REPEATS = 3


def _time_loop(rt: _Runtime, fn, *, repeats: int, warmup: int, budget_s: float,
               flush_l2: bool) -> tuple[list[float], bool]:
    cp = rt.cp
    start, end = cp.cuda.Event(), cp.cuda.Event()

    def once() -> float:
        if flush_l2:
            rt.flush_l2()
        start.record()
        fn()
        end.record()
        end.synchronize()
        return cp.cuda.get_elapsed_time(start, end)

    warm = [once() for _ in range(max(1, warmup))]
    per_launch_s = max(min(warm), 1e-6) * 1e-3
    affordable = int(budget_s / per_launch_s)
    n = max(MIN_REPEATS, min(int(repeats), affordable))
    return [once() for _ in range(n)], n < repeats


#: Seconds of cuBLAS work before a benchmark's first timing: an idle H100 sits at ~350 MHz and
#: needs a moment to reach its boost clock (seen 2026-11-22: cuBLAS 2.75 ms cold, 2.66 ms warm).
SPIN_UP_S = 1.0


def _spin_up(rt: _Runtime, prob, seconds: float = SPIN_UP_S) -> float:
    """Keep the GPU busy with cuBLAS for ``seconds`` (wall clock), so that the timings that
    follow run at the clock the GPU holds under load. Returns the seconds spent."""
    cp = rt.cp
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        for _ in range(4):
            cp.matmul(prob.A, prob.B, out=prob.C)
        cp.cuda.Device().synchronize()
    return time.perf_counter() - t0


def _time_kernel_on(rt, cfg, prob, *, repeats, warmup, budget_s, flush_l2, cublas_ms=None):
    kern = rt.kernel(cfg)
    times, cut = _time_loop(
        rt, lambda: _launch(rt, kern, cfg, prob.A, prob.B, prob.C),
        repeats=repeats, warmup=warmup, budget_s=budget_s, flush_l2=flush_l2)
    return Timing(cfg.kernel, cfg.M, cfg.N, cfg.K, cfg.tile, tuple(times), warmup, flush_l2,
                  budget_s, cut, cublas_ms)


def _time_cublas_on(rt, prob, *, repeats, warmup, budget_s, flush_l2):
    tf32 = rt.tf32_off()
    cp = rt.cp
    times, cut = _time_loop(rt, lambda: cp.matmul(prob.A, prob.B, out=prob.C),
                            repeats=repeats, warmup=warmup, budget_s=budget_s,
                            flush_l2=flush_l2)
    prob.C.fill(np.nan)
    cp.matmul(prob.A, prob.B, out=prob.C)
    cp.cuda.Device().synchronize()
    err = _compare(prob.C.get(), prob.reference)
    return Timing("cublas", prob.M, prob.N, prob.K, None, tuple(times), warmup, flush_l2,
                  budget_s, cut, None,
                  {"rel_error": err["rel_error"], "all_written": err["all_written"],
                   "tf32": tf32.get("tf32")})


@_public
def time_kernel(rt: _Runtime, kernel: str, M: int, N: int, K: int, tile: int = 16, *,
                repeats: int = DEFAULT_REPEATS, warmup: int = DEFAULT_WARMUP,
                budget_s: float = DEFAULT_BUDGET_S, flush_l2: bool = True,
                compare_cublas: bool = True, seed: int = 0) -> Timing:
    """Time ``kernel`` with CUDA events: ``warmup`` launches, then up to ``repeats`` (at least
    3, fewer than asked when they would take more than ``budget_s``). With
    ``compare_cublas`` cuBLAS (FP32, TF32 off) is timed on the same inputs first."""
    cfg = launch_config(kernel, M, N, K, tile)
    rt.check_fits(cfg)
    prob = _Problem(rt, cfg.M, cfg.N, cfg.K, seed)
    try:
        cub = None
        if compare_cublas:
            cub = _time_cublas_on(rt, prob, repeats=repeats, warmup=warmup,
                                  budget_s=budget_s, flush_l2=flush_l2).median_ms
        return _time_kernel_on(rt, cfg, prob, repeats=repeats, warmup=warmup,
                               budget_s=budget_s, flush_l2=flush_l2, cublas_ms=cub)
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
    results: list = field(default_factory=list)  # one dict per kernel x size x tile
    errors: list = field(default_factory=list)  # {"kernel", "M", "N", "K", "tile", "kind", "message"}

    ok = True

    def to_dict(self) -> dict:
        return {"device": self.device, "date": self.date, "settings": self.settings,
                "cublas": self.cublas, "results": self.results, "errors": self.errors}


def _parse_size(size) -> tuple[int, int, int]:
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
    """Check and time every kernel x size x tile, with cuBLAS per size, in one run.

    A refused or failed configuration goes to ``report.errors`` and the run goes on; after a
    launch error (the CUDA context may be broken) it stops, keeping what it measured.
    ``progress(kind, row)`` is called after each row (kind: "cublas", "result" or "error").
    """
    kernels = list(kernels or KERNEL_NAMES)
    for k in kernels:
        _spec(k)
    shapes = [_parse_size(s) for s in sizes]
    dev = device_info()
    report = BenchReport(
        device=dev.to_dict() if isinstance(dev, DeviceInfo) else {"name": rt.name},
        date=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        settings={"repeats": repeats, "warmup": warmup, "budget_s": budget_s,
                  "flush_l2": flush_l2, "seed": seed, "inputs": "uniform [-1, 1) float32",
                  "reference": "numpy float64", "timer": "CUDA events, one launch per event pair",
                  "cublas": "cupy.matmul float32", "tf32": rt.tf32_off(),
                  "spin_up_s": SPIN_UP_S},
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
            if shape == shapes[0] and SPIN_UP_S > 0:
                _spin_up(rt, prob)
            cub = _time_cublas_on(rt, prob, repeats=repeats, warmup=warmup, budget_s=budget_s,
                                  flush_l2=flush_l2)
            report.cublas.append(cub.to_dict())
            note("cublas", report.cublas[-1])
        except Exception as e:
            st = _classify(rt, e)
            fail("cublas", shape, None, st)
            if prob is not None:
                prob.release(rt)
            if st.kind == "launch_error":
                return report
            continue
        for kernel in kernels:
            for tile in ((None,) if KERNELS[kernel].rung else tiles):
                try:
                    cfg = launch_config(kernel, M, N, K, tile)
                    rt.check_fits(cfg)
                    chk = _check_on(rt, cfg, prob)
                    tm = _time_kernel_on(rt, cfg, prob, repeats=repeats, warmup=warmup,
                                         budget_s=budget_s, flush_l2=flush_l2,
                                         cublas_ms=cub.median_ms)
                    info = _kernel_info(rt, cfg)
                except Exception as e:
                    st = _classify(rt, e)
                    fail(kernel, shape, tile, st)
                    if st.kind == "launch_error":
                        prob.release(rt)
                        return report
                    continue
                row = tm.to_dict()
                row.update(rel_error=chk["rel_error"], all_written=chk["all_written"],
                           passed=bool(chk["all_written"] and chk["rel_error"] <= DEFAULT_TOL),
                           registers=info.registers,
                           shared_bytes=info.static_shared_bytes + info.dynamic_shared_bytes,
                           blocks_per_sm=info.blocks_per_sm, occupancy=info.occupancy)
                report.results.append(row)
                note("result", row)
        prob.release(rt)
    return report


def gflops(M: int, N: int, K: int, ms: float) -> float:
    return 2.0 * M * N * K / (ms * 1e-3) / 1e9


__all__ = [
    "KERNELS", "KERNEL_NAMES", "KERNELS_DIR", "KernelSpec", "LaunchConfig", "launch_config",
    "refusal", "GpuStatus", "status", "DeviceInfo", "device_info", "KernelInfo", "kernel_info",
    "compile_kernels", "CheckResult", "check", "matmul", "KernelTrace", "trace", "Timing",
    "time_kernel", "time_cublas", "BenchReport", "benchmark", "gflops",
]
