"""Arithmetic intensity, peaks and the roofline; the device measurements behind them.

Pure part (no GPU): FLOP per byte of DRAM traffic from :meth:`explainer.model.Launch.stats`,
the FP32 peak from clock x SMs x FP32 lanes x 2, the roofline bound ``min(peak, I x BW)``.

Measured part (:mod:`explainer.gpu.device`): ``python -m explainer.gpu.device --save [PATH]`` on a GPU measures the device-to-
device copy bandwidth, the SM clock (driver attribute and ``nvidia-smi`` under load), an FMA
throughput kernel, and every kernel's resources (registers, shared bytes, driver occupancy), and
writes them as a recorded-device JSON (device, versions, date inside) into
``explainer/data/recorded/``. :func:`load_device_record` reads the newest one back for pages on
machines without a GPU, which label it as recorded. Its ``ncu`` section (DRAM bytes, sectors per
request, shared-memory bank conflicts of one 4096^3 launch per kernel) comes from Nsight Compute:
``ncu --kernel-name regex:gemm --metrics ... --csv python -m explainer.gpu.device --probe KERNEL 4096 T``
(the file's ``ncu.command`` and ``ncu.note`` say which metrics).

The bound here counts DRAM traffic only: every global load is charged as if it came from DRAM.
L1 and L2 serve most of the naive kernels' repeated loads, so a naive kernel runs *above* its
"0.25 FLOP/B" roof. The roof is the model's worst case, not a prediction.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

from .launch import FLOAT_BYTES, Launch

DEVICE_SCHEMA = "tiled-explainer/recorded-device/1"
RECORDED_DIR = Path(__file__).resolve().parent.parent / "data" / "recorded"


def recorded_json(pattern: str, schema: str) -> list[dict]:
    """The records in ``explainer/data/recorded/`` named ``pattern`` whose ``schema`` is ``schema``,
    newest first (by their ``date``), each with its ``source`` file name; unreadable files skipped."""
    out = []
    for f in sorted(RECORDED_DIR.glob(pattern)):
        try:
            d = json.loads(f.read_text())
        except (OSError, ValueError):
            continue
        if d.get("schema") == schema:
            out.append({**d, "source": f.name})
    return sorted(out, key=lambda d: d.get("date", ""), reverse=True)


FP32_LANES_PER_SM = 128  # sm_80 (GA100 has 64), sm_86+, sm_89, sm_90: 4 partitions x 32 FP32 lanes
FP32_LANES_BY_CC = {"2.0": 32, "7.0": 64, "7.5": 64, "8.0": 64, "8.6": 128, "8.9": 128, "9.0": 128}

#: PMPP 4th ed. 5.4: an A100 with 1555 GB/s, the tiled kernel at T = 16.
PMPP_A100 = {"bandwidth_gbs": 1555.0, "tile": 16}


# --------------------------------------------------------------------------------------
# Pure: intensity, peaks, bounds
# --------------------------------------------------------------------------------------
def intensity(kernel: str, M: int, N: int, K: int, tile: int = 16, stores: bool = False) -> float:
    """FLOP per byte of global traffic, from the model's counts: ``2MNK / (4 x loads)``
    (``stores=True`` adds the M*N stores of C to the bytes)."""
    s = Launch(kernel, M, N, K, tile).stats()
    bytes_ = FLOAT_BYTES * (s["global_loads"] + (s["global_stores"] if stores else 0))
    return s["flops"] / bytes_


def fp32_peak_gflops(clock_mhz: float, sms: int, lanes: int = FP32_LANES_PER_SM) -> float:
    """Peak FP32 GFLOP/s: every lane retires one FMA (2 FLOP) per clock."""
    return sms * lanes * 2 * clock_mhz / 1000.0


def bound_gflops(flop_per_byte: float, bandwidth_gbs: float, peak_gflops: float) -> float:
    """The roofline: min(peak, intensity x bandwidth)."""
    return min(peak_gflops, flop_per_byte * bandwidth_gbs)


def ridge(bandwidth_gbs: float, peak_gflops: float) -> float:
    """The intensity (FLOP/B) where the memory roof meets the compute roof."""
    return peak_gflops / bandwidth_gbs


def ladder_points(rows: list[dict], n: int = 4096) -> list[dict]:
    """One point per ladder kernel (kernels 10-14, :data:`explainer.model.ladder.RUNGS`) at
    M = N = K = ``n``: the block-tile intensity :meth:`Rung.intensity` (every element of a BM x BK
    and BK x BN window loaded once per block and phase, exact when the block tile divides ``n``),
    and the GFLOP/s of the matching row of ``rows`` (recorded or live; ``None`` when absent)."""
    from .ladder import RUNGS

    pts = []
    for r in RUNGS:
        row = next((x for x in rows if x.get("kernel") == r.name and x.get("M") == x.get("N") == x.get("K") == n),
                   None)
        fpb = r.intensity()
        flops = 2.0 * n ** 3
        pts.append({"kernel": r.name, "title": r.title, "file": r.file, "N": n, "flop_per_byte": fpb,
                    "gflops": row["gflops"] if row else None, "model_bytes": flops / fpb,
                    "divides": n % r.BM == 0 and n % r.BN == 0 and n % r.BK == 0})
    return pts


def pmpp_a100() -> dict:
    """The PMPP chapter 5 notes / PMPP's A100 example, computed: 1555 GB/s x (T/4 FLOP/B) and x 0.25."""
    bw, T = PMPP_A100["bandwidth_gbs"], PMPP_A100["tile"]
    n = 4096
    tiled = intensity("tiled", n, n, n, T)
    naive = intensity("naive", n, n, n, T)
    return {"bandwidth_gbs": bw, "tile": T, "tiled_flop_per_byte": tiled,
            "naive_flop_per_byte": naive, "tiled_gflops": bw * tiled, "naive_gflops": bw * naive}


# --------------------------------------------------------------------------------------
# Recorded device figures
# --------------------------------------------------------------------------------------
def device_record_files() -> list[Path]:
    try:
        root = resources.files("explainer").joinpath("data/recorded")
        files = [Path(str(p)) for p in root.iterdir() if p.name.endswith(".json")]
    except (FileNotFoundError, NotADirectoryError, OSError):
        files = list(RECORDED_DIR.glob("*.json")) if RECORDED_DIR.is_dir() else []
    return sorted(files)


def load_device_record(path: str | Path | None = None) -> dict | None:
    """The newest recorded-device file (or ``path``) with ``"source"`` added; ``None`` if none."""
    best = None
    for f in [Path(path)] if path else device_record_files():
        try:
            data = json.loads(f.read_text())
        except (OSError, ValueError):
            continue
        if data.get("schema") != DEVICE_SCHEMA:
            continue
        data["source"] = f.name
        if best is None or data.get("date", "") > best.get("date", ""):
            best = data
    return best


def device_roofs(record: dict) -> dict:
    """Peak and bandwidth of a recorded (or live) device: the FP32 peak computed from its
    clock and SM count, the copy bandwidth as measured."""
    dev = record["device"]
    clock = record["clocks"]["sm_max_mhz"]
    lanes = FP32_LANES_BY_CC.get(dev["compute_capability"], FP32_LANES_PER_SM)
    peak = fp32_peak_gflops(clock, dev["sm_count"], lanes)
    bw = record["bandwidth"]["copy_gbs"]
    return {"peak_gflops": peak, "bandwidth_gbs": bw, "clock_mhz": clock, "lanes": lanes,
            "sms": dev["sm_count"], "ridge": ridge(bw, peak),
            "theoretical_bandwidth_gbs": record["bandwidth"].get("theoretical_gbs"),
            "fma_measured_gflops": (record.get("fma") or {}).get("gflops")}
