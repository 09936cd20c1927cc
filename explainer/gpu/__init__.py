"""Launch the real kernels in ``kernels/`` through CuPy: compile, check, trace and time them.

One module per job: :mod:`.launch` (the kernels and their launch geometry, no GPU needed),
:mod:`.runtime` (CuPy, the device, compiled modules, :class:`GpuStatus`), :mod:`.verify`
(check against numpy), :mod:`.traces` (what the trace build recorded), :mod:`.timing` (one
launch timed next to cuBLAS), :mod:`.sweep` (many at once: ``tiled-explainer bench``) and
:mod:`.edges` (the broken teaching kernels). This package re-exports their public calls.

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

from . import launch, runtime, sweep, timing, traces, verify  # noqa: F401  (the submodules, for tests and benchmarks)
from .launch import (KERNEL_NAMES, KERNELS, KERNELS_DIR, BROKEN_KERNEL_NAMES, TENSOR_KERNEL_NAMES, DEFAULT_SIZES, DEFAULT_TILES,  # noqa: F401
                     NO_GPU_ENV, TEMPLATE_TILES, KernelSpec, LaunchConfig, gflops, launch_config, refusal)
from .runtime import (DeviceInfo, GpuStatus, KernelInfo, compile_kernels, device_info, kernel_info,  # noqa: F401
                      status)
from .sweep import BenchReport, benchmark, time_launches  # noqa: F401
from .timing import Timing, time_cublas, time_kernel  # noqa: F401
from .traces import KernelTrace, trace  # noqa: F401
from .verify import CheckResult, check, matmul  # noqa: F401

__all__ = [
    "KERNELS", "KERNEL_NAMES", "TENSOR_KERNEL_NAMES", "KERNELS_DIR", "KernelSpec", "LaunchConfig", "launch_config",
    "refusal", "GpuStatus", "status", "DeviceInfo", "device_info", "KernelInfo", "kernel_info",
    "compile_kernels", "CheckResult", "check", "matmul", "KernelTrace", "trace", "Timing",
    "time_kernel", "time_cublas", "BenchReport", "benchmark", "time_launches", "gflops",
]
