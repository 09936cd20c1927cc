"""Kernel 04 (dynamic shared memory) with the tile the device's own properties choose, on a real
GPU (marked ``gpu``; skipped cleanly without one): cudaGetDeviceProperties read through CuPy, the
largest tile and the highest-occupancy tile from explainer.model.memspaces, each run on odd
non-symmetric shapes with C poisoned and compared with numpy float64; and
benchmarks/bench_dynamic_shared.py's record carries device, versions, date and both timings."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from explainer import gpu
from explainer.gpu.properties import device_properties
from explainer.model import memspaces

pytestmark = pytest.mark.gpu

_STATUS = gpu.status()
if not _STATUS.available:
    pytest.skip(f"needs a CUDA GPU: {_STATUS.reason}", allow_module_level=True)

ODD = [(1, 1, 1), (35, 79, 19), (77, 33, 101), (300, 1000, 77)]


def _choice() -> dict:
    props = device_properties()
    assert isinstance(props, dict), props
    assert props["name"] == _STATUS.device and props["sharedMemPerBlock"] > 0 and props["maxThreadsPerBlock"] > 0
    return memspaces.device_choice(props)


def test_the_properties_choose_a_tile_the_device_launches():
    c = _choice()
    big = c["largest"]
    assert 2 * big["tile"] ** 2 * 4 <= c["shared_per_block"] and big["tile"] ** 2 <= c["max_threads_per_block"]
    assert c["best"]["tile"] <= big["tile"]


@pytest.mark.parametrize("which", ["largest", "best"])
def test_kernel_04_with_the_chosen_tile_matches_numpy(which):
    c = _choice()
    T = c["largest"]["tile"] if which == "largest" else c["best"]["tile"]
    for M, N, K in ODD + [(T + 1, 2 * T - 1, 3 * T + 2)]:
        res = gpu.check("tiled_dynamic", M, N, K, T, seed=M * 7 + N * 3 + K)
        assert isinstance(res, gpu.CheckResult), res
        assert res.all_written, f"T={T} {M}x{N}x{K}: {res.unwritten} elements unwritten"
        assert res.rel_error < 1e-5, f"T={T} {M}x{N}x{K}: rel. error {res.rel_error:.2e}"


def test_kernel_04_matches_numpy_on_exact_small_integers():
    """Small integers: float32 sums are exact, so C must equal numpy's float64 product exactly."""
    T = _choice()["best"]["tile"]
    rng = np.random.default_rng(4)
    A = rng.integers(-4, 5, size=(37, 23)).astype(np.float32)
    B = rng.integers(-4, 5, size=(23, 41)).astype(np.float32)
    C = gpu.matmul("tiled_dynamic", A, B, T)
    assert isinstance(C, np.ndarray), C
    assert np.array_equal(C.astype(np.float64), A.astype(np.float64) @ B.astype(np.float64))


def test_the_benchmark_record():
    path = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_dynamic_shared.py"
    spec = importlib.util.spec_from_file_location("bench_dynamic_shared", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    d = mod.measure(sizes=(256,), tiles=(16,), repeats=3, budget_s=0.5)
    assert d["schema"] == memspaces.DYNAMIC_SCHEMA and d["device"]["name"] == _STATUS.device
    assert d["date"] and d["versions"]["cupy"]
    (row,) = d["rows"]
    assert row["static_ms"] > 0 and row["dynamic_ms"] > 0 and max(row["static_rel_error"], row["dynamic_rel_error"]) < 1e-5
    assert "dyn/static" in mod.report(d)
