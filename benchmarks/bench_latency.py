"""How many cycles one load takes on this GPU: global memory (DRAM and an L2 hit), shared and
constant memory, by pointer chasing (benchmarks/latency.cu). Backs the latency figures page 05
shows beside the two source documents' claims (400-800 cycles, ~100 cycles).

    python benchmarks/bench_latency.py [--repeats 5] [--save]

A single thread follows a random cycle (Sattolo's algorithm) through an array; each load's
address is the value the previous load returned, so the loads cannot overlap, and clock64()
around them counts the cycles of one. DRAM: a 1 GiB region, one word per 256 bytes on the cycle
(no two hops share a cache line), read with __ldcg (not cached in L1); L2: a 1 MiB cycle, warmed
first; shared memory: a 16 KB cycle copied into shared memory; constant memory: a 16 KB cycle
in __constant__ memory after a warm-up pass. Prints JSON (median cycles per load over
``--repeats`` runs, device, versions, date); ``--save`` writes it into explainer/data/recorded/
(latency_<device>_<date>.json), where the page reads it.
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
SCHEMA = "latency/1"
CONST_WORDS = 4096


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
    g, s, c = (mod.get_function(n) for n in ("chase_global", "chase_shared", "chase_const"))
    sink = cp.zeros(1, cp.uint32)
    cycles = cp.zeros(1, cp.int64)

    def run(fn, args, **kw) -> float:
        got = []
        for _ in range(repeats):
            fn((1,), kw.pop("block", (1,)) if "block" in kw else (1,), args, **kw)
            cp.cuda.Device().synchronize()
            got.append(int(cycles.get()[0]) / steps)
        return statistics.median(got)

    out = {}
    # DRAM: 2^22 hops spread 64 words (256 B) apart: a 1 GiB region, far beyond any L2
    dram = cp.asarray(spread(cycle(1 << 22, rng), 64))
    out["global_dram"] = run(g, (dram, np.uint32(0), np.int32(0), np.int32(steps), sink, cycles))
    del dram
    # L2: a 1 MiB cycle, one word per 128-byte line, warmed by one pass
    l2_words = (1 << 20) // 128
    l2 = cp.asarray(spread(cycle(l2_words, rng), 32))
    out["global_l2_hit"] = run(g, (l2, np.uint32(0), np.int32(l2_words), np.int32(steps), sink, cycles))
    # shared memory: a 16 KB cycle
    sh = cp.asarray(cycle(CONST_WORDS, rng))
    got = []
    for _ in range(repeats):
        s((1,), (256,), (sh, np.int32(CONST_WORDS), np.uint32(0), np.int32(steps), sink, cycles), shared_mem=CONST_WORDS * 4)
        cp.cuda.Device().synchronize()
        got.append(int(cycles.get()[0]) / steps)
    out["shared"] = statistics.median(got)
    # constant memory: the same size, in __constant__
    ptr = mod.get_global("const_next")
    cp.ndarray((CONST_WORDS,), cp.uint32, ptr).set(cycle(CONST_WORDS, rng))
    out["constant"] = run(c, (np.uint32(0), np.int32(steps), sink, cycles))
    props = cp.cuda.runtime.getDeviceProperties(0)
    name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    return {
        "schema": SCHEMA,
        "device": {"name": name, "compute_capability": f"{props['major']}.{props['minor']}",
                   "clock_mhz": props.get("clockRate", 0) / 1000},
        "versions": {"cupy": cp.__version__, "cuda_runtime": cp.cuda.runtime.runtimeGetVersion(),
                     "driver": cp.cuda.runtime.driverGetVersion(), "python": platform.python_version()},
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "method": "pointer chasing, one thread, clock64() over 4096 dependent loads, median of runs",
        "repeats": repeats, "steps": steps,
        "cycles_per_load": {k: round(v, 1) for k, v in out.items()},
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
