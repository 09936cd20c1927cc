"""Which kernel sources a recording measured (``recorded.kernel_fingerprint``), so that a page can
say when a kernel changed after it. Not the tuning engine's (moved out of test_planner.py, whose
tests are marked ``check``): ``make test`` runs these."""

from __future__ import annotations

import re

from explainer import resources
from explainer.gpu import recorded


def _table(command):
    return {"schema": recorded.SCHEMA, "device": {"name": "Fake GPU"}, "date": "2026-01-01T00:00:00+00:00",
            "settings": {}, "command": command, "cublas": [], "cublas_tf32": [], "results": [], "errors": []}


def test_kernel_fingerprint_names_every_changed_source():
    """Every ``.cu`` and ``.cuh`` of ``kernels/`` and its folders (the tuning engine's
    ``kernels/tuned/``), by its path there."""
    fp = recorded.kernel_fingerprint()
    root = resources.kernels_dir()
    shipped = {f.relative_to(root).as_posix() for f in root.rglob("*") if f.suffix in (".cu", ".cuh") and f.is_file()}
    assert set(fp) == shipped and "14_warptile.cu" in fp and "common.cuh" in fp
    assert "tuned/warptile_tuned.cu" in fp and any("/" not in name for name in fp)
    assert all(re.fullmatch(r"[0-9a-f]{16}", h) for h in fp.values())
    assert recorded.changed_kernels({"kernels": fp}) == []
    assert recorded.changed_kernels({"kernels": {**fp, "14_warptile.cu": "0" * 16}}) == ["14_warptile.cu"]
    assert recorded.changed_kernels({"kernels": {**fp, "tuned/warptile_tuned.cu": "0" * 16}}) == ["tuned/warptile_tuned.cu"]
    gone = dict(fp)
    gone.pop("16_mma_tf32_staged.cu")
    assert recorded.changed_kernels({"kernels": {**gone, "99_removed.cu": "1" * 16}}) == ["16_mma_tf32_staged.cu", "99_removed.cu"]
    assert recorded.changed_kernels({}) is None and recorded.changed_kernels({"kernels": None}) is None
    # a table joining runs of different sources keeps no fingerprint; the same sources keep theirs
    same = recorded.merge_tables({**_table("a"), "kernels": fp}, {**_table("b"), "kernels": fp})
    assert same["kernels"] == fp
    old = recorded.merge_tables(_table("a"), {**_table("b"), "kernels": fp})
    assert old["kernels"] is None and recorded.changed_kernels(old) is None


def test_a_benchmark_report_keeps_the_sources_it_measured():
    from explainer.gpu.sweep import BenchReport

    fp = recorded.kernel_fingerprint()
    one = BenchReport(device={}, date="", settings={}, kernels=fp)
    assert one.to_dict()["kernels"] == fp
    one.extend(BenchReport(device={}, date="", settings={}, kernels=fp))
    assert one.kernels == fp
    one.extend(BenchReport(device={}, date="", settings={}, kernels={**fp, "01_naive.cu": "2" * 16}))
    assert one.kernels is None
