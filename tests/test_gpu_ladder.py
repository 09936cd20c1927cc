"""The ladder kernels (kernels/10-14, page 08) on a real GPU (marked ``gpu``; skipped cleanly
without one): correct on odd shapes and at 4096^3 against numpy float64 with C poisoned, fast
and guarded instantiations both; and their own trace (-DEXPLAINER_TRACE) equal, slot by slot
and output by output, to explainer.model.ladder's model. Speed is measured by
``tiled-explainer bench`` and benchmarks/tune_ladder.py, not here. The tuning engine's kernel
(kernels/tuned/, explainer.tuning: split-K, the split tail, padded rows): tests/test_gpu_tuned.py."""

from __future__ import annotations

import numpy as np
import pytest

from explainer import gpu

from explainer.model import ladder

pytestmark = pytest.mark.gpu

_STATUS = gpu.status()
if not _STATUS.available:
    pytest.skip(f"needs a CUDA GPU: {_STATUS.reason}", allow_module_level=True)

RUNGS = ladder.RUNGS  # kernels 10-14 (the tuning engine's configurations: tests/test_gpu_tuned.py)
ODD = [(1, 1, 1), (35, 79, 19), (1000, 300, 77), (4095, 4097, 129)]
ids = lambda r: r.name  # noqa: E731


def _seed(*parts) -> int:
    return abs(hash(parts)) % (2**31)


def _shapes(r):
    """Odd shapes (guarded), whole block tiles (fast), whole in M, N but not in K (the partial phase
    last, its zeros after column K - 1), edge tiles on aligned and unaligned rows (padding zeros
    past M and N), C narrower and shorter than a tile."""
    return ODD + [(2 * r.BM, 3 * r.BN, 5 * r.BK), (r.BM, r.BN, 3 * r.BK + 1),
                  (r.BM + 1, 2 * r.BN - 1, 4 * r.BK), (r.BM + 4, 2 * r.BN - 4, 4 * r.BK + 4), (3, 4, 8),
                  (r.BM - 3, r.BN - 5, 2 * r.BK + 3)]


@pytest.mark.parametrize("r", RUNGS, ids=ids)
def test_ladder_kernel_matches_numpy(r):
    for M, N, K in _shapes(r):
        res = gpu.check(r.name, M, N, K, seed=_seed(r.name, M, N, K))
        assert isinstance(res, gpu.CheckResult), res
        where = f"{r.name} {M}x{N}x{K} ({'fast' if r.fast(M, N, K) else 'guarded'})"
        assert res.all_written, f"{where}: {res.unwritten} elements unwritten"
        assert res.rel_error < 1e-5, f"{where}: rel. error {res.rel_error:.2e}"


def test_every_ladder_kernel_at_4096_cubed():
    """One 4096^3 problem (fresh random inputs), every rung on it, C poisoned before each."""
    rt = gpu.runtime._runtime()
    prob = gpu.verify._Problem(rt, 4096, 4096, 4096, seed=_seed("4096", "ladder"))
    try:
        for r in RUNGS:
            cfg = gpu.launch_config(r.name, 4096, 4096, 4096)
            assert cfg.expression.endswith("false>")  # the fast path: every rung's tiles divide 4096
            out = gpu.verify._check_on(rt, cfg, prob)
            assert out["all_written"] and out["rel_error"] < 1e-5, (r.name, out)
    finally:
        prob.release(rt)


@pytest.mark.parametrize("r", RUNGS, ids=ids)
def test_exact_on_small_integers(r):
    rng = np.random.default_rng(5)
    A = rng.integers(-4, 5, size=(37, 21)).astype(np.float32)
    B = rng.integers(-4, 5, size=(21, 45)).astype(np.float32)
    C = gpu.matmul(r.name, A, B)
    assert isinstance(C, np.ndarray), C
    np.testing.assert_array_equal(C, A.astype(np.float64) @ B.astype(np.float64))


@pytest.mark.parametrize("r", RUNGS, ids=ids)
def test_trace_matches_the_model(r):
    """Every slot of every phase and every output as ``ladder.predict_trace`` says: K's padding
    zeros in the last phase, padding zeros past M and N in the edge blocks' slots (no shifted or
    clamped tiles), each output stored by its own thread of its own block."""
    for M, N, K in [(35, 79, 19), (2 * r.BM + 1, r.BN + 3, 3 * r.BK + 2),
                    (2 * r.BM, 2 * r.BN, 4 * r.BK), (2 * r.BM + 4, r.BN + 4, 3 * r.BK + 4),
                    (r.BM - 3, r.BN - 5, 2 * r.BK + 3)]:
        tr = gpu.trace(r.name, M, N, K, seed=_seed("trace", r.name, M, N, K))
        assert isinstance(tr, gpu.KernelTrace), tr
        assert tr.all_written and tr.rel_error < 1e-5  # the trace build computes C too
        want = ladder.predict_trace(r, M, N, K)
        np.testing.assert_array_equal(tr.a, want.a, err_msg=f"{r.name} {M}x{N}x{K} As slots")
        np.testing.assert_array_equal(tr.b, want.b, err_msg=f"{r.name} {M}x{N}x{K} Bs slots")
        np.testing.assert_array_equal(tr.c, want.c, err_msg=f"{r.name} {M}x{N}x{K} outputs")


@pytest.mark.parametrize("r", RUNGS, ids=ids)
def test_trace_of_some_blocks_at_1024_cubed(r):
    M = N = K = 1024
    gx, gy = r.grid(M, N)
    blocks = [(0, 0), (gx - 1, gy - 1), (gx // 2, 1)]
    tr = gpu.trace(r.name, M, N, K, blocks=blocks, seed=_seed("trace1024", r.name))
    assert isinstance(tr, gpu.KernelTrace), tr
    want = ladder.predict_trace(r, M, N, K)
    for i, (bx, by) in enumerate(blocks):
        np.testing.assert_array_equal(tr.a[i], want.a[by, bx])
        np.testing.assert_array_equal(tr.b[i], want.b[by, bx])
        np.testing.assert_array_equal(tr.c[i], want.c[by, bx])


@pytest.mark.parametrize("r", RUNGS, ids=ids)
def test_kernel_info(r):
    i = gpu.kernel_info(r.name)
    assert isinstance(i, gpu.KernelInfo), i
    assert 0 < i.registers <= 255 and i.local_bytes == 0, i  # no spills
    assert i.static_shared_bytes == r.shared_bytes and i.dynamic_shared_bytes == 0
    assert i.blocks_per_sm >= 1 and 0 < i.occupancy <= 1


def test_benchmark_runs_the_ladder_once_per_size():
    rep = gpu.benchmark(["tiled", *ladder.NAMES], [256, "100x130x70"], [16], repeats=3,
                        budget_s=0.5)
    assert isinstance(rep, gpu.BenchReport), rep
    assert rep.errors == []
    assert [(x["kernel"], x["tile"]) for x in rep.results[:6]] == \
        [("tiled", 16)] + [(n, None) for n in ladder.NAMES]
    assert len(rep.results) == 12 and all(x["passed"] for x in rep.results)


def test_the_rungs_refuse_split_k_on_the_gpu_too():
    """Kernel 14 the rung has one entry point, whole K: a split or padded launch is refused in one
    line (a GpuStatus, nothing raised) before anything is compiled; a launch names one of its two
    instantiations, on this device too."""
    for kw, msg in ((dict(splits=2), "no split-K"), (dict(splits=2, tail=1), "no split-K"),
                    (dict(pad=True), "only the tuning engine's configurations")):
        res = gpu.check("warptile", 300, 200, 100, **kw)
        assert isinstance(res, gpu.GpuStatus) and res.kind == "refused" and msg in res.reason, res
        assert "\n" not in res.reason
    rt = gpu.runtime._runtime()
    cfg = gpu.launch_config("warptile", 300, 200, 100)
    assert cfg.on_device(rt.sm_count) == cfg.expression and cfg.expression in ladder.rung("warptile").expressions
