"""The broken teaching kernels on a real GPU (pages 03 and 04), answering with values as
:mod:`explainer.gpu` does (no GPU -> a ``GpuStatus``, never an exception).

* :func:`run_unguarded` launches ``kernels/06_tiled_unguarded.cu`` on buffers padded up to
  :func:`explainer.model.unguarded_extents` (A and B with zeros, C with NaN), so every read and
  store of the kernel stays inside an allocation whatever M, N, K and T are.
* :func:`flakiness` runs the barrier-less variants many times on several shapes and counts how
  often the result differs from numpy; ``python -m explainer.gpu.edges --out FILE`` records
  that (with device and date) for the pages to show when there is no GPU.
"""

from __future__ import annotations

import argparse
import json
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from ..model import Launch, unguarded_extents
from .launch import launch_config
from .runtime import DeviceInfo, GpuStatus, _public, device_info, status
from .verify import _launch

RECORDED = Path(__file__).resolve().parent.parent / "data" / "recorded"
FLAKY_GLOB = "flakiness_*.json"
BARRIER_VARIANTS = ("tiled_no_barrier1", "tiled_no_barrier2", "tiled_no_barriers")
#: Shapes for the repeated runs: square, the course material's rectangular 35x79x19, a taller one.
FLAKY_SHAPES = ((64, 64, 64), (35, 79, 19), (200, 72, 136))
FLAKY_TILES = (4, 8, 16, 32)
#: Unguarded launches recorded for the boundaries page: the course notes' example and 35x79x19, T=8.
UNGUARDED_EXAMPLES = ((3, 3, 3, 2), (35, 79, 19, 8))


def example_inputs(M: int, N: int, K: int):
    """The inputs of the recorded unguarded examples (and of page 03's panel): integers in
    [-4, 4] from numpy's default_rng(7), A first."""
    rng = np.random.default_rng(7)
    return (rng.integers(-4, 5, size=(M, K), dtype=np.int8),
            rng.integers(-4, 5, size=(K, N), dtype=np.int8))


def small_ints(M: int, N: int, K: int, seed: int = 0):
    """Integers in [-4, 4] as float32: every sum is exact, so "differs" means differs."""
    rng = np.random.default_rng(seed)
    A = rng.integers(-4, 5, size=(M, K)).astype(np.float32)
    B = rng.integers(-4, 5, size=(K, N)).astype(np.float32)
    return A, B


@_public
def run_unguarded(rt, M: int, N: int, K: int, tile: int = 2, A=None, B=None, seed: int = 0) -> dict:
    """Launch tiled_unguarded with padded buffers; returns ``{"C", "A", "B", "c_tail",
    "extents"}`` (``c_tail``: what landed past the end of C, NaN where nothing did)."""
    cfg = launch_config("tiled_unguarded", M, N, K, tile)
    if A is None or B is None:
        A, B = small_ints(M, N, K, seed)
    A = np.ascontiguousarray(A, np.float32)
    B = np.ascontiguousarray(B, np.float32)
    ext = unguarded_extents(Launch("tiled_unguarded", M, N, K, tile))
    cp = rt.cp
    a = cp.zeros(ext["a"], cp.float32)
    a[: M * K] = cp.asarray(A.ravel())
    b = cp.zeros(ext["b"], cp.float32)
    b[: K * N] = cp.asarray(B.ravel())
    c = cp.full(ext["c"], np.nan, cp.float32)
    _launch(rt, rt.kernel(cfg), cfg, a, b, c)
    cp.cuda.Device().synchronize()
    out = c.get()
    return {"C": out[: M * N].reshape(M, N), "A": A, "B": B, "c_tail": out[M * N:],
            "extents": ext, "device": rt.name}


@_public
def repeat_runs(rt, kernel: str, M: int, N: int, K: int, tile: int, repeats: int = 100,
                seed: int = 0) -> dict:
    """Run ``kernel`` ``repeats`` times on the same small-integer inputs (C NaN-poisoned before
    each run); count the runs whose C differs from numpy in any element."""
    cfg = launch_config(kernel, M, N, K, tile)
    rt.check_fits(cfg)
    A, B = small_ints(M, N, K, seed)
    ref = A.astype(np.float64) @ B.astype(np.float64)
    cp = rt.cp
    dA, dB = cp.asarray(A), cp.asarray(B)
    dC = cp.empty((M, N), cp.float32)
    kern = rt.kernel(cfg)
    dref = cp.asarray(ref.astype(np.float32))
    bad_runs, bad_elems, worst = 0, 0, 0
    for _ in range(int(repeats)):
        dC.fill(np.nan)
        _launch(rt, kern, cfg, dA, dB, dC)
        n = int((dC != dref).sum())  # NaN != anything: an unwritten element counts
        bad_runs += n > 0
        bad_elems += n
        worst = max(worst, n)
    return {"kernel": kernel, "M": M, "N": N, "K": K, "tile": tile, "repeats": int(repeats),
            "runs_differing": int(bad_runs), "fraction_differing": bad_runs / repeats,
            "mean_elements_differing": bad_elems / repeats, "max_elements_differing": int(worst),
            "threads_per_block": tile * tile, "warps_per_block": -(-tile * tile // 32),
            "phases": cfg.phases}


def flakiness(kernels=("tiled",) + BARRIER_VARIANTS, shapes=FLAKY_SHAPES, tiles=FLAKY_TILES,
              repeats: int = 200, seed: int = 0):
    """Every kernel x shape x tile through :func:`repeat_runs`; a GpuStatus without a GPU."""
    st = status()
    if not st.available:
        return st
    rows = []
    for kernel in kernels:
        for M, N, K in shapes:
            for T in tiles:
                r = repeat_runs(kernel, M, N, K, T, repeats=repeats, seed=seed)
                if isinstance(r, GpuStatus):
                    rows.append({"kernel": kernel, "M": M, "N": N, "K": K, "tile": T, "error": r.reason})
                else:
                    rows.append(r)
    unguarded = []
    for M, N, K, T in UNGUARDED_EXAMPLES:
        A, B = example_inputs(M, N, K)
        r = run_unguarded(M, N, K, T, A=A, B=B)
        if isinstance(r, GpuStatus):
            unguarded.append({"M": M, "N": N, "K": K, "tile": T, "error": r.reason})
            continue
        C = r["C"].astype(np.float64)
        unguarded.append({"M": M, "N": N, "K": K, "tile": T, "inputs": "gpu_edges.example_inputs(M, N, K)",
                          "C": [[None if np.isnan(v) else float(v) for v in row] for row in C]})
    dev = device_info()
    date = datetime.now(timezone.utc).isoformat(timespec="seconds")
    name = dev.name if isinstance(dev, DeviceInfo) else st.device
    return {
        "schema": "tiled-explainer/recorded-flakiness/1",
        "generated": "written by `python -m explainer.gpu.edges --out FILE`; regenerate, do not edit",
        "label": f"measured on {name} on {date[:10]}",
        "device": dev.to_dict() if isinstance(dev, DeviceInfo) else {"name": name},
        "date": date,
        "settings": {"repeats": repeats, "seed": seed, "inputs": "integers in [-4, 4] as float32 (exact sums)",
                     "differs": "any element of C != numpy (C poisoned with NaN before each run)"},
        "results": rows,
        "unguarded": unguarded,
    }


def recorded_flakiness() -> dict | None:
    """The newest recorded flakiness file, or None."""
    files = sorted(RECORDED.glob(FLAKY_GLOB))
    return json.loads(files[-1].read_text()) if files else None


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description="How often the barrier-less kernels differ from numpy")
    p.add_argument("--repeats", type=int, default=200)
    p.add_argument("--out", type=Path, help="write the JSON here (default: print it)")
    args = p.parse_args(argv)
    rep = flakiness(repeats=args.repeats)
    if isinstance(rep, GpuStatus):
        print(rep.reason)
        return 1
    text = json.dumps(rep, indent=1)
    if args.out:
        args.out.write_text(text + "\n")
        print("wrote", args.out)
    for r in rep["results"]:
        print(r)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
