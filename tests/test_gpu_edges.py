"""The broken teaching kernels (06-09) on a real GPU, against what the model predicts
(marked ``gpu``; skipped cleanly without one).

* tiled_unguarded: refused where it would leave its allocations; on padded buffers every C
  element equals the model's prediction (contested ones one of the model's candidates);
* the barrier-less variants: their recorded loads equal the model's; where the hazard detector
  finds no hazard the result always equals numpy; how often the others differ is measured and
  written to ``$EXPLAINER_RECORD_DIR`` (when set) for the pages.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from explainer import gpu

from explainer.model import hazards
from explainer.gpu import edges as gpu_edges
from explainer.model import Launch, schedule, unguarded_values

pytestmark = pytest.mark.gpu

_STATUS = gpu.status()
if not _STATUS.available:
    pytest.skip(f"needs a CUDA GPU: {_STATUS.reason}", allow_module_level=True)

RECT = [(3, 3, 3, 2), (35, 79, 19, 8), (5, 7, 3, 4), (33, 20, 41, 16), (1, 40, 9, 4), (70, 3, 64, 32)]


def test_broken_kernels_compile_and_are_registered():
    for k in gpu.BROKEN_KERNEL_NAMES:
        assert k not in gpu.KERNEL_NAMES
        r = gpu.check(k, 32, 32, 32, 8)  # T divides everything: even the unguarded one is right
        assert isinstance(r, gpu.CheckResult), r


def test_unguarded_refused_where_it_would_leave_its_buffers():
    r = gpu.check("tiled_unguarded", 35, 79, 19, 8)
    assert isinstance(r, gpu.GpuStatus) and r.kind == "refused", r
    assert "no boundary checks" in r.reason and "pads" in r.reason


@pytest.mark.parametrize("M,N,K,T", [(32, 48, 19, 8), (64, 64, 64, 16), (16, 8, 3, 4)])
def test_unguarded_in_bounds_matches_model(M, N, K, T):
    """T divides M and N: gpu.check runs it; right iff T divides K; its trace is the model's."""
    r = gpu.check("tiled_unguarded", M, N, K, T)
    assert r.passed == (K % T == 0), r
    tr = gpu.trace("tiled_unguarded", M, N, K, T)
    L = Launch("tiled_unguarded", M, N, K, T)
    if L.phases:
        S = schedule(L)
        np.testing.assert_array_equal(tr.a, S.a_row.astype(np.int64) * K + S.a_col)
        np.testing.assert_array_equal(tr.b, S.b_row.astype(np.int64) * N + S.b_col)


@pytest.mark.parametrize("M,N,K,T", RECT, ids=lambda v: str(v))
def test_unguarded_padded_matches_model_prediction(M, N, K, T):
    r = gpu_edges.run_unguarded(M, N, K, T, seed=M * 7 + N)
    assert isinstance(r, dict), r
    pred = unguarded_values(Launch("tiled_unguarded", M, N, K, T), r["A"], r["B"])
    got = r["C"].astype(np.float64)
    assert not np.isnan(got).any()  # every element is stored (by its owner at least)
    contested = np.zeros((M, N), bool)
    for (i, j), vals in pred["candidates"].items():
        contested[i, j] = True
        assert got[i, j] in vals, (i, j, got[i, j], vals)
    np.testing.assert_array_equal(got[~contested], pred["C"][~contested])
    ref = r["A"].astype(np.float64) @ r["B"].astype(np.float64)
    if K % T:  # the last K % T terms are missing from every element
        assert not np.array_equal(got, ref)
    print(f"unguarded {M}x{N}x{K} T={T}: {int((got != ref).sum())} of {M * N} elements wrong, "
          f"{int(contested.sum())} contested")


@pytest.mark.parametrize("kernel", gpu_edges.BARRIER_VARIANTS)
@pytest.mark.parametrize("M,N,K,T", [(35, 79, 19, 8), (3, 3, 3, 2), (40, 40, 70, 32)])
def test_barrier_variants_load_what_the_model_says(kernel, M, N, K, T):
    tr = gpu.trace(kernel, M, N, K, T)
    assert isinstance(tr, gpu.KernelTrace), tr
    S = schedule(Launch(kernel, M, N, K, T))
    want_a = np.where(S.a_row < 0, -1, S.a_row.astype(np.int64) * K + S.a_col)
    want_b = np.where(S.b_row < 0, -1, S.b_row.astype(np.int64) * N + S.b_col)
    np.testing.assert_array_equal(tr.a, want_a)
    np.testing.assert_array_equal(tr.b, want_b)


@pytest.mark.parametrize("kernel", ["tiled", "tiled_no_barrier2"])
@pytest.mark.parametrize("M,N,K,T", [(35, 79, 19, 32), (64, 48, 8, 8), (100, 30, 16, 16)])
def test_no_hazard_means_always_right(kernel, M, N, K, T):
    """One phase: the detector finds no hazard for no_barrier2, and the GPU always agrees."""
    assert hazards.hazards(Launch(kernel, M, N, K, T)) == []
    r = gpu_edges.repeat_runs(kernel, M, N, K, T, repeats=100)
    assert r["runs_differing"] == 0, r


def test_flakiness_measured_and_recorded():
    rep = gpu_edges.flakiness(repeats=int(os.environ.get("EXPLAINER_FLAKY_REPEATS", "200")))
    assert isinstance(rep, dict), rep
    for row in rep["results"]:
        assert "error" not in row, row
        L = Launch(row["kernel"], row["M"], row["N"], row["K"], row["tile"])
        if not hazards.hazards(L):
            assert row["runs_differing"] == 0, row  # the correct kernel, or a race-free case
        print(f"{row['kernel']:18} {row['M']}x{row['N']}x{row['K']} T={row['tile']:2}: "
              f"{row['runs_differing']}/{row['repeats']} runs differ "
              f"(max {row['max_elements_differing']} elements)")
    out = os.environ.get("EXPLAINER_RECORD_DIR")
    if out:
        name = f"flakiness_{rep['device']['name'].lower().replace(' ', '-')}_{rep['date'][:10]}.json"
        Path(out, name).write_text(json.dumps(rep, indent=1) + "\n")
