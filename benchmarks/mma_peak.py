"""The mma.sync m16n8k8 TF32 ceiling of this GPU (benchmarks/mma_peak.cu): TFLOP/s with no memory
traffic, over warps per SM and independent accumulators per warp, beside cuBLAS TF32 at 4096^3 in
the same run. The question it answers: how much of cuBLAS TF32 can an mma.sync kernel (15, 16)
reach at all on this GPU?

    python benchmarks/mma_peak.py
"""

from __future__ import annotations

import sys
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explainer import gpu  # noqa: E402
from explainer.gpu import timing  # noqa: E402
from explainer.gpu.verify import _Problem  # noqa: E402

HERE = Path(__file__).resolve().parent


def main() -> int:
    rt = gpu.runtime._runtime()
    if isinstance(rt, gpu.GpuStatus):
        print(rt.reason, file=sys.stderr)
        return 2
    cp = rt.cp
    sms = int(rt.props["multiProcessorCount"])
    print(f"# {rt.name}, {sms} SMs, cupy {cp.__version__}, {datetime.now(timezone.utc).isoformat(timespec='seconds')}")
    prob = _Problem(rt, 4096, 4096, 4096, seed=1)
    tf = timing._time_cublas_on(rt, prob, repeats=20, warmup=2, budget_s=3.0, flush_l2=True, tf32=True)
    print(f"cuBLAS TF32 4096^3: {tf.median_ms:.4f} ms = {2 * 4096**3 / tf.median_ms / 1e9:.1f} TFLOP/s")
    src = (HERE / "mma_peak.cu").read_text()
    start, end = cp.cuda.Event(), cp.cuda.Event()
    iters = 4096
    for ilp in (2, 4, 8):
        kern = cp.RawModule(code=src, options=(f"-DILP={ilp}",)).get_function("mma_peak")
        for warps in (4, 8, 16, 32):
            threads, blocks = 32 * min(warps, 8), sms * max(1, warps // 8)
            out = cp.empty(threads * blocks, dtype=cp.float32)
            args = (out, np.int32(iters))
            kern((blocks,), (threads,), args)
            times = []
            for _ in range(5):
                start.record()
                kern((blocks,), (threads,), args)
                end.record()
                end.synchronize()
                times.append(cp.cuda.get_elapsed_time(start, end))
            ms = float(np.median(times))
            flop = 2 * 16 * 8 * 8 * ilp * iters * (threads // 32) * blocks
            tflops = flop / ms / 1e9
            print(f"ILP {ilp}, {warps:2d} warps/SM: {ms:8.3f} ms, {tflops:7.1f} TFLOP/s = "
                  f"{100 * tflops / (2 * 4096**3 / tf.median_ms / 1e9):5.1f}% of cuBLAS TF32", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
