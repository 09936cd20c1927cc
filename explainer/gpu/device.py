"""Measuring the device behind the roofline (GPU only): copy bandwidth, SM clock, an FMA
throughput kernel and every kernel's resources, written as a recorded-device JSON that
:func:`explainer.model.roofline.load_device_record` reads back (see that module's docstring).

    python -m explainer.gpu.device --save [PATH]
    python -m explainer.gpu.device --probe KERNEL N T   # one launch, e.g. under ncu
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

from ..model.roofline import DEVICE_SCHEMA, RECORDED_DIR, device_roofs

# --------------------------------------------------------------------------------------
# Measuring (GPU only)
# --------------------------------------------------------------------------------------
FMA_SOURCE = r"""
extern "C" __global__ void fma_peak(float* out, int iters, float a, float b)
{
    // 8 independent FMA chains per thread: enough instruction-level parallelism to keep every
    // FP32 lane busy at full occupancy; the result is stored so nothing is optimised away.
    float x0 = threadIdx.x, x1 = x0 + 1, x2 = x0 + 2, x3 = x0 + 3;
    float x4 = x0 + 4, x5 = x0 + 5, x6 = x0 + 6, x7 = x0 + 7;
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int u = 0; u < 4; ++u) {
            x0 = fmaf(x0, a, b); x1 = fmaf(x1, a, b); x2 = fmaf(x2, a, b); x3 = fmaf(x3, a, b);
            x4 = fmaf(x4, a, b); x5 = fmaf(x5, a, b); x6 = fmaf(x6, a, b); x7 = fmaf(x7, a, b);
        }
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7;
}
"""


def _smi(fields: str) -> dict:
    try:
        out = subprocess.run(["nvidia-smi", f"--query-gpu={fields}", "--format=csv,noheader,nounits"],
                             capture_output=True, text=True, timeout=20)
        vals = out.stdout.strip().splitlines()[0].split(", ")
        return dict(zip(fields.split(","), vals))
    except Exception as e:  # noqa: BLE001
        return {"error": f"{type(e).__name__}: {e}"}


def _time_events(cp, fn, repeats: int, warmup: int = 3) -> list[float]:
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop))
    return times


def measure(copy_bytes: int = 2**30, repeats: int = 20) -> dict:
    """Measure the current GPU (raises without one): see the module docstring."""
    import cupy as cp

    from .. import gpu

    info = gpu.device_info()
    if not getattr(info, "ok", False):
        raise RuntimeError(str(info))
    rt = cp.cuda.runtime
    dev = cp.cuda.Device().id
    attr = lambda a: int(rt.deviceGetAttribute(a, dev))  # noqa: E731
    # cudaDevAttrClockRate = 13 (kHz, max boost), MemoryClockRate = 36 (kHz), bus width = 37
    clocks = {"sm_max_mhz": attr(13) / 1000, "mem_mhz": attr(36) / 1000, "bus_bits": attr(37),
              "source": "cudaDeviceGetAttribute(ClockRate, MemoryClockRate, GlobalMemoryBusWidth)"}

    # -- bandwidth: device-to-device copy, bytes read + bytes written ---------------------
    n = copy_bytes // 4
    src = cp.ones(n, dtype=cp.float32)
    dst = cp.empty_like(src)
    t_memcpy = _time_events(cp, lambda: rt.memcpyAsync(dst.data.ptr, src.data.ptr, copy_bytes,
                                                       rt.memcpyDeviceToDevice, 0), repeats)
    t_kernel = _time_events(cp, lambda: cp.copyto(dst, src), repeats)
    med = lambda t: statistics.median(t)  # noqa: E731
    bandwidth = {
        "copy_bytes": copy_bytes,
        "method": "cudaMemcpyAsync device-to-device of copy_bytes; bytes counted = 2 x copy_bytes "
                  "(read + write); CUDA events, median of repeats",
        "copy_gbs": 2 * copy_bytes / (med(t_memcpy) * 1e6),
        "copy_ms": t_memcpy,
        "copy_kernel_gbs": 2 * copy_bytes / (med(t_kernel) * 1e6),
        "copy_kernel_ms": t_kernel,
        "theoretical_gbs": 2 * clocks["mem_mhz"] * 1e6 * clocks["bus_bits"] / 8 / 1e9,
        "theoretical_formula": "2 (double data rate) x memory clock x bus width / 8",
    }
    del src, dst
    cp.get_default_memory_pool().free_all_blocks()

    # -- FP32 throughput: FMA chains at full occupancy; nvidia-smi reads the clock under load --
    kern = cp.RawKernel(FMA_SOURCE, "fma_peak")
    threads, blocks = 256, info.sm_count * 8
    out = cp.empty(threads * blocks, dtype=cp.float32)
    iters = 4096
    args = (out, cp.int32(iters), cp.float32(0.999999), cp.float32(1e-6))
    launch = lambda: kern((blocks,), (threads,), args)  # noqa: E731
    t_fma = _time_events(cp, launch, repeats)
    flop = 2 * 8 * 4 * iters * threads * blocks
    for _ in range(max(1, int(1500 / med(t_fma)))):  # ~1.5 s of queued work
        launch()
    under_load = _smi("clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu")
    cp.cuda.Device().synchronize()
    fma = {"flop_per_launch": flop, "ms": t_fma, "gflops": flop / (med(t_fma) * 1e6),
           "launch": f"{blocks} blocks x {threads} threads, 8 FMA chains x {4 * iters}",
           "smi_under_load": under_load}

    # -- every kernel's resources and the occupancy the driver reports ------------------
    kernels = []
    for name, spec in gpu.KERNELS.items():
        for T in ((8, 16, 32) if spec.takes_tile else (None,)):  # one instantiation otherwise
            ki = gpu.kernel_info(name, T)
            kernels.append(ki.to_dict() if getattr(ki, "ok", False) else
                           {"kernel": name, "tile": T, "error": str(ki)})
    return {
        "schema": DEVICE_SCHEMA,
        "generated": "written by `python -m explainer.model.roofline --save`; regenerate, do not edit",
        "label": f"recorded on {info.name} on {datetime.now(timezone.utc).date().isoformat()}",
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "device": info.to_dict(),
        "clocks": clocks,
        "smi": _smi("name,driver_version,clocks.max.sm,clocks.max.mem,clocks.applications.graphics,"
                    "power.limit,memory.total"),
        "bandwidth": bandwidth,
        "fma": fma,
        "kernels": kernels,
    }


def main(argv: list[str] | None = None) -> int:
    import argparse

    p = argparse.ArgumentParser(prog="python -m explainer.gpu.device", description=__doc__.splitlines()[0])
    p.add_argument("--save", nargs="?", const="", default=None, metavar="PATH")
    p.add_argument("--probe", nargs=3, metavar=("KERNEL", "N", "T"),
                   help="launch one kernel once (N^3, tile T), e.g. under ncu")
    a = p.parse_args(argv)
    if a.probe:
        from .. import gpu

        k, n, t = a.probe[0], int(a.probe[1]), int(a.probe[2])
        print(gpu.check(k, n, n, n, t))
        return 0
    try:
        data = measure()
    except Exception as e:  # noqa: BLE001
        print(f"no measurement: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    text = json.dumps(data, indent=1) + "\n"
    if a.save is None:
        print(text)
        return 0
    target = Path(a.save) if a.save else RECORDED_DIR
    if target.suffix != ".json":
        slug = "".join(c if c.isalnum() else "-" for c in data["device"]["name"].lower())
        target = target / f"device_{slug.strip('-')}_{data['date'][:10]}.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)
    roofs = device_roofs(data)
    print(f"wrote {target}: copy {roofs['bandwidth_gbs']:.0f} GB/s, clock {roofs['clock_mhz']:.0f} MHz, "
          f"FP32 peak {roofs['peak_gflops']:.0f} GFLOP/s, FMA kernel {data['fma']['gflops']:.0f} GFLOP/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
