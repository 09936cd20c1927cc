"""The ladder kernels' model (explainer.model.ladder, kernels 10-14) on the CPU: who owns which
output, what each shared slot holds, and a replay that must reproduce A @ B exactly; plus the
launch geometry that explainer.gpu takes from it. The GPU side (tests/test_gpu_ladder.py) compares
the same functions with what the kernels recorded.

Only the rungs here: the tuning engine's configurations of a tuned kernel 14 (explainer.tuning,
kernels/tuned/: split-K, the split tail, padded rows, edge bodies) are tested in
tests/test_tuned_model.py, marked ``check``."""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest

from explainer import gpu

from explainer.model import ladder

RUNGS = ladder.RUNGS
ODD = [(1, 1, 1), (35, 79, 19), (130, 260, 17), (257, 129, 9), (130, 260, 20)]  # the last: rows aligned


def _ints(rng, shape):
    return rng.integers(-4, 5, size=shape).astype(np.float64)


@pytest.mark.parametrize("r", RUNGS, ids=lambda r: r.name)
def test_every_output_of_the_block_tile_has_exactly_one_owner(r):
    om = ladder.owner_map(r)
    assert om.shape == (r.BM, r.BN) and (om >= 0).all()
    counts = np.bincount(om.ravel(), minlength=r.threads)
    assert len(counts) == r.threads and (counts == r.outputs_per_thread).all()


@pytest.mark.parametrize("r", RUNGS, ids=lambda r: r.name)
@pytest.mark.parametrize("shape", ODD, ids=lambda s: "x".join(map(str, s)))
def test_replay_reproduces_the_product_exactly(r, shape):
    M, N, K = shape
    rng = np.random.default_rng(M * 7 + N * 3 + K)
    A, B = _ints(rng, (M, K)), _ints(rng, (K, N))
    np.testing.assert_array_equal(ladder.replay(r, A, B), A @ B)


def test_replay_can_fail(monkeypatch):
    """A compute loop that reads As untransposed while the copy stored it transposed (the bug
    kernel 12 invites) gives a wrong replay; so does a copy that skips a slot."""
    r = ladder.BY_NAME["vectorized"]
    rng = np.random.default_rng(1)
    A, B = _ints(rng, (40, 50)), _ints(rng, (50, 60))
    monkeypatch.setattr(ladder, "read_slot_a", lambda rr, m, k: np.asarray(m) * rr.BK + k)
    assert not np.array_equal(ladder.replay(r, A, B), A @ B)
    monkeypatch.undo()
    real = ladder.predict_trace

    def lossy(*a):
        tr = real(*a)
        tr.b[..., 0] = ladder.NEVER  # Bs[0][0]: read by the owners of column 0
        return tr

    monkeypatch.setattr(ladder, "predict_trace", lossy)
    assert np.isnan(ladder.replay(r, A, B)).any()


def test_seed_numbers_of_the_first_rungs():
    """Thread 0 of blocktile_1d owns rows 0..7 of column 0; thread 1 column 1 (threadCol is the
    consecutive index: coalesced C stores). 2D: thread 17 owns rows 8..15, columns 8..15."""
    r = ladder.BY_NAME["blocktile_1d"]
    rows, cols = ladder.thread_outputs(r, np.array([0, 1]))
    assert rows[0].tolist() == list(range(8)) and set(cols[0]) == {0} and set(cols[1]) == {1}
    r = ladder.BY_NAME["blocktile_2d"]
    rows, cols = ladder.thread_outputs(r, 17)
    assert sorted(set(rows)) == list(range(8, 16)) and sorted(set(cols)) == list(range(8, 16))


def test_warptile_lanes_of_a_warp_read_adjacent_float4s():
    """The point of warp tiling: at one k, the 32 lanes of a warp read float4s of Bs that are
    adjacent (no two lanes in the same bank unless they read the same word)."""
    r = ladder.BY_NAME["warptile"]
    w = r.warp_dims
    rows, cols = ladder.thread_outputs(r, np.arange(32))
    first_cols = cols[:, 0]  # the first float4 column each lane reads of sub-tile 0
    distinct = np.unique(first_cols)
    assert len(distinct) == w["WSUBN"] // r["TN"]
    assert np.array_equal(np.diff(distinct), np.full(len(distinct) - 1, r["TN"]))
    banks = (distinct % 32) // 4
    assert len(set(banks)) == len(distinct)  # different 16-byte bank groups
    # the warp's outputs form one WM x WN rectangle
    assert rows.max() - rows.min() + 1 == w["WM"] and cols.max() - cols.min() + 1 == w["WN"]


@pytest.mark.parametrize("r", RUNGS, ids=lambda r: r.name)
def test_loaders_cover_each_window_once_per_instruction(r):
    la, lb = ladder.loader_a(r), ladder.loader_b(r)
    assert la.shape == (r.BM, r.BK) and lb.shape == (r.BK, r.BN)
    assert la.min() >= 0 and la.max() < r.threads and lb.max() < r.threads
    v = r.vector
    # with float4 loads, 4 neighbours along k (A) / n (B) come from one thread
    assert (la.reshape(r.BM, r.BK // v, v) == la.reshape(r.BM, r.BK // v, v)[..., :1]).all()
    assert (lb.reshape(r.BK, r.BN // v, v) == lb.reshape(r.BK, r.BN // v, v)[..., :1]).all()


@pytest.mark.parametrize("r", RUNGS, ids=lambda r: r.name)
def test_predicted_trace_layout(r):
    M, N, K = 35, 79, 19
    tr = ladder.predict_trace(r, M, N, K)
    gx, gy = r.grid(M, N)
    P = r.phases(K)
    assert tr.a.shape == (gy, gx, P, r.slots_a) and tr.b.shape == (gy, gx, P, r.slots_b)
    assert tr.c.shape == (gy, gx, r.threads, r.outputs_per_thread)
    stored = tr.c[tr.c >= 0]
    assert len(stored) == M * N and len(np.unique(stored)) == M * N
    pad_slots = (tr.a == ladder.NEVER).sum(axis=-1)
    assert (pad_slots == r.BK * r["PAD"]).all()  # only the padding columns of As stay unwritten
    # a rung's trace build records what predict_trace says, and ``Rung.trace`` is it
    again = r.trace(M, N, K)
    assert all((getattr(again, f) == getattr(tr, f)).all() for f in "abc")


@pytest.mark.parametrize("r", RUNGS, ids=lambda r: r.name)
@pytest.mark.parametrize("K", [1, 19, 33, 64, 70])
def test_partial_phase_is_the_last(r, K):
    """Where BK does not divide K, every rung (kernel 14 included) fills its partial phase with
    padding zeros after column K - 1, in the last phase (lead 0); every other phase holds BK
    columns, in order, and every column comes once."""
    M, N = 35, 79
    tr = ladder.predict_trace(r, M, N, K)
    P = r.phases(K)
    assert r.lead(K) == 0
    a = tr.a[0, 0]  # (phases, slots) of block (0, 0)
    inside = (a >= 0)
    cols = np.where(inside, a % K, -1)
    for t in range(P):
        want = set(range(t * r.BK, (t + 1) * r.BK)) & set(range(K))
        assert set(cols[t][inside[t]]) == want, t
        if t != P - 1 or P * r.BK == K:
            assert len(want) == r.BK, t
    seen = np.concatenate([cols[t][inside[t] & (a[t] // K == 0)] for t in range(P)])
    np.testing.assert_array_equal(np.sort(seen), np.arange(K))  # row 0 of A: each column once
    if P * r.BK > K:  # the partial phase's zeros: in A's slots past column K - 1, B's past row K - 1
        m, k = ladder.slot_coords_a(r)
        last = a[P - 1][(m >= 0) & (m < M)]  # rows inside A (block 0, 0)
        kk = k[(m >= 0) & (m < M)]
        assert (last[(P - 1) * r.BK + kk >= K] == ladder.PAD).all() and (last[(P - 1) * r.BK + kk < K] >= 0).all()
        kb, _ = ladder.slot_coords_b(r)
        assert (tr.b[0, 0, P - 1][(P - 1) * r.BK + kb >= K] == ladder.PAD).all()


@pytest.mark.parametrize("r", RUNGS, ids=lambda r: r.name)
def test_edge_blocks_hold_padding_zeros_past_c(r):
    """The rungs' edge blocks (kernel 14 too) stay on their own tile of C: where it crosses C's
    last row (column), the slots of A's rows past M and B's columns past N hold padding zeros,
    never a row or column of the matrix (no shifted or clamped tiles: that is the tuning engine's
    kernel); every launch stores every output of C exactly once, each by its own block."""
    shapes = [(2 * r.BM + 3, r.BN + 4, 21), (2 * r.BM + 3, r.BN + 2, 21), (2 * r.BM + 3, r.BN + 4, 20),
              (max(r.BM - 2, 1), r.BN + 4, 21), (r.BM + 1, r.BN - 4, 20), (r.BM + 1, r.BN - 3, 21)]
    m, _ = ladder.slot_coords_a(r)
    _, n = ladder.slot_coords_b(r)
    rows, cols = ladder.thread_outputs(r, np.arange(r.threads))
    for M, N, K in shapes:
        tr = ladder.predict_trace(r, M, N, K)
        assert np.array_equal(np.sort(tr.c[tr.c >= 0]), np.arange(M * N)), (M, N, K)
        gx, gy = r.grid(M, N)
        for by in range(gy):  # each block stores the outputs of its own tile, and only those
            for bx in range(gx):
                c = tr.c[by, bx]
                own = (by * r.BM + rows < M) & (bx * r.BN + cols < N)
                np.testing.assert_array_equal(c[own], ((by * r.BM + rows) * N + bx * r.BN + cols)[own])
                assert (c[~own] == ladder.NEVER).all()
        a = tr.a[gy - 1, 0]  # the last row of blocks: its own rows, padding zeros past M
        past = (gy - 1) * r.BM + m >= M
        vals = a[:, past & (m >= 0)]
        assert (vals == ladder.PAD).all()
        rows_a = a[a >= 0] // K
        assert rows_a.min() == (gy - 1) * r.BM and rows_a.max() == M - 1
        b = tr.b[0, gx - 1]  # the last column of blocks: its own columns, padding zeros past N
        assert (b[:, (gx - 1) * r.BN + n >= N] == ladder.PAD).all()
        cols_b = b[b >= 0] % N
        assert cols_b.min() == (gx - 1) * r.BN and cols_b.max() == N - 1


@pytest.mark.parametrize("r", RUNGS, ids=lambda r: r.name)
def test_launch_config_comes_from_the_ladder(r):
    for M, N, K in ODD + [(4096, 4096, 4096), (r.BM * 2, r.BN * 3, r.BK * 5)]:
        cfg = gpu.launch_config(r.name, M, N, K)
        assert cfg.tile is None and cfg.block == (r.threads, 1, 1)
        gx, gy, z = cfg.grid
        assert gx * r.BN >= N > (gx - 1) * r.BN and gy * r.BM >= M > (gy - 1) * r.BM and z == 1
        assert cfg.phases == -(-K // r.BK) and cfg.shared_bytes == r.shared_bytes
        fast = M % r.BM == 0 and N % r.BN == 0 and K % r.BK == 0
        assert cfg.expression == r.expression(not fast) == r.launch_expression(M, N, K)
        assert cfg.expression.endswith("false>" if fast else "true>") and cfg.expression in r.expressions
        assert cfg.on_device(132) == cfg.expression  # one instantiation per launch, whatever the device
        assert cfg.ld is None and cfg.workspace_floats == 0 and cfg.label == r.name  # no strides, no split


def test_kernel_14_is_the_plain_warp_tiled_rung():
    """The rung "warptile" (kernels/14_warptile.cu) is a teaching rung like 12 and 13: a bool
    GUARD, two instantiations, K's padding zeros in the last phase, no split-K, no swizzle, one
    block per SM asked of __launch_bounds__; its parameters are the 256 x 128 tile the tuning
    engine's 256 x 128 configuration starts from."""
    r = ladder.rung("warptile")
    assert (r.file, r.symbol) == ("14_warptile.cu", "warptile_gemm")
    assert (r.BM, r.BN, r.BK, r.threads, r.layout, r.buffers, r.barriers_per_phase) == (256, 128, 8, 256, "warp", 2, 1)
    assert not r.splits_k and not r.swizzled and r.min_blocks == 1
    assert all(r.lead(K) == 0 for K in (1, 7, 8, 1100, 4097))
    args = "256, 128, 8, 64, 64, 2, 8, 4, 256, 4, 1"
    assert r.expressions == [f"warptile_gemm<{args}, false>", f"warptile_gemm<{args}, true>"]
    assert r.expression(True) == f"warptile_gemm<{args}, true>"
    assert r.launch_expression(1000, 1000, 1100) == r.expression(True)
    assert r.launch_expression(4096, 4096, 4096) == r.expression(False)
    assert (ladder.as_swizzle(r, np.arange(32)) == 0).all()
    spec = gpu.KERNELS["warptile"]
    assert spec.file == "14_warptile.cu" and spec.config is r and spec.name_expressions == r.expressions
    assert not any(s.file.startswith("tuned/") for s in gpu.KERNELS.values() if s.name in ladder.NAMES)


def test_no_rung_swizzles_or_splits():
    assert not any(r.swizzled or r.splits_k for r in RUNGS)
    assert all(len(r.expressions) == 2 for r in RUNGS)


def test_rungs_have_no_split_k_no_padded_launch_and_no_split_labels():
    """The rungs, kernel 14 included, run whole K: a split-K count, a split tail, ``+reduce`` or
    ``+pad`` is refused in one line (those are the tuning engine's launches)."""
    from explainer.gpu.launch import parse_label, parse_launch

    assert parse_label("warptile") == ("warptile", 1, 0) and parse_label("warptile@1") == ("warptile", 1, 0)
    for bad, msg in (("warptile@2", "no split-K"), ("warptile@24x5", "no split-K"), ("double_buffered@3", "no split-K")):
        with pytest.raises(ValueError, match=msg):
            parse_label(bad)
    for bad, msg in (("warptile+pad", "only the tuning engine's configurations"), ("warptile@4+reduce", "no split-K")):
        with pytest.raises(ValueError, match=msg):
            parse_launch(bad)
    for kw, msg in ((dict(splits=2), "no split-K"), (dict(splits=2, tail=3), "no split-K"),
                    (dict(pad=True), "only the tuning engine's configurations"), (dict(splits=2, reduce=True), "no split-K")):
        with pytest.raises(ValueError, match=msg):
            gpu.launch_config("warptile", 1000, 1001, 1003, **kw)


@pytest.mark.parametrize("r", RUNGS, ids=lambda r: r.name)
def test_table_matches_the_template(r):
    """The template parameter list in the .cu file names the same parameters, in the same
    order, as the table (plus the trailing GUARD, a bool in every rung), and the kernel takes
    (A, B, C, M, N, K)."""
    text = (gpu.KERNELS_DIR / r.file).read_text()
    m = re.search(r"template <([^>]*)>\s*__global__.*?\b" + r.symbol + r"\(([^)]*)\)", text, flags=re.S)
    assert m, f"{r.file}: no template for {r.symbol}"
    params = [p.split() for p in m.group(1).split(",")]
    assert [p[-1] for p in params] == [k for k, _ in r.params] + ["GUARD"]
    assert params[-1] == ["bool", "GUARD"]
    assert [a.split()[-1].lstrip("*") for a in m.group(2).split(",")] == ["A", "B", "C", "M", "N", "K"]
    assert gpu.KERNELS[r.name].name_expressions == r.expressions


def test_unknown_rung_is_one_line():
    with pytest.raises(ValueError, match="unknown ladder kernel 'warp'; choose one of"):
        ladder.rung("warp")
    with pytest.raises(ValueError, match="unknown ladder kernel 'warptile_64x64'"):
        ladder.rung("warptile_64x64")  # a configuration of the tuning engine, not a rung


def test_the_rungs_never_load_the_tuning_engine():
    """explainer.model.ladder, explainer.gpu and the rungs' launches, checks and pictures import
    nothing of explainer.tuning; a name of the engine's, asked for, loads it (launch._spec)."""
    code = ("import sys; from explainer import gpu; from explainer.model import ladder; "
            "from explainer.views import ladder_maps; "
            "[gpu.launch_config(r.name, 100, 70, 33) for r in ladder.RUNGS]; "
            "gpu.launch.parse_launch('warptile'); "
            "assert not any(m.startswith('explainer.tuning') for m in sys.modules), sorted(sys.modules); "
            "assert not hasattr(ladder, 'CONFIGS'); "
            "cfg = gpu.launch_config('warptile_64x64', 100, 70, 33); "
            "assert 'explainer.tuning' in sys.modules and cfg.kernel in gpu.KERNELS")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr


def test_reuse_grows_up_the_ladder():
    """FMAs per shared load and FLOP per DRAM byte never fall from one rung to the next."""
    f = [r.fma_per_lds for r in ladder.RUNGS]  # the rungs, in ladder order
    i = [r.intensity() for r in ladder.RUNGS]
    assert all(b >= a for a, b in zip(f, f[1:])) and f[-1] > 10 * f[0]
    assert all(b >= a for a, b in zip(i, i[1:]))


def test_bench_refuses_a_bad_split_label_in_one_line():
    out = subprocess.run([sys.executable, "-m", "explainer", "bench", "--kernels", "double_buffered@2"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "no split-K" in out.stderr and "Traceback" not in out.stderr
    out = subprocess.run([sys.executable, "-m", "explainer", "bench", "--kernels", "warptile@24x1"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "RxS" in out.stderr and "Traceback" not in out.stderr
    out = subprocess.run([sys.executable, "-m", "explainer", "bench", "--kernels", "warptile+pads"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "after '+' come" in out.stderr and "Traceback" not in out.stderr


def test_a_check_passes_when_c_is_whole_and_within_the_kernels_tolerance():
    """``verify.passes``: what ``benchmark`` records as passed and ``time_launches`` times: every
    element written and the relative error within the kernel's tolerance (TF32's for the
    tensor-core kernels)."""
    from explainer.gpu.verify import DEFAULT_TOL, TF32_TOL, passes

    assert passes({"all_written": True, "rel_error": DEFAULT_TOL}, "warptile")
    assert not passes({"all_written": False, "rel_error": 0.0}, "warptile")
    assert not passes({"all_written": True, "rel_error": 2 * DEFAULT_TOL}, "warptile")
    assert passes({"all_written": True, "rel_error": 2 * DEFAULT_TOL}, "mma_tf32")
    assert not passes({"all_written": True, "rel_error": 2 * TF32_TOL}, "mma_tf32")


def _float4_store_banks(r) -> list[int]:
    """Distinct banks of each store instruction of a rung's float4 copy of A into the transposed
    As (store c of copy q by the lanes of one warp), from the model's loader (loader_a) and slots
    (read_slot_a)."""
    m, k = np.meshgrid(np.arange(r.BM), np.arange(r.BK), indexing="ij")
    thread = ladder.loader_a(r)
    q = (m * (r.BK // 4) + k // 4) // r.threads  # the thread's copy that holds the element
    bank = ladder.read_slot_a(r, m, k) % 32
    groups: dict[tuple, set] = {}
    for key, b in zip(zip(q.ravel(), (k % 4).ravel(), (thread // 32).ravel()), bank.ravel()):
        groups.setdefault(key, set()).add(int(b))
    return [len(v) for v in groups.values()]


def test_kernel_14_transposed_stores_bank_spread():
    """Kernel 14's padded As (rows of BM + 4 floats): each store instruction of its float4 copy
    of A writes 32 banks (BK = 8); kernel 13's unpadded As (rows of 128) only 16."""
    assert min(_float4_store_banks(ladder.rung("warptile"))) == 32
    assert min(_float4_store_banks(ladder.rung("double_buffered"))) < 32
