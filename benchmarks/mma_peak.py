"""The mma.sync m16n8k8 TF32 ceiling of this GPU (benchmarks/mma_peak.cu): TFLOP/s with no memory
traffic, over warps per SM and independent accumulators per warp, beside cuBLAS TF32 at 4096^3 in
the same run. The question it answers: how much of cuBLAS TF32 can an mma.sync kernel (15, 16)
reach at all on this GPU?

    python benchmarks/mma_peak.py
    python benchmarks/mma_peak.py --sustain 3   # at the power limit: clock, power, TFLOP per joule

--sustain S runs each load back to back for S seconds while nvidia-smi samples the SM clock and
the board power every 100 ms: cuBLAS TF32, kernel 16 and ``mma_tile`` (kernel 16's warp tile of
mma.sync on register-resident fragments: its tensor-core work without any feeding), each on
random data and on zeros. A GPU at its power limit runs the load that spends fewer joules per
FLOP at a higher rate: TFLOP/J x the power limit is the ceiling of that load, whatever the
schedule.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explainer import gpu  # noqa: E402
from explainer.gpu import timing  # noqa: E402
from explainer.gpu.verify import _Problem  # noqa: E402

HERE = Path(__file__).resolve().parent


class _Sampler:
    """nvidia-smi every 100 ms in the background: (time, SM MHz, board W, reasons) rows."""

    def __init__(self):
        self.rows = []
        self.p = subprocess.Popen(["nvidia-smi", "--query-gpu=clocks.sm,power.draw,clocks_event_reasons.active",
                                   "--format=csv,noheader,nounits", "-lms", "100"],
                                  stdout=subprocess.PIPE, text=True)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.p.stdout:
            parts = [x.strip() for x in line.split(",")]
            try:
                self.rows.append((time.time(), float(parts[0]), float(parts[1]), parts[2]))
            except (ValueError, IndexError):
                pass

    def between(self, t0, t1):
        sel = [r for r in self.rows if t0 <= r[0] <= t1]
        if not sel:
            return float("nan"), float("nan"), "?"
        return (sum(r[1] for r in sel) / len(sel), sum(r[2] for r in sel) / len(sel),
                ",".join(sorted({r[3] for r in sel})))

    def stop(self):
        self.p.terminate()


def sustain(rt, seconds: float) -> int:
    """Each load back to back for `seconds`: ms per launch, SM clock, power, TFLOP/s, TFLOP/J."""
    from explainer.gpu import launch, verify

    cp = rt.cp
    sms = int(rt.props["multiProcessorCount"])
    n = 4096
    flop_gemm = 2 * n**3
    rng = np.random.default_rng(7)
    data = {"random": (rng.uniform(-1, 1, (n, n)).astype(np.float32), rng.uniform(-1, 1, (n, n)).astype(np.float32)),
            "zeros": (np.zeros((n, n), np.float32), np.zeros((n, n), np.float32))}
    tile = cp.RawModule(code=(HERE / "mma_peak.cu").read_text()).get_function("mma_tile")
    cfg = launch.launch_config("mma_tf32_staged", n, n, n)
    k16 = rt.kernel(cfg)
    sampler = _Sampler()
    time.sleep(1.0)
    print(f"{'load':34s} {'data':7s} {'ms/launch':>9s} {'TFLOP/s':>8s} {'SM MHz':>7s} {'W':>5s} {'TFLOP/J':>8s}  reasons")
    results = {}
    try:
        for name in ("cuBLAS TF32", "kernel 16", "mma_tile (8 warps/SM)"):
            for kind, (Ah, Bh) in data.items():
                A, B, C = cp.asarray(Ah), cp.asarray(Bh), cp.empty((n, n), cp.float32)
                if name == "cuBLAS TF32":
                    def run():
                        rt.cublas_tf32(True)
                        cp.matmul(A, B, out=C)
                        rt.cublas_tf32(False)
                    flop = flop_gemm
                elif name == "kernel 16":
                    def run():
                        verify._launch(rt, k16, cfg, A, B, C)
                    flop = flop_gemm
                else:
                    # 32 fragment words per lane: the TF32 bits of values like A's and B's (or zeros)
                    words = Ah[0, :32 * 32].view(np.uint32) & np.uint32(0xFFFFE000)
                    frag, out, iters = cp.asarray(words), cp.empty(256 * sms, cp.float32), 8192

                    def run():
                        tile((sms,), (256,), (frag, out, np.int32(iters)))
                    flop = 2 * 16 * 8 * 8 * 32 * iters * 8 * sms
                run()
                cp.cuda.Device().synchronize()
                st, en = cp.cuda.Event(), cp.cuda.Event()
                t0 = time.time()
                st.record()
                launches = 0
                while time.time() - t0 < seconds:
                    for _ in range(20):
                        run()
                    launches += 20
                    en.record()
                    en.synchronize()
                t1 = time.time()
                ms = cp.cuda.get_elapsed_time(st, en) / launches
                mhz, watts, reasons = sampler.between(t0 + 0.5, t1)
                tflops = flop / ms / 1e9
                results[(name, kind)] = tflops
                print(f"{name:34s} {kind:7s} {ms:9.4f} {tflops:8.1f} {mhz:7.0f} {watts:5.0f} {tflops / watts:8.3f}  {reasons}",
                      flush=True)
    finally:
        sampler.stop()
    cub, tile_r = results[("cuBLAS TF32", "random")], results[("mma_tile (8 warps/SM)", "random")]
    print(f"kernel 16's tensor-core work alone (mma_tile, random data) runs at {tile_r:.1f} TFLOP/s = "
          f"{100 * tile_r / cub:.1f}% of cuBLAS TF32 on the same data")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sustain", type=float, default=0.0, metavar="S",
                    help="seconds of back-to-back launches per load, at the power limit")
    a = ap.parse_args()
    rt = gpu.runtime._runtime()
    if isinstance(rt, gpu.GpuStatus):
        print(rt.reason, file=sys.stderr)
        return 2
    cp = rt.cp
    sms = int(rt.props["multiProcessorCount"])
    print(f"# {rt.name}, {sms} SMs, cupy {cp.__version__}, {datetime.now(timezone.utc).isoformat(timespec='seconds')}")
    if a.sustain > 0:
        return sustain(rt, a.sustain)
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
