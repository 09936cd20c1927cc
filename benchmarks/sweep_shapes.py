"""Sweep kernel 14's configurations x split-K counts over many shapes on the GPU at hand, next to
cuBLAS (FP32, TF32 off) in the same run: the data from which the launch planner's candidates and
rules are chosen (issue 13). Every timed launch is also checked against numpy float64 with C (and
split-K's workspace) poisoned by NaN.

    python benchmarks/sweep_shapes.py                    # the default shapes and variants
    python benchmarks/sweep_shapes.py --shapes 1024x1024x1024 777x1000x333 --out results/

Variants not among explainer.tuning.configs.CONFIGS are registered for this process only.
Prints, per shape, cuBLAS and the best candidates (% of cuBLAS); writes JSON with every row.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explainer import gpu  # noqa: E402
from explainer.gpu import launch as L  # noqa: E402
from explainer.tuning import configs  # noqa: E402

SQUARES = (1024, 1280, 1536, 1792, 2048, 2560, 3072, 4096)
OTHERS = ("777x1000x333", "1023x1023x1023", "1111x999x1234", "1999x2001x1997",
          "4096x4096x128", "2048x2048x256", "100x5000x700", "64x4096x4096", "256x8192x2048",
          "4096x64x4096", "5000x100x700", "1000x1000x8000", "512x512x16384", "1024x1024x16384",
          "256x256x32768")
SPLITS = (1, 2, 3, 4, 6, 8, 12, 16)


def variant(base: configs.TunedConfig, name: str, **changes) -> configs.TunedConfig:
    params = tuple((k, changes.get(k, v)) for k, v in base.params)
    return dataclasses.replace(base, name=name, params=params)


def variants() -> list[configs.TunedConfig]:
    R = configs.BY_NAME
    w = R["warptile_128x128"]
    out = [R["warptile_256x128"], R["warptile_128x128"], R["warptile_128x64"], R["warptile_64x64"]]
    out += [
        variant(w, "v_128x128_bk16", BK=16),
        variant(R["warptile_128x64"], "v_128x64_bk16", BK=16),
        variant(R["warptile_64x64"], "v_64x64_bk16", BK=16),
        variant(R["warptile_64x64"], "v_64x64_bk32", BK=32),
        # skinny: 4 warps side by side along N (32 x 128) or stacked along M (128 x 32)
        variant(R["warptile_64x64"], "v_32x128_bk16", BM=32, BN=128, BK=16, WM=32, WN=32),
        variant(R["warptile_64x64"], "v_128x32_bk16", BM=128, BN=32, BK=16, WM=32, WN=32),
    ]
    return out


def register(r: configs.TunedConfig) -> None:
    configs.BY_NAME.setdefault(r.name, r)
    L.register([r])


def shape(s: str) -> tuple[int, int, int]:
    m, n, k = (int(x) for x in s.lower().split("x"))
    return m, n, k


def smi() -> str:
    try:
        return subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm,power.draw,temperature.gpu",
                               "--format=csv,noheader"], capture_output=True, text=True, timeout=10).stdout.strip()
    except Exception as e:  # noqa: BLE001
        return f"nvidia-smi: {e}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shapes", nargs="*", default=[f"{s}x{s}x{s}" for s in SQUARES] + list(OTHERS))
    ap.add_argument("--only", default=None, help="keep variants whose name contains this")
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--max-waves", type=float, default=8.0,
                    help="skip splits giving more than this many blocks per SM")
    ap.add_argument("--defines", nargs="*", default=[""],
                    help="compile-time defines to compare, one build each (e.g. EXPLAINER_EDGE_LOADS=0; "
                         "several in one build separated by commas)")
    ap.add_argument("--out", default=None)
    a = ap.parse_args(argv)
    rows = []
    for d in a.defines:
        rc = sweep(a, d, rows)
        if rc:
            return rc
    if a.out:
        rt = gpu.runtime._runtime()
        dev = gpu.device_info()
        rec = {"script": "benchmarks/sweep_shapes.py", "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
               "device": dev.to_dict() if isinstance(dev, gpu.DeviceInfo) else {"name": rt.name},
               "defines": a.defines, "rows": rows}
        out = Path(a.out)
        out.mkdir(parents=True, exist_ok=True)
        path = out / f"sweep_shapes_{rt.name.lower().replace(' ', '-')}_{rec['date'][:10]}.json"
        path.write_text(json.dumps(rec, indent=1, default=str))
        print(f"wrote {path}")
    return 0


def sweep(a, define: str, rows: list) -> int:
    rt = gpu.runtime._runtime()
    if isinstance(rt, gpu.GpuStatus):
        print(rt.reason, file=sys.stderr)
        return 2
    sms = int(rt.props.get("multiProcessorCount"))
    vs = [v for v in variants() if not a.only or a.only in v.name]
    for v in vs:
        register(v)
    rt.modules.clear()  # one build per define
    gpu.runtime.COMPILE_OPTIONS = L.COMPILE_OPTIONS + tuple(f"-D{d}" for d in define.split(",") if d)
    print(f"## build: {define or 'default'}", flush=True)
    t0 = time.time()
    for v in vs:  # compile up front, so compile time stays out of the timings
        rt.module(L.KERNELS[v.name], False)
    print(f"# {rt.name}, {sms} SMs; compiled {len(vs)} variants in {time.time() - t0:.0f} s; {smi()}", flush=True)
    timing = dict(repeats=a.repeats, warmup=2, budget_s=2.0, flush_l2=True)
    for s in a.shapes:
        M, N, K = shape(s)
        prob = gpu.verify._Problem(rt, M, N, K, seed=M + N + K)
        cub = gpu.timing._time_cublas_on(rt, prob, **timing)
        rows.append({"kernel": "cublas", "M": M, "N": N, "K": K, "splits": 1, "median_ms": cub.median_ms,
                     "define": define})
        here = []
        for v in vs:
            P = v.phases(K)
            tiles = np.prod(v.grid(M, N))
            for S in SPLITS:
                if S > 1 and (S > P // 2 or tiles * S > a.max_waves * sms or tiles >= 2 * sms):
                    continue
                cfg = L.launch_config(v.name, M, N, K, splits=S)
                r = gpu.verify._check_on(rt, cfg, prob)
                ok = r["all_written"] and r["rel_error"] <= gpu.verify.DEFAULT_TOL
                t = gpu.timing._time_kernel_on(rt, cfg, prob, **timing)
                row = {"kernel": v.name, "params": dict(v.params), "M": M, "N": N, "K": K, "splits": S,
                       "tiles": int(tiles), "median_ms": t.median_ms, "passed": bool(ok),
                       "rel_error": r["rel_error"], "pct_cublas": 100 * cub.median_ms / t.median_ms,
                       "define": define}
                rows.append(row)
                here.append(row)
                if not ok:
                    print(f"  FAILED {v.name} S={S} at {M}x{N}x{K}: {r}", flush=True)
        prob.release(rt)
        here.sort(key=lambda r: r["median_ms"])
        best = ", ".join(f"{r['kernel']}/S{r['splits']} {r['pct_cublas']:.1f}%" for r in here[:5])
        print(f"{M}x{N}x{K}: cuBLAS {cub.median_ms:.4f} ms | {best}", flush=True)
    print(f"# {time.time() - t0:.0f} s; {smi()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
