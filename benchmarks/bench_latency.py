"""How long one load takes on this GPU: global memory (DRAM and an L2 hit), shared and
constant memory, by pointer chasing (benchmarks/latency.cu). Backs the latency figures page 05
shows beside the two source documents' claims (400-800 cycles, ~100 cycles).

    python benchmarks/bench_latency.py [--repeats 5] [--save]

A single thread follows a random cycle (Sattolo's algorithm) through an array; each load's
address is the value the previous load returned, so the loads cannot overlap, and clock64() and
%globaltimer around them count the cycles and nanoseconds of one. DRAM: a 1 GiB region, one word
per 256 bytes on the cycle (no two hops share a cache line), read with __ldcg (not cached in L1),
each run from a new start after a 256 MiB write has flushed L2; L2: a 1 MiB cycle, warmed first;
shared memory: a 16 KB cycle copied into shared memory; constant memory: a 16 KB and a 1 KB cycle
in __constant__ memory after a warm-up pass. Prints JSON (median cycles and nanoseconds per load
over ``--repeats`` runs, the SM clock they imply, device, versions, date); ``--save`` writes it
into explainer/data/recorded/ (latency_<device>_<date>.json), where the page reads it.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import platform
import re
import statistics
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
SOURCE = Path(__file__).resolve().parent / "latency.cu"
SCHEMA = "latency/2"
CONST_WORDS = 4096
CONST_SMALL = 256


def cycle(n: int, rng) -> np.ndarray:
    """A random permutation of 0..n-1 that is one cycle (Sattolo): next[i] follows i."""
    perm = np.arange(n)
    for i in range(n - 1, 0, -1):
        j = int(rng.integers(0, i))
        perm[i], perm[j] = perm[j], perm[i]
    return perm.astype(np.uint32)


def spread(order: np.ndarray, stride: int) -> np.ndarray:
    """The cycle ``order`` laid out one word every ``stride`` words: next[k*stride] = order[k]*stride."""
    out = np.zeros(len(order) * stride, np.uint32)
    out[np.arange(len(order)) * stride] = order * stride
    return out


def measure(repeats: int = 5, steps: int = 4096, seed: int = 0) -> dict:
    import cupy as cp

    rng = np.random.default_rng(seed)
    mod = cp.RawModule(code=SOURCE.read_text(), options=("-std=c++17",))
    g, s, c, c1 = (mod.get_function(n) for n in ("chase_global", "chase_shared", "chase_const", "chase_const_small"))
    sink = cp.zeros(1, cp.uint32)
    out_t = cp.zeros(2, cp.int64)  # cycles, nanoseconds
    dev = cp.cuda.Device()

    def timed(launch, before=None) -> tuple[float, float]:
        cyc, ns = [], []
        for r in range(repeats):
            if before:
                before(r)
            launch(r)
            dev.synchronize()
            t = out_t.get()
            cyc.append(int(t[0]) / steps)
            ns.append(int(t[1]) / steps)
        return statistics.median(cyc), statistics.median(ns)

    out = {}
    # DRAM: 2^22 hops spread 64 words (256 B) apart: a 1 GiB region, far beyond any L2. Each run
    # starts at a new node of the cycle (a run's 4096 lines would otherwise be L2 hits in the next)
    # and after a 256 MiB write that evicts L2.
    hops = 1 << 22
    dram = cp.asarray(spread(cycle(hops, rng), 64))
    flush = cp.empty(1 << 26, cp.float32)
    starts = rng.choice(hops, size=repeats, replace=False) * 64
    out["global_dram"] = timed(
        lambda r: g((1,), (1,), (dram, np.uint32(starts[r]), np.int32(0), np.int32(steps), sink, out_t)),
        before=lambda r: flush.fill(r))
    del dram, flush
    # L2: a 1 MiB cycle, one word per 128-byte line, warmed by one pass
    l2_words = (1 << 20) // 128
    l2 = cp.asarray(spread(cycle(l2_words, rng), 32))
    out["global_l2_hit"] = timed(
        lambda r: g((1,), (1,), (l2, np.uint32(0), np.int32(l2_words), np.int32(steps), sink, out_t)))
    # shared memory: a 16 KB cycle
    sh = cp.asarray(cycle(CONST_WORDS, rng))
    out["shared"] = timed(lambda r: s((1,), (256,), (sh, np.int32(CONST_WORDS), np.uint32(0), np.int32(steps), sink, out_t),
                                      shared_mem=CONST_WORDS * 4))
    # constant memory: the same 16 KB in __constant__, and a 1 KB cycle
    cp.ndarray((CONST_WORDS,), cp.uint32, mod.get_global("const_next")).set(cycle(CONST_WORDS, rng))
    out["constant"] = timed(lambda r: c((1,), (1,), (np.uint32(0), np.int32(steps), sink, out_t)))
    cp.ndarray((CONST_SMALL,), cp.uint32, mod.get_global("const_small")).set(cycle(CONST_SMALL, rng))
    out["constant_small"] = timed(lambda r: c1((1,), (1,), (np.uint32(0), np.int32(steps), sink, out_t)))
    props = cp.cuda.runtime.getDeviceProperties(0)
    name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    return {
        "schema": SCHEMA,
        "device": {"name": name, "compute_capability": f"{props['major']}.{props['minor']}",
                   "max_clock_mhz": props.get("clockRate", 0) / 1000},
        "versions": {"cupy": cp.__version__, "cuda_runtime": cp.cuda.runtime.runtimeGetVersion(),
                     "driver": cp.cuda.runtime.driverGetVersion(), "python": platform.python_version()},
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "method": (f"pointer chasing, one thread, clock64() and %globaltimer over {steps} dependent loads, "
                   f"median of {repeats} runs"),
        "repeats": repeats, "steps": steps,
        "cycles_per_load": {k: round(v[0], 1) for k, v in out.items()},
        "ns_per_load": {k: round(v[1], 1) for k, v in out.items()},
        # the SM clock while chasing (cycles / ns): the cycle counts hold at this clock only
        "clock_mhz": round(1000 * out["global_dram"][0] / out["global_dram"][1]) if out["global_dram"][1] else None,
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--save", action="store_true", help="write explainer/data/recorded/latency_<device>_<date>.json")
    args = ap.parse_args(argv)
    try:
        import cupy  # noqa: F401
    except ImportError:
        print("bench_latency: needs CuPy and an NVIDIA GPU", file=sys.stderr)
        return 2
    d = measure(args.repeats)
    text = json.dumps(d, indent=1)
    print(text)
    if args.save:
        slug = re.sub(r"[^a-z0-9]+", "-", d["device"]["name"].lower()).strip("-")
        path = REPO / "explainer" / "data" / "recorded" / f"latency_{slug}_{d['date'][:10]}.json"
        path.write_text(text + "\n")
        print(f"saved {path.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
