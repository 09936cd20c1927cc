"""benchmarks/bench_latency.py on a GPU (marked ``gpu``; skipped cleanly without one): the pointer
chase gives DRAM slower than an L2 hit, slower than shared memory, and cached constant memory faster
than DRAM; the record carries device, versions and date."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from explainer import gpu

pytestmark = pytest.mark.gpu

_STATUS = gpu.status()
if not _STATUS.available:
    pytest.skip(f"needs a CUDA GPU: {_STATUS.reason}", allow_module_level=True)


def _bench():
    path = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_latency.py"
    spec = importlib.util.spec_from_file_location("bench_latency", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_latencies_are_ordered_as_the_memory_hierarchy():
    d = _bench().measure(repeats=3)
    c = d["cycles_per_load"]
    assert c["global_dram"] > c["global_l2_hit"] > c["shared"] > 0
    assert c["constant"] < c["global_dram"] and c["constant_small"] <= c["constant"]
    ns = d["ns_per_load"]
    assert ns["global_dram"] > ns["global_l2_hit"] > ns["shared"] > 0
    # each DRAM run started cold (a new start, L2 flushed): well above an L2 hit, not equal to it
    assert c["global_dram"] > 1.3 * c["global_l2_hit"]
    assert d["device"]["name"] == _STATUS.device and d["date"] and d["versions"]["cupy"]
