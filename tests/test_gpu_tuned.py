"""The tuning engine's kernel on a real GPU (kernels/tuned/warptile_tuned.cu, its configurations in
explainer.tuning.configs; marked ``gpu`` and ``check``; skipped cleanly without a GPU): every
configuration correct against numpy float64 with C (and the split-K workspace, the padded copies)
poisoned with NaN, on odd shapes, even and aligned rows, whole tiles and at 4096^3, whole, split-K,
the split tail, ``+reduce`` and ``+pad``; its trace (-DEXPLAINER_TRACE) equal, slot by slot and
output by output, to ``configs.predict_trace``; no spills where the kernel's manual says none; the
roomy and tight bodies both correct. The rungs (kernels/10-14): tests/test_gpu_ladder.py."""

from __future__ import annotations

import numpy as np
import pytest

from explainer import gpu

from explainer.model import ladder
from explainer.tuning import configs

pytestmark = [pytest.mark.gpu, pytest.mark.check]

_STATUS = gpu.status()
if not _STATUS.available:
    pytest.skip(f"needs a CUDA GPU: {_STATUS.reason}", allow_module_level=True)

CONFIGS = configs.CONFIGS  # explainer.tuning registered them in explainer.gpu when imported
ODD = [(1, 1, 1), (35, 79, 19), (1000, 300, 77), (4095, 4097, 129)]
ids = lambda r: r.name  # noqa: E731


def _seed(*parts) -> int:
    return abs(hash(parts)) % (2**31)


def _shapes(r):
    """Odd shapes (guarded), whole block tiles (fast), whole in M, N but not in K, and edges on
    aligned rows (tiles shifted back inside C, or clamped copies where C is narrower than a tile:
    the first odd shapes, the smallest N it allows); even rows (GUARD 5: copies by pairs), A's,
    B's and both unaligned, and unaligned rows of C with K past WIDE_ROWS_K (the bodies without the
    wide epilogue: GUARD 2, 5; the shorter K run GUARD + 16)."""
    even = [(r.BM + 3, 2 * r.BN - 2, 4 * r.BK + 2), (r.BM + 3, 2 * r.BN - 4, 4 * r.BK + 2),
            (r.BM + 3, 2 * r.BN - 2, 4 * r.BK + 4),
            (r.BM + 3, 2 * r.BN - 1, 33 * r.BK + 1), (r.BM + 3, 2 * r.BN - 2, 33 * r.BK + 2)]
    return ODD + [(2 * r.BM, 3 * r.BN, 5 * r.BK), (r.BM, r.BN, 3 * r.BK + 1),
                  (r.BM + 1, 2 * r.BN - 1, 4 * r.BK), (r.BM + 4, 2 * r.BN - 4, 4 * r.BK + 4), (3, 4, 8)] + even


@pytest.mark.parametrize("r", CONFIGS, ids=ids)
def test_tuned_kernel_matches_numpy(r):
    for M, N, K in _shapes(r):
        res = gpu.check(r.name, M, N, K, seed=_seed(r.name, M, N, K))
        assert isinstance(res, gpu.CheckResult), res
        where = f"{r.name} {M}x{N}x{K} ({gpu.launch_config(r.name, M, N, K).expression})"
        assert res.all_written, f"{where}: {res.unwritten} elements unwritten"
        assert res.rel_error < 1e-5, f"{where}: rel. error {res.rel_error:.2e}"


def test_every_configuration_at_4096_cubed():
    """One 4096^3 problem (fresh random inputs), every configuration on it, C poisoned before each."""
    rt = gpu.runtime._runtime()
    prob = gpu.verify._Problem(rt, 4096, 4096, 4096, seed=_seed("4096", "tuned"))
    try:
        for r in CONFIGS:
            cfg = gpu.launch_config(r.name, 4096, 4096, 4096)
            # the fast path where the tiles divide 4096 (not 48- or 96-row tiles: aligned rows, GUARD 1)
            assert cfg.expression.endswith(", 0>" if r.fast(4096, 4096, 4096) else ", 1>")
            out = gpu.verify._check_on(rt, cfg, prob)
            assert out["all_written"] and out["rel_error"] < 1e-5, (r.name, out)
    finally:
        prob.release(rt)


@pytest.mark.parametrize("r", CONFIGS, ids=ids)
def test_exact_on_small_integers(r):
    rng = np.random.default_rng(5)
    A = rng.integers(-4, 5, size=(37, 21)).astype(np.float32)
    B = rng.integers(-4, 5, size=(21, 45)).astype(np.float32)
    C = gpu.matmul(r.name, A, B)
    assert isinstance(C, np.ndarray), C
    np.testing.assert_array_equal(C, A.astype(np.float64) @ B.astype(np.float64))


@pytest.mark.parametrize("r", CONFIGS, ids=ids)
def test_trace_matches_the_model(r):
    """K's partial phase first (lead), edge tiles shifted back or clamped, pairs, the wide epilogue
    and the bodies without it: every slot and output as ``configs.predict_trace`` says."""
    even = [(2 * r.BM + 1, r.BN + 6, 3 * r.BK + 2), (2 * r.BM + 1, r.BN + 6, 3 * r.BK + 4),
            (2 * r.BM + 1, r.BN + 4, 3 * r.BK + 2)]  # pairs (GUARD 5): both, B, A
    even += [(2 * r.BM + 1, r.BN + 3, 33 * r.BK + 2), (2 * r.BM + 1, r.BN + 6, 33 * r.BK + 2)]  # K past WIDE_ROWS_K
    for M, N, K in [(35, 79, 19), (2 * r.BM + 1, r.BN + 3, 3 * r.BK + 2),
                    (2 * r.BM, 2 * r.BN, 4 * r.BK), (2 * r.BM + 4, r.BN + 4, 3 * r.BK + 4)] + even:
        tr = gpu.trace(r.name, M, N, K, seed=_seed("trace", r.name, M, N, K))
        assert isinstance(tr, gpu.KernelTrace), tr
        assert tr.all_written and tr.rel_error < 1e-5  # the trace build computes C too
        want = configs.predict_trace(r, M, N, K)
        np.testing.assert_array_equal(tr.a, want.a, err_msg=f"{r.name} {M}x{N}x{K} As slots")
        np.testing.assert_array_equal(tr.b, want.b, err_msg=f"{r.name} {M}x{N}x{K} Bs slots")
        np.testing.assert_array_equal(tr.c, want.c, err_msg=f"{r.name} {M}x{N}x{K} outputs")


@pytest.mark.parametrize("r", CONFIGS, ids=ids)
def test_trace_of_some_blocks_at_1024_cubed(r):
    M = N = K = 1024
    gx, gy = r.grid(M, N)
    blocks = [(0, 0), (gx - 1, gy - 1), (gx // 2, 1)]
    tr = gpu.trace(r.name, M, N, K, blocks=blocks, seed=_seed("trace1024", r.name))
    assert isinstance(tr, gpu.KernelTrace), tr
    want = configs.predict_trace(r, M, N, K)
    for i, (bx, by) in enumerate(blocks):
        np.testing.assert_array_equal(tr.a[i], want.a[by, bx])
        np.testing.assert_array_equal(tr.b[i], want.b[by, bx])
        np.testing.assert_array_equal(tr.c[i], want.c[by, bx])


@pytest.mark.parametrize("r", CONFIGS, ids=ids)
def test_kernel_info(r):
    i = gpu.kernel_info(r.name)
    assert isinstance(i, gpu.KernelInfo), i
    assert 0 < i.registers <= 255 and i.local_bytes == 0, i  # no spills
    assert i.static_shared_bytes == r.shared_bytes and i.dynamic_shared_bytes == 0
    assert i.blocks_per_sm >= 1 and 0 < i.occupancy <= 1


def test_the_256x128_configuration_and_the_rung_agree():
    """warptile_256x128 (the tuned kernel) and the rung "warptile" (kernels/14_warptile.cu): the same
    tile, two kernels, the same product on an odd shape, each to float32 accuracy of float64."""
    rng = np.random.default_rng(21)
    A = rng.uniform(-1, 1, size=(300, 203)).astype(np.float32)
    B = rng.uniform(-1, 1, size=(203, 261)).astype(np.float32)
    want = A.astype(np.float64) @ B.astype(np.float64)
    for name in ("warptile", "warptile_256x128"):
        C = gpu.matmul(name, A, B)
        assert isinstance(C, np.ndarray), C
        assert np.abs(C - want).max() / np.abs(want).max() < 1e-5, name


# ---- split-K (warptile_splitk_gemm) ----------------------------------------------
SPLITTERS = [r for r in CONFIGS if r.splits_k]


@pytest.mark.parametrize("r", SPLITTERS, ids=ids)
def test_split_k_matches_numpy(r):
    """Odd shapes (guarded) and whole tiles (fast), S up to the number of phases; C and the
    workspace poisoned with NaN before each launch."""
    for M, N, K in [(35, 79, 19), (1000, 300, 77), (2 * r.BM, 3 * r.BN, 40 * r.BK),
                    (r.BM + 1, 2 * r.BN - 1, 9 * r.BK + 3), (r.BM + 1, 2 * r.BN - 2, 9 * r.BK + 2)]:  # the last: pairs
        for S in sorted({2, 3, 5, 7, r.phases(K)}):
            if S > r.phases(K):
                continue
            res = gpu.check(r.name, M, N, K, seed=_seed("split", r.name, M, N, K, S), splits=S)
            assert isinstance(res, gpu.CheckResult), res
            where = f"{r.name} {M}x{N}x{K} split {S}"
            assert res.all_written, f"{where}: {res.unwritten} elements unwritten"
            assert res.rel_error < 1e-5, f"{where}: rel. error {res.rel_error:.2e}"


@pytest.mark.parametrize("r", SPLITTERS, ids=ids)
def test_split_k_is_deterministic_and_leaves_its_counters_zero(r):
    """The last block adds the slices in the order z = 0, 1, ..: two runs give the same bits;
    exact on small integers; every tile counter is zero again after the launch."""
    rng = np.random.default_rng(11)
    M, N, K = r.BM + 5, r.BN + 7, 16 * r.BK + 1
    A = rng.uniform(-1, 1, size=(M, K)).astype(np.float32)
    B = rng.uniform(-1, 1, size=(K, N)).astype(np.float32)
    one, two = gpu.matmul(r.name, A, B, splits=4), gpu.matmul(r.name, A, B, splits=4)
    np.testing.assert_array_equal(one, two)
    Ai = rng.integers(-4, 5, size=(M, K)).astype(np.float32)
    Bi = rng.integers(-4, 5, size=(K, N)).astype(np.float32)
    np.testing.assert_array_equal(gpu.matmul(r.name, Ai, Bi, splits=5), Ai.astype(np.float64) @ Bi)
    rt = gpu.runtime._runtime()
    assert int(abs(rt._split_done).sum()) == 0


@pytest.mark.parametrize("r", SPLITTERS, ids=ids)
def test_split_k_with_a_separate_reduction_matches_numpy_and_is_deterministic(r):
    """``+reduce``: the blocks store their slices only and kernels/tuned/splitk_reduce.cu adds them.
    Odd shapes (M x N not a multiple of 4: the reduction's element path), whole tiles, a padded
    launch; C and the workspace poisoned with NaN; the tile counters untouched; the same bits
    run after run (a fixed order of the sums), exact on small integers."""
    rt = gpu.runtime._runtime()
    for M, N, K, S in [(35, 79, 19, 2), (1000, 301, 77, 5), (2 * r.BM, 3 * r.BN, 40 * r.BK, 7),
                            (r.BM + 1, 2 * r.BN - 1, 9 * r.BK + 3, 9), (r.BM + 3, r.BN + 2, 12 * r.BK + 1, 3)]:
        S = min(S, r.phases(K))
        if S < 2:  # K in one phase of this configuration: nothing to split
            continue
        for pad in (False, True) if (K % 4 or N % 4) else (False,):
            res = gpu.check(r.name, M, N, K, seed=_seed("reduce", r.name, M, N, K, S), splits=S, pad=pad, reduce=True)
            assert isinstance(res, gpu.CheckResult), res
            where = f"{r.name} {M}x{N}x{K} split {S} +reduce" + ("+pad" if pad else "")
            assert res.all_written, f"{where}: {res.unwritten} elements unwritten"
            assert res.rel_error < 1e-5, f"{where}: rel. error {res.rel_error:.2e}"
            assert int(abs(rt._split_done).sum()) == 0, where
    rng = np.random.default_rng(13)
    M, N, K = r.BM + 5, r.BN + 7, 16 * r.BK + 1
    A = rng.uniform(-1, 1, size=(M, K)).astype(np.float32)
    B = rng.uniform(-1, 1, size=(K, N)).astype(np.float32)
    np.testing.assert_array_equal(gpu.matmul(r.name, A, B, splits=6, reduce=True),
                                  gpu.matmul(r.name, A, B, splits=6, reduce=True))
    Ai = rng.integers(-4, 5, size=(M, K)).astype(np.float32)
    Bi = rng.integers(-4, 5, size=(K, N)).astype(np.float32)
    np.testing.assert_array_equal(gpu.matmul(r.name, Ai, Bi, splits=12, reduce=True), Ai.astype(np.float64) @ Bi)


@pytest.mark.parametrize("r", SPLITTERS, ids=ids)
def test_split_k_with_a_separate_reduction_trace_matches_the_model(r):
    """``+reduce``: each phase recorded once by the block of its slice, as without it, and no
    output of C stored by any thread of the launch (the reduction kernel stores them)."""
    for M, N, K, S in [(2 * r.BM + 1, r.BN + 3, 7 * r.BK + 2, 4), (2 * r.BM, 2 * r.BN, 6 * r.BK, 6),
                       (2 * r.BM + 1, r.BN + 6, 7 * r.BK + 4, 4)]:  # the last: B's rows even (pairs)
        tr = gpu.trace(r.name, M, N, K, seed=_seed("trace-reduce", r.name, M, N, K), splits=S, reduce=True)
        assert isinstance(tr, gpu.KernelTrace), tr
        assert tr.config.reduce and tr.all_written and tr.rel_error < 1e-5
        want = configs.predict_trace(r, M, N, K, reduce=True, split=True)
        assert (want.c == ladder.NEVER).all()
        np.testing.assert_array_equal(tr.a, want.a, err_msg=f"{r.name} {M}x{N}x{K}/{S} As slots")
        np.testing.assert_array_equal(tr.b, want.b, err_msg=f"{r.name} {M}x{N}x{K}/{S} Bs slots")
        np.testing.assert_array_equal(tr.c, want.c, err_msg=f"{r.name} {M}x{N}x{K}/{S} outputs")


@pytest.mark.parametrize("r", SPLITTERS, ids=ids)
def test_split_tail_matches_numpy_and_leaves_its_counters_zero(r):
    """The split tail (warptile_splittail_gemm): the first tiles whole, the last R split in S;
    odd shapes (guarded, edge tiles in the tail and among the whole ones) and whole tiles (fast);
    C and the workspace poisoned with NaN; two runs give the same bits."""
    rt = gpu.runtime._runtime()
    for M, N, K, cases in [(2 * r.BM + 1, 3 * r.BN - 5, 9 * r.BK + 3, [(1, 2), (4, 3), (8, 5)]),
                           (2 * r.BM, 3 * r.BN, 40 * r.BK, [(5, 4), (2, 7)])]:
        for R, S in cases:
            res = gpu.check(r.name, M, N, K, seed=_seed("tail", r.name, M, N, K, R, S), splits=S, tail=R)
            assert isinstance(res, gpu.CheckResult), res
            where = f"{r.name} {M}x{N}x{K} last {R} tiles split {S}"
            assert res.all_written, f"{where}: {res.unwritten} elements unwritten"
            assert res.rel_error < 1e-5, f"{where}: rel. error {res.rel_error:.2e}"
            assert int(abs(rt._split_done).sum()) == 0, where
    rng = np.random.default_rng(12)
    M, N, K = 2 * r.BM + 3, 2 * r.BN - 1, 12 * r.BK + 5
    A = rng.uniform(-1, 1, size=(M, K)).astype(np.float32)
    B = rng.uniform(-1, 1, size=(K, N)).astype(np.float32)
    np.testing.assert_array_equal(gpu.matmul(r.name, A, B, splits=3, tail=2), gpu.matmul(r.name, A, B, splits=3, tail=2))


@pytest.mark.parametrize("r", SPLITTERS, ids=ids)
def test_padded_launch_matches_numpy(r):
    """A padded launch (``+pad``: A where K, B where N is not a multiple of 4, copied into rows
    padded to 4 floats, kernels/tuned/pad_rows.cu; C stored in place): K, N or both unaligned, whole and
    split (split-K, split tail, +reduce); C and the padded copies poisoned with NaN (a pad the
    copy kernel does not write reads NaN into C). The same bits as the launch without padding:
    the same phases add the same products in the same order."""
    shapes = [(2 * r.BM + 1, 3 * r.BN - 5, 9 * r.BK + 3), (r.BM, 2 * r.BN, 5 * r.BK - 1),
              (3 * r.BM - 7, r.BN + 2, 4 * r.BK), (r.BM + 4, 2 * r.BN - 1, 4 * r.BK + 4), (1, 1, 1), (37, 5, 3)]
    for M, N, K in shapes:
        launches = [(1, 0, False)] + ([(2, 0, False), (3, 1, False), (3, 0, True)] if r.phases(K) >= 3 else [])
        for S, R, red in launches:
            gx, gy = r.grid(M, N)
            if R and gx * gy < 2:  # a split tail needs a tile to leave whole
                continue
            res = gpu.check(r.name, M, N, K, seed=_seed("pad", r.name, M, N, K, S, R), splits=S, tail=R, pad=True,
                            reduce=red)
            assert isinstance(res, gpu.CheckResult), res
            where = f"{r.name} {M}x{N}x{K} S={S} R={R} reduce={red} padded"
            assert res.all_written, f"{where}: {res.unwritten} elements unwritten"
            assert res.rel_error < 1e-5, f"{where}: rel. error {res.rel_error:.2e}"
    rng = np.random.default_rng(13)
    for M, N, K in [(2 * r.BM + 3, 2 * r.BN - 1, 6 * r.BK + 5), (r.BM + 5, 2 * r.BN + 4, 5 * r.BK + 2),
                    (2 * r.BM, r.BN + 1, 4 * r.BK)]:
        A = rng.uniform(-1, 1, size=(M, K)).astype(np.float32)
        B = rng.uniform(-1, 1, size=(K, N)).astype(np.float32)
        for S in (1, 3):
            np.testing.assert_array_equal(gpu.matmul(r.name, A, B, splits=S, pad=True), gpu.matmul(r.name, A, B, splits=S),
                                          err_msg=f"{r.name} {M}x{N}x{K} S={S}")


@pytest.mark.parametrize("r", SPLITTERS, ids=ids)
def test_padded_launch_trace_matches_the_model(r):
    """``+pad``: the kernel reads the padded copies but records indices into A and B: every slot
    as the model says (B's granules clamped into its padded rows at the edge), every output by
    the thread the model names, whole, split and split tail."""
    for M, N, K, S, R in [(2 * r.BM + 1, r.BN + 3, 7 * r.BK + 2, 1, 0), (2 * r.BM + 1, r.BN + 3, 7 * r.BK + 2, 4, 0),
                          (2 * r.BM + 1, r.BN + 3, 33 * r.BK + 2, 1, 0),  # K past WIDE_ROWS_K: GUARD 3
                          (2 * r.BM - 3, 2 * r.BN + 4, 5 * r.BK + 1, 1, 0), (2 * r.BM - 3, 2 * r.BN + 4, 5 * r.BK + 1, 3, 0),
                          (2 * r.BM + 4, r.BN + 1, 6 * r.BK + 4, 3, 2)]:
        tr = gpu.trace(r.name, M, N, K, seed=_seed("trace-pad", r.name, M, N, K, S), splits=S, tail=R, pad=True)
        assert isinstance(tr, gpu.KernelTrace), tr
        assert tr.config.pad and tr.all_written and tr.rel_error < 1e-5
        want = configs.predict_trace(r, M, N, K, pad=True)
        where = f"{r.name} {M}x{N}x{K} S={S} R={R} padded"
        np.testing.assert_array_equal(tr.a, want.a, err_msg=f"{where} As slots")
        np.testing.assert_array_equal(tr.b, want.b, err_msg=f"{where} Bs slots")
        np.testing.assert_array_equal(tr.c, want.c, err_msg=f"{where} outputs")


@pytest.mark.parametrize("r", SPLITTERS, ids=ids)
def test_split_tail_trace_matches_the_model(r):
    """With the split tail the blocks are no longer laid out by tile (a 1D grid); the trace is
    still recorded by tile of C, each phase once and each output by the thread the model names."""
    for M, N, K, R, S in [(2 * r.BM + 1, r.BN + 3, 7 * r.BK + 2, 3, 4), (2 * r.BM, 2 * r.BN, 6 * r.BK, 1, 3),
                          (2 * r.BM + 4, r.BN + 4, 7 * r.BK + 4, 2, 3),  # aligned rows, edges
                          (2 * r.BM + 1, r.BN + 4, 7 * r.BK + 2, 2, 3)]:  # only A's rows unaligned
        tr = gpu.trace(r.name, M, N, K, seed=_seed("trace-tail", r.name, M, N, K), splits=S, tail=R)
        assert isinstance(tr, gpu.KernelTrace), tr
        assert tr.config.grid == (tr.config.tiles - R + R * S, 1, 1) and tr.all_written and tr.rel_error < 1e-5
        want = configs.predict_trace(r, M, N, K, split=True)
        np.testing.assert_array_equal(tr.a, want.a, err_msg=f"{r.name} {M}x{N}x{K}/{R}x{S} As slots")
        np.testing.assert_array_equal(tr.b, want.b, err_msg=f"{r.name} {M}x{N}x{K}/{R}x{S} Bs slots")
        np.testing.assert_array_equal(tr.c, want.c, err_msg=f"{r.name} {M}x{N}x{K}/{R}x{S} outputs")


@pytest.mark.parametrize("r", SPLITTERS, ids=ids)
def test_split_k_trace_matches_the_model(r):
    """Each phase recorded once, by the block of its slice; each output stored by the thread
    the model names (in the block that adds the slices)."""
    for M, N, K, S in [(35, 79, 19, min(3, r.phases(19))), (2 * r.BM + 1, r.BN + 3, 7 * r.BK + 2, 4),
                       (2 * r.BM, 2 * r.BN, 6 * r.BK, 6), (2 * r.BM + 4, r.BN + 4, 7 * r.BK + 4, 4),
                       (2 * r.BM + 1, r.BN + 4, 7 * r.BK + 2, 4)]:  # the last: only A's rows unaligned
        tr = gpu.trace(r.name, M, N, K, seed=_seed("trace-split", r.name, M, N, K), splits=S)
        assert isinstance(tr, gpu.KernelTrace), tr
        assert tr.config.grid[2] == S and tr.all_written and tr.rel_error < 1e-5
        # the whole-K entry point's slots, but for B's element copies (predict_trace's split)
        want = configs.predict_trace(r, M, N, K, split=True)
        np.testing.assert_array_equal(tr.a, want.a, err_msg=f"{r.name} {M}x{N}x{K}/{S} As slots")
        np.testing.assert_array_equal(tr.b, want.b, err_msg=f"{r.name} {M}x{N}x{K}/{S} Bs slots")
        np.testing.assert_array_equal(tr.c, want.c, err_msg=f"{r.name} {M}x{N}x{K}/{S} outputs")


@pytest.mark.parametrize("r", [r for r in SPLITTERS if r.has_roomy], ids=ids)
def test_roomy_and_tight_instantiations_agree(r, monkeypatch):
    """The tuned kernel on unaligned rows: GUARD 4 (registers for MINB - 1 blocks per SM; what a launch
    of few blocks runs here) and GUARD 2 (MINB; TunedConfig.roomy switched off) both correct
    against float64 with C poisoned, whole and split, their traces equal to the model."""
    rt = gpu.runtime._runtime()
    for M, N, K, guards in ((2 * r.BM + 3, r.BN + 5, 33 * r.BK + 1, (", 4>", ", 2>")),
                            (2 * r.BM + 3, r.BN + 6, 33 * r.BK + 2, (", 6>", ", 5>")),  # even rows: pairs
                            (2 * r.BM + 3, r.BN + 5, 7 * r.BK + 1, (", 20>", ", 18>")),  # short K: the wide twins
                            (2 * r.BM + 3, r.BN + 6, 7 * r.BK + 2, (", 22>", ", 21>"))):
        monkeypatch.undo()
        for roomy in (True, False):
            if not roomy:
                monkeypatch.setattr(configs.TunedConfig, "roomy", lambda self, blocks, sms: False)
            for S in (1, 3):
                cfg = gpu.launch_config(r.name, M, N, K, splits=S)
                want = guards[0] if roomy else guards[1]
                if S > 1:  # split entry points: never the wide epilogue
                    want = f", {int(want[2:-1]) & 15}>"
                assert cfg.on_device(rt.sm_count).endswith(want), (cfg.on_device(rt.sm_count), want)
                res = gpu.check(r.name, M, N, K, seed=_seed("roomy", r.name, M, S, roomy), splits=S)
                assert isinstance(res, gpu.CheckResult), res
                assert res.all_written and res.rel_error < 1e-5, (r.name, M, N, K, S, roomy, res)
            tr = gpu.trace(r.name, M, N, K, seed=_seed("roomy-trace", r.name, M, roomy), splits=3)
            assert isinstance(tr, gpu.KernelTrace), tr
            want = configs.predict_trace(r, M, N, K, split=True)
            np.testing.assert_array_equal(tr.a, want.a, err_msg=f"{r.name} {M}x{N}x{K} roomy={roomy} As slots")
            np.testing.assert_array_equal(tr.b, want.b, err_msg=f"{r.name} {M}x{N}x{K} roomy={roomy} Bs slots")
            np.testing.assert_array_equal(tr.c, want.c, err_msg=f"{r.name} {M}x{N}x{K} roomy={roomy} outputs")
