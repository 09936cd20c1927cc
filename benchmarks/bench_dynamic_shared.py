"""Kernel 04 (dynamic shared memory, the tile chosen at run time) against kernel 03 (static shared
memory, the tile a template argument) at the same tile width, on the GPU.

    python benchmarks/bench_dynamic_shared.py [--sizes 512 1024 2048 4096] [--tiles 16 32] [--repeats 20] [--save]

First the device's properties (cudaGetDeviceProperties) and the tile they choose
(explainer.model.memspaces.device_choice: the largest that fits, the one with the highest
occupancy). Then, per size and tile, both kernels are checked against numpy float64 (random
non-symmetric inputs, C poisoned with NaN first; a kernel that fails is not timed), and timed with
CUDA events by the explainer's own harness (explainer.gpu.time_kernel: warm-up, the median of
repeats, L2 flushed before each). Prints device, versions and date; ``--save`` writes the record
into explainer/data/recorded/ (dynamic_shared_<device>_<date>.json), which page 06 reads.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from explainer import gpu  # noqa: E402
from explainer.gpu.properties import device_properties  # noqa: E402
from explainer.gpu import recorded  # noqa: E402
from explainer.model import memspaces  # noqa: E402

STATIC, DYNAMIC = "tiled", "tiled_dynamic"
SIZES = (512, 1024, 2048, 4096)
TILES = (16, 32)


def measure(sizes=SIZES, tiles=TILES, repeats: int = 20, budget_s: float = 2.0) -> dict:
    """The record (raises RuntimeError without a GPU, or when a kernel gives a wrong result)."""
    info = gpu.device_info()
    if not getattr(info, "ok", False):
        raise RuntimeError(str(info))
    props = device_properties()
    if not isinstance(props, dict):
        raise RuntimeError(str(props))
    choice = memspaces.device_choice(props)
    rows = []
    for n in sizes:
        for T in tiles:
            row = {"M": n, "N": n, "K": n, "tile": T}
            for key, kernel in (("static", STATIC), ("dynamic", DYNAMIC)):
                chk = gpu.check(kernel, n, n, n, T, seed=n + T)
                if not isinstance(chk, gpu.CheckResult) or not chk.passed:
                    raise RuntimeError(f"{kernel} T={T} at {n}^3 does not match numpy float64: {chk}")
                t = gpu.time_kernel(kernel, n, n, n, T, repeats=repeats, budget_s=budget_s, compare_cublas=False)
                if not isinstance(t, gpu.Timing):
                    raise RuntimeError(f"{kernel} T={T} at {n}^3 could not be timed: {t}")
                row[f"{key}_ms"] = t.median_ms
                row[f"{key}_cv"] = t.cv
                row[f"{key}_repeats"] = t.repeats
                row[f"{key}_rel_error"] = chk.rel_error
            rows.append(row)
    return {
        "schema": memspaces.DYNAMIC_SCHEMA,
        "device": {"name": info.name, "compute_capability": info.compute_capability, "sm_count": info.sm_count},
        "versions": info.versions,
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "method": (f"each kernel checked against numpy float64 (C poisoned with NaN), then timed with CUDA events: "
                   f"warm-up, median of up to {repeats} repeats, L2 flushed before each (explainer.gpu.time_kernel)"),
        "properties": props,
        "tile_choice": {"largest": choice["largest"]["tile"], "limiter": choice["largest"]["limiter"],
                        "best": choice["best"]["tile"], "best_occupancy": choice["best"]["occupancy"]},
        "rows": rows,
        "kernels": recorded.kernel_fingerprint(),  # which sources were measured (a page says when they changed)
        "command": "python benchmarks/bench_dynamic_shared.py --save",
    }


def report(d: dict) -> str:
    v = d["versions"]
    c = d["tile_choice"]
    lines = [f"device: {d['device']['name']} (cc {d['device']['compute_capability']}), versions {json.dumps(v)}, "
             f"date {d['date']}",
             f"cudaGetDeviceProperties: sharedMemPerBlock {d['properties'].get('sharedMemPerBlock')}, "
             f"maxThreadsPerBlock {d['properties'].get('maxThreadsPerBlock')} -> largest tile {c['largest']} "
             f"({c['limiter']}), highest occupancy at T = {c['best']} ({c['best_occupancy']:.0%})",
             f"{'size':>6} {'T':>3} {'static ms':>10} {'dynamic ms':>11} {'dyn/static':>10} {'rel err':>9}"]
    for r in d["rows"]:
        lines.append(f"{r['M']:>6} {r['tile']:>3} {r['static_ms']:>10.4f} {r['dynamic_ms']:>11.4f} "
                     f"{r['dynamic_ms'] / r['static_ms']:>10.3f} "
                     f"{max(r['static_rel_error'], r['dynamic_rel_error']):>9.1e}")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    ap.add_argument("--tiles", type=int, nargs="+", default=list(TILES),
                    help="tile widths (kernel 03 is instantiated for 2, 4, 8, 16, 32)")
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--budget", type=float, default=2.0, help="seconds of repeats per launch, at most")
    ap.add_argument("--save", action="store_true",
                    help="write explainer/data/recorded/dynamic_shared_<device>_<date>.json")
    a = ap.parse_args(argv)
    st = gpu.status()
    if not st.available:
        print(f"bench_dynamic_shared: {st.reason}", file=sys.stderr)
        return 1
    bad = [T for T in a.tiles if T not in gpu.TEMPLATE_TILES]
    if bad:
        print(f"bench_dynamic_shared: kernel 03 has no tile {bad[0]}; choose among {gpu.TEMPLATE_TILES}",
              file=sys.stderr)
        return 2
    try:
        d = measure(a.sizes, a.tiles, a.repeats, a.budget)
    except RuntimeError as e:
        print(f"bench_dynamic_shared: {e}", file=sys.stderr)
        return 1
    print(report(d))
    if a.save:
        slug = re.sub(r"[^a-z0-9]+", "-", d["device"]["name"].lower()).strip("-")
        path = REPO / "explainer" / "data" / "recorded" / f"dynamic_shared_{slug}_{d['date'][:10]}.json"
        path.write_text(json.dumps(d, indent=1) + "\n")
        print(f"wrote {path.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
