"""The GPU runtime: CuPy, the device and the compiled modules (created on first use, once per
process), the values returned instead of exceptions (:class:`GpuStatus`), the device's facts
and each kernel's resources and occupancy.

Every public entry point of :mod:`explainer.gpu` is wrapped by :func:`_public`: no GPU -> the
status; any failure -> a ``GpuStatus`` with a one-paragraph reason, never a raise.
"""

from __future__ import annotations

import functools
import inspect
import os
import re
import subprocess
from dataclasses import asdict, dataclass

import numpy as np

from ..i18n import N_, _, fill
from .launch import COMPILE_OPTIONS, KERNELS, KERNELS_DIR, HOLD_SPEC, PAD_SPEC, REDUCE_SPEC, KernelSpec, LaunchConfig, NO_GPU_ENV, TRACE_DEFINE, _SPECS, _spec, launch_config, refusal

#: :meth:`_Runtime.module`'s default: every instantiation the spec lists.
ALL = object()

# --------------------------------------------------------------------------------------
# Values returned instead of exceptions
# --------------------------------------------------------------------------------------
NO_GPU = "no GPU: "
#: Why there is no GPU (a reason is NO_GPU + one of these, filled): English in the reason (the CLI
#: prints it), in the reader's language in :attr:`GpuStatus.why` (what a page shows).
DISABLED = N_("disabled by {setting}")
NO_CUPY = N_("cupy is not installed (pip install cupy-cuda13x, or cupy-cuda12x on a CUDA 12 driver)")
CUPY_BROKEN = N_("cupy failed to import ({error})")
NO_DEVICE = N_("CUDA reports no device")
NOT_USABLE = N_("the CUDA driver or device is not usable ({error})")
NO_GPU_WHY = (DISABLED, NO_CUPY, CUPY_BROKEN, NO_DEVICE, NOT_USABLE)


def _no_gpu(msgid: str, **fields) -> "GpuStatus":
    return GpuStatus(False, NO_GPU + fill(msgid, fields))


def _why_words(why: str) -> str:
    """``why`` (English, one of :data:`NO_GPU_WHY` filled) in the reader's language; else as it is."""
    for msgid in NO_GPU_WHY:
        parts = re.split(r"\{(\w+)\}", msgid)  # text, field, text, ...
        pattern = "".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>.*)" for i, p in enumerate(parts))
        m = re.fullmatch(pattern, why, re.DOTALL)
        if m:
            return _(msgid, **m.groupdict())
    return why


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

    @property
    def why(self) -> str:
        """The reason without its leading "no GPU: ", for a sentence that says "No GPU here" itself
        (in the reader's language: a page shows it)."""
        return _why_words(self.reason.removeprefix(NO_GPU)) if self.reason.startswith(NO_GPU) else self.reason

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
        self.modules: dict[tuple, object] = {}
        self._flush = None
        self._tf32 = None
        self.last_busy: float | None = None  # time.perf_counter() when timed GPU work last ended
        self._split_w = None  # split-K's workspace (floats) and its tile counters, grown on demand
        self._split_done = None
        self._hold = None  # kernels/hold.cu, compiled on first use
        self._pad = {}  # a padded launch's copies of A and B (kernels/tuned/pad_rows.cu), by role, grown on demand
        self.dynamic_allowed: dict[int, int] = {}  # CUfunction -> dynamic shared bytes it may take
        self.tensor_maps: dict[tuple, object] = {}  # kernel 17's TMA maps (gpu/hopper.py)

    # -- compiling ---------------------------------------------------------------------
    #: How many instantiations :meth:`prepare` compiles at once (NVRTC runs outside Python's lock).
    COMPILE_THREADS = min(8, os.cpu_count() or 1)

    def module(self, spec: KernelSpec, trace: bool, expressions=ALL):
        """The compiled module of ``spec``'s file holding ``expressions`` (template instantiations;
        by default every one the spec lists, :func:`compile_kernels`'s). A launch compiles only
        its own instantiation (:meth:`kernel`): a file's others are not built until used."""
        names = tuple(spec.name_expressions or ()) if expressions is ALL else tuple(expressions or ())
        key = (spec.file, trace, names)
        if key in self.modules:
            return self.modules[key]
        cp = self.cp
        path = KERNELS_DIR / spec.file
        try:
            source = path.read_text()
        except OSError as e:
            raise _Refused(f"cannot read {path}: {e}", "compile_error") from None
        # a file in a sub-folder (kernels/tuned/) includes its own header first, then kernels/'s
        folders = dict.fromkeys((path.parent, KERNELS_DIR))
        options = COMPILE_OPTIONS + tuple(f"-I{d}" for d in folders) + ((TRACE_DEFINE,) if trace else ())
        try:
            if spec.arch:  # kernel 17: NVRTC straight, for sm_90a (RawModule would add -arch=sm_90)
                from . import hopper
                mod = hopper.compile_sm90a(self, path, source, options)
            else:
                mod = cp.RawModule(code=source, options=options, name_expressions=list(names) or None)
                mod.compile()  # now, so that errors surface here with their log
        except Exception as e:
            log = e.get_message() if hasattr(e, "get_message") else str(e)
            build = "trace build (-DEXPLAINER_TRACE)" if trace else "timed build"
            target = f" for {spec.arch}" if spec.arch else ""
            raise _Refused(
                f"compiling kernels/{spec.file}{target} ({build}, options {' '.join(options)}) failed:\n"
                f"{log}", "compile_error") from None
        self.modules[key] = mod
        return mod

    def module_for(self, cfg: LaunchConfig, trace: bool = False):
        """The module holding the one instantiation that runs ``cfg`` here (a file without
        templates: the whole file)."""
        spec = KERNELS[cfg.kernel]
        return self.module(spec, trace, (cfg.on_device(self.sm_count),) if spec.name_expressions else None)

    def built(self, cfg: LaunchConfig, trace: bool = False) -> bool:
        """Whether the instantiation that runs ``cfg`` here is compiled in this process already."""
        spec = KERNELS[cfg.kernel]
        names = (cfg.on_device(self.sm_count),) if spec.name_expressions else ()
        return (spec.file, trace, names) in self.modules

    def kernel(self, cfg: LaunchConfig, trace: bool = False):
        """The compiled function that runs ``cfg`` here (``LaunchConfig.on_device``)."""
        return self.module_for(cfg, trace).get_function(cfg.on_device(self.sm_count))

    def prepare(self, cfgs, trace: bool = False) -> int:
        """Compile the instantiations that run ``cfgs`` (and ``+reduce`` / ``+pad`` launches'
        helper kernels), up to :attr:`COMPILE_THREADS` at once; returns how many were built now.
        A failure is left for the launch that needs it to report."""
        from concurrent.futures import ThreadPoolExecutor

        jobs = {}
        for cfg in cfgs:
            spec = KERNELS[cfg.kernel]
            names = (cfg.on_device(self.sm_count),) if spec.name_expressions else None
            jobs[(spec.file, trace, names or ())] = (spec, names)
            if cfg.reduce:
                jobs[(REDUCE_SPEC.file, False, ())] = (REDUCE_SPEC, ALL)
            if cfg.pad:
                jobs[(PAD_SPEC.file, False, ())] = (PAD_SPEC, ALL)
        todo = [(spec, names) for key, (spec, names) in jobs.items() if key not in self.modules]

        def build(job):
            spec, names = job
            try:
                self.module(spec, trace if spec not in (REDUCE_SPEC, PAD_SPEC) else False, names)
            except _Refused:
                pass

        if len(todo) > 1 and self.COMPILE_THREADS > 1:
            with ThreadPoolExecutor(self.COMPILE_THREADS) as pool:
                list(pool.map(build, todo))
        else:
            for job in todo:
                build(job)
        return len(todo)

    @property
    def sm_count(self) -> int:
        return int(self.props.get("multiProcessorCount") or 0)

    #: Dynamic shared memory a kernel may take without asking for more.
    DEFAULT_DYNAMIC_LIMIT = 48 * 1024

    def allow_dynamic(self, kern, need: int) -> None:
        """Let ``kern`` take ``need`` bytes of dynamic shared memory (above 48 KiB a kernel must
        ask: cudaFuncAttributeMaxDynamicSharedMemorySize); once per kernel and size."""
        if need <= self.DEFAULT_DYNAMIC_LIMIT:
            return
        # keyed by the CUDA function itself: the attribute belongs to it, whichever Python object
        # wraps it (an id() of a wrapper can be reused by another kernel's once it is freed)
        key = int(getattr(getattr(kern, "kernel", None), "ptr", 0)) or id(kern)
        if self.dynamic_allowed.get(key, 0) < need:
            kern.max_dynamic_shared_size_bytes = need
            self.dynamic_allowed[key] = need

    # -- device limits -----------------------------------------------------------------
    @property
    def limits(self) -> dict:
        p = self.props
        return {
            "shared_per_block": p.get("sharedMemPerBlock"),
            "shared_per_block_optin": p.get("sharedMemPerBlockOptin"),
            "max_threads_per_block": p.get("maxThreadsPerBlock"),
            "compute_capability": f"{p.get('major')}.{p.get('minor')}",
        }

    def check_fits(self, cfg: LaunchConfig, extra_bytes: int = 0) -> None:
        why = refusal(cfg, self.limits)
        if why:
            raise _Refused(why)
        free, total = self.free_bytes()
        need = cfg.bytes_in_out + extra_bytes
        if cfg.workspace_floats and (self._split_w is None or self._split_w.size < cfg.workspace_floats):
            need += 4 * cfg.workspace_floats
        for role, n in zip("AB", cfg.pad_floats):
            if n and (role not in self._pad or self._pad[role].size < n):
                need += 4 * n
        if need > free:
            raise _Refused(
                f"out of memory: {cfg.M}x{cfg.N}x{cfg.K} needs {need / 2**20:.0f} MiB on the GPU "
                f"and {free / 2**20:.0f} MiB of {total / 2**20:.0f} MiB are free",
                "out_of_memory")

    def split_workspace(self, cfg: LaunchConfig) -> tuple:
        """(W, tiles_done) for a split-K launch: at least ``cfg.workspace_floats`` floats of
        partial sums and one zeroed counter per tile of C (kernel 14 leaves them zero again).
        Kept between launches, like cuBLAS's workspace, and grown when a launch needs more."""
        cp = self.cp
        if self._split_w is None or self._split_w.size < cfg.workspace_floats:
            self._split_w = None
            self._split_w = cp.empty(cfg.workspace_floats, dtype=cp.float32)
        if self._split_done is None or self._split_done.size < cfg.tiles:
            self._split_done = cp.zeros(cfg.tiles, dtype=cp.int32)
        return self._split_w, self._split_done

    def pad_buffers(self, cfg: LaunchConfig) -> tuple:
        """The padded copies of A and B a ``cfg.pad`` launch reads (``None`` where that matrix is
        used as it is), flat, ``cfg.pad_floats`` long; kept between launches and grown on demand,
        like the split-K workspace. Every launch writes them whole (kernels/tuned/pad_rows.cu)."""
        cp = self.cp
        out = []
        for role, n in zip("AB", cfg.pad_floats):
            if not n:
                out.append(None)
                continue
            if role not in self._pad or self._pad[role].size < n:
                self._pad.pop(role, None)
                self._pad[role] = cp.empty(n, dtype=cp.float32)
            out.append(self._pad[role][:n])
        return tuple(out)

    def hold(self, us: float) -> None:
        """Keep the stream busy for ``us`` microseconds (kernels/hold.cu): what is enqueued next
        waits behind it. The timing harness holds the stream before each start event."""
        if self._hold is None:
            self._hold = self.module(HOLD_SPEC, False).get_function("hold")
        self._hold((1,), (1,), (np.int64(us * 1000),))

    def reduce_kernel(self):
        """splitk_reduce of kernels/tuned/splitk_reduce.cu (a ``+reduce`` launch's second kernel), compiled
        once (:meth:`module`)."""
        return self.module(REDUCE_SPEC, False).get_function("splitk_reduce")

    def pad_kernel(self):
        """pad_rows of kernels/tuned/pad_rows.cu (a ``+pad`` launch's copies), compiled once (:meth:`module`)."""
        return self.module(PAD_SPEC, False).get_function("pad_rows")

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

    def cublas_tf32(self, on: bool) -> None:
        """Switch cupy.matmul on float32 to TF32 (CUBLAS_COMPUTE_32F_FAST_TF32) or back to FP32:
        the reference for the tensor-core kernels (CuPy 14's per-dtype compute type)."""
        from cupy._core import _routines_linalg as rl

        self.tf32_off()
        rl.set_compute_type(np.float32, rl.COMPUTE_TYPE_TF32 if on else rl.COMPUTE_TYPE_DEFAULT)

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
        return _no_gpu(DISABLED, setting=f"{NO_GPU_ENV}={os.environ[NO_GPU_ENV]}")
    if _RUNTIME is not None:
        return _RUNTIME
    try:
        import cupy as cp
    except ImportError:
        _RUNTIME = _no_gpu(NO_CUPY)
        return _RUNTIME
    except Exception as e:
        _RUNTIME = _no_gpu(CUPY_BROKEN, error=f"{type(e).__name__}: {e}")
        return _RUNTIME
    try:
        n = cp.cuda.runtime.getDeviceCount()
        if n < 1:
            _RUNTIME = _no_gpu(NO_DEVICE)
            return _RUNTIME
        dev = cp.cuda.Device().id
        _RUNTIME = _Runtime(cp, dev)
    except Exception as e:
        _RUNTIME = _no_gpu(NOT_USABLE, error=f"{type(e).__name__}: {e}")
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
        sm_count=rt.sm_count,
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
    rt.allow_dynamic(kern, cfg.dynamic_shared_bytes)
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
        kernel=cfg.kernel, tile=cfg.tile, expression=cfg.on_device(rt.sm_count),
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


