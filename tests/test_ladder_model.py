"""The ladder kernels' model (explainer.model.ladder) on the CPU: who owns which output, what each
shared slot holds, and a replay that must reproduce A @ B exactly; plus the launch geometry
that explainer.gpu takes from it. The GPU side (tests/test_gpu_ladder.py) compares the same
functions with what the kernels recorded."""

from __future__ import annotations

import re

import numpy as np
import pytest

from explainer import gpu

from explainer.model import ladder

RUNGS = ladder.RUNGS + ladder.CONFIGS  # the rungs and the planner's other configurations
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


@pytest.mark.parametrize("r", RUNGS, ids=lambda r: r.name)
@pytest.mark.parametrize("K", [1, 19, 33, 64, 70])
def test_partial_phase_is_first_in_kernel_14_and_last_below(r, K):
    """Where BK does not divide K, the zeros that fill the partial phase stand before column 0 in
    phase 0 in kernel 14 (its loop then never checks K) and after column K - 1 in the last phase
    in kernels 10-13; every other phase holds K columns only, and every column once."""
    M, N = 35, 79
    tr = ladder.predict_trace(r, M, N, K)
    P, lead = r.phases(K), r.lead(K)
    assert lead == (P * r.BK - K if r.file == "14_warptile.cu" else 0)
    partial = 0 if lead else P - 1
    a = tr.a[0, 0]  # (phases, slots) of block (0, 0)
    inside = (a >= 0)
    cols = np.where(inside, a % K, -1)
    for t in range(P):
        want = set(range(t * r.BK - lead, (t + 1) * r.BK - lead)) & set(range(K))
        assert set(cols[t][inside[t]]) == want, t
        if t != partial or P * r.BK == K:
            assert len(want) == r.BK, t
    seen = np.concatenate([cols[t][inside[t] & (a[t] // K == 0)] for t in range(P)])
    np.testing.assert_array_equal(np.sort(seen), np.arange(K))  # row 0 of A: each column once


@pytest.mark.parametrize("r", RUNGS, ids=lambda r: r.name)
def test_edge_blocks_of_kernel_14_shift_back_inside_c_or_clamp(r):
    """Kernel 14's edge blocks, where C is at least a tile tall and wide (``Rung.shifts``): the last
    row (column) of blocks computes the last whole tile inside C, A's rows M - BM .. M - 1 and B's
    columns N - BN .. N - 1, and stores only its own outputs. Where C is narrower: A's last row in
    place of rows past M, and in place of columns past N B's last four columns where N is a
    multiple of 4 (granules), its last column where it is not (element copies); only outputs
    outside C read them. In kernels 10-13 those slots hold padding zeros. Every launch stores every
    output of C exactly once."""
    k14 = r.file == "14_warptile.cu"
    shapes = [(2 * r.BM + 3, r.BN + 4, 21), (2 * r.BM + 3, r.BN + 2, 21), (2 * r.BM + 3, r.BN + 4, 20),
              (max(r.BM - 2, 1), r.BN + 4, 21), (r.BM + 1, r.BN - 4, 20), (r.BM + 1, r.BN - 3, 21)]
    for M, n_, K in shapes:
        tr = ladder.predict_trace(r, M, n_, K)
        assert np.array_equal(np.sort(tr.c[tr.c >= 0]), np.arange(M * n_)), (M, n_, K)
        gx, gy = r.grid(M, n_)
        shift = k14 and r.shifts(M, n_)
        assert shift == (k14 and M >= r.BM and n_ >= r.BN)
        a = tr.a[gy - 1, 0]  # the last row of blocks
        m, _ = ladder.slot_coords_a(r)
        if shift:
            rows = a[a >= 0] // K
            assert rows.min() == M - r.BM and rows.max() == M - 1
        past = (gy - 1) * r.BM + m >= M
        if past.any() and not shift:
            vals = a[:, past & (m >= 0)]
            rows = vals[vals >= 0] // K
            if k14:
                assert (vals >= 0).any() and (rows == M - 1).all()
            else:
                assert (vals[vals != ladder.NEVER] == ladder.PAD).all()
        bx = gx - 1  # the last column of blocks
        b = tr.b[0, bx]
        if shift:
            cols = b[b >= 0] % n_
            assert cols.min() == n_ - r.BN and cols.max() == n_ - 1
        k, n = ladder.slot_coords_b(r)
        past = bx * r.BN + n >= n_
        if past.any() and not shift:
            vals = b[:, past]
            if k14:
                cols = vals[vals >= 0] % n_
                lowest = n_ - 4 if n_ % 4 == 0 else n_ - 1
                assert (vals >= 0).any() and (cols >= lowest).all() and (cols < n_).all()
                if n_ % 4 == 0:  # a granule keeps its 4 columns apart
                    assert len(np.unique(cols)) == 4
            else:
                assert (vals == ladder.PAD).all()


@pytest.mark.parametrize("r", RUNGS, ids=lambda r: r.name)
def test_launch_config_comes_from_the_ladder(r):
    for M, N, K in ODD + [(4096, 4096, 4096), (r.BM * 2, r.BN * 3, r.BK * 5)]:
        cfg = gpu.launch_config(r.name, M, N, K)
        assert cfg.tile is None and cfg.block == (r.threads, 1, 1)
        gx, gy, _ = cfg.grid
        assert gx * r.BN >= N > (gx - 1) * r.BN and gy * r.BM >= M > (gy - 1) * r.BM
        assert cfg.phases == -(-K // r.BK) and cfg.shared_bytes == r.shared_bytes
        fast = M % r.BM == 0 and N % r.BN == 0 and K % r.BK == 0
        if r.splits_k:  # int GUARD: 0 fast, 1 guarded on aligned rows (K, N multiples of 4), 2 not
            guard = 0 if fast else 1 if K % 4 == 0 and N % 4 == 0 else 2
            guard += 16 if N % 4 and K <= ladder.WIDE_ROWS_K else 0  # C's rows staged a warp tile wide
            assert cfg.expression.endswith(f", {guard}>"), (M, N, K, cfg.expression)
        else:
            assert cfg.expression.endswith("false>" if fast else "true>")


@pytest.mark.parametrize("r", RUNGS, ids=lambda r: r.name)
def test_table_matches_the_template(r):
    """The template parameter list in the .cu file names the same parameters, in the same
    order, as the table (plus the trailing GUARD)."""
    text = (gpu.KERNELS_DIR / r.file).read_text()
    m = re.search(r"template <([^>]*)>\s*__global__.*?\b" + r.symbol + r"\(", text, flags=re.S)
    assert m, f"{r.file}: no template for {r.symbol}"
    names = [p.split()[-1] for p in m.group(1).split(",")]
    assert names == [k for k, _ in r.params] + ["GUARD"]
    assert gpu.KERNELS[r.name].name_expressions == r.expressions


def test_unknown_rung_is_one_line():
    with pytest.raises(ValueError, match="unknown ladder kernel 'warp'; choose one of"):
        ladder.rung("warp")


def test_reuse_grows_up_the_ladder():
    """FMAs per shared load and FLOP per DRAM byte never fall from one rung to the next."""
    f = [r.fma_per_lds for r in ladder.RUNGS]  # the rungs, in ladder order
    i = [r.intensity() for r in ladder.RUNGS]
    assert all(b >= a for a, b in zip(f, f[1:])) and f[-1] > 10 * f[0]
    assert all(b >= a for a, b in zip(i, i[1:]))


@pytest.mark.parametrize("K,S", [(8, 1), (19, 3), (77, 5), (4096, 7), (1000, 125)])
def test_split_ranges_cover_every_phase_once(K, S):
    r = ladder.BY_NAME["warptile_64x64"]
    ranges = r.split_ranges(K, S)
    assert len(ranges) == S and all(t1 > t0 for t0, t1 in ranges)
    phases = [t for t0, t1 in ranges for t in range(t0, t1)]
    assert phases == list(range(r.phases(K)))


def test_split_k_is_refused_in_one_line():
    with pytest.raises(ValueError, match="between 1 and the 3 phases"):
        gpu.launch_config("warptile_64x64", 64, 64, 19, splits=4)
    with pytest.raises(ValueError, match="no split-K"):
        gpu.launch_config("double_buffered", 128, 128, 128, splits=2)
    with pytest.raises(ValueError, match="no split-K"):
        gpu.launch_config("tiled", 128, 128, 128, 16, splits=2)
    cfg = gpu.launch_config("warptile_64x64", 100, 70, 800, splits=4)
    assert cfg.grid == (2, 2, 4) and cfg.workspace_floats == 4 * 100 * 70
    assert cfg.expression.startswith("warptile_splitk_gemm<") and cfg.expression.endswith(", 5>")  # N = 70: even
    assert gpu.launch_config("warptile_64x64", 100, 71, 800, splits=4).expression.endswith(", 2>")  # N = 71
    assert gpu.launch_config("warptile_64x64", 100, 72, 800, splits=4).expression.endswith(", 1>")


def test_kernel_labels_with_a_split_count():
    from explainer.gpu.launch import kernel_and_splits

    assert kernel_and_splits("warptile") == ("warptile", 1)
    assert kernel_and_splits("warptile_64x64@6") == ("warptile_64x64", 6)
    for bad, msg in (("warptile@0", "whole number"), ("warptile@x", "whole number"),
                     ("tiled@2", "no split-K"), ("nope@2", "unknown kernel")):
        with pytest.raises(ValueError, match=msg):
            kernel_and_splits(bad)


def test_split_tail_labels_and_launches():
    from explainer.gpu.launch import label_of, parse_label

    assert parse_label("warptile") == ("warptile", 1, 0)
    assert parse_label("warptile@4") == ("warptile", 4, 0)
    assert parse_label("warptile_128x64@24x5") == ("warptile_128x64", 5, 24)
    for lab in ("warptile", "warptile@4", "warptile_128x64@24x5"):
        assert label_of(*parse_label(lab)) == lab
    for bad, msg in (("warptile@0x5", "RxS"), ("warptile@24x1", "RxS"), ("warptile@x5", "RxS"),
                     ("warptile@24x", "RxS"), ("double_buffered@4x2", "no split-K")):
        with pytest.raises(ValueError, match=msg):
            parse_label(bad)
    # 3000^3 in 256 x 128 tiles: 24 x 12 = 288 tiles; the last 24 in 5 slices, 264 whole first
    cfg = gpu.launch_config("warptile", 3000, 3000, 3000, splits=5, tail=24)
    assert cfg.tiles == 288 and cfg.whole_tiles == 264 and cfg.grid == (264 + 24 * 5, 1, 1)
    assert cfg.tile_grid == (24, 12) and cfg.workspace_floats == 5 * 3000 * 3000 and cfg.label == "warptile@24x5"
    assert cfg.expression.startswith("warptile_splittail_gemm<") and cfg.expression.endswith(", 1>")
    assert gpu.launch_config("warptile", 4096, 4096, 4096, splits=2, tail=8).expression.endswith(", 0>")
    for kw, msg in ((dict(splits=1, tail=3), "S >= 2"), (dict(splits=4, tail=288), "between 1 and 287"),
                    (dict(splits=400, tail=3), "phases")):
        with pytest.raises(ValueError, match=msg):
            gpu.launch_config("warptile", 3000, 3000, 3000, **kw)
    assert all(any("_splittail_gemm<" in e for e in r.expressions) for r in ladder.RUNGS + ladder.CONFIGS if r.splits_k)


def test_split_k_with_a_separate_reduction_labels_and_geometry():
    """``+reduce``: split-K (S >= 2 of every tile) whose slices kernels/splitk_reduce.cu adds; the
    kernel's grid, instantiation and workspace are split-K's; with ``+pad`` after it; refused
    for a split tail, S = 1, a kernel without split-K, a suffix out of order or twice."""
    from explainer.gpu.launch import label_of, parse_launch

    assert parse_launch("warptile@11+reduce") == ("warptile", 11, 0, False, True)
    assert parse_launch("warptile_64x64@8+reduce+pad") == ("warptile_64x64", 8, 0, True, True)
    for lab in ("warptile@11+reduce", "warptile_64x64@8+reduce+pad", "warptile_32x128@128+reduce"):
        assert label_of(*parse_launch(lab)) == lab
    for bad, msg in (("warptile@24x5+reduce", "not a split tail"), ("warptile+reduce", "S >= 2"),
                     ("warptile@1+reduce", "S >= 2"), ("double_buffered@2+reduce", "no split-K"),
                     ("warptile@4+pad+reduce", "in that order"), ("warptile@4+reduce+reduce", "once each")):
        with pytest.raises(ValueError, match=msg):
            parse_launch(bad)
    cfg = gpu.launch_config("warptile", 3000, 96, 3000, splits=11, reduce=True)
    plain = gpu.launch_config("warptile", 3000, 96, 3000, splits=11)
    assert cfg.reduce and not plain.reduce and cfg.label == "warptile@11+reduce"
    assert (cfg.grid, cfg.expression, cfg.workspace_floats) == (plain.grid, plain.expression, 11 * 3000 * 96)
    # the reduction's own launch (kernels/splitk_reduce.cu's layouts)
    # 11 slices: a block of 8 warps per 128 floats of C, the warps on the slices
    assert cfg.reduce_launch == ((-(-3000 * 96 // 128), 1, 1), (256, 1, 1)) and plain.reduce_launch is None
    # up to 8 slices: 256 threads a block, 4 floats of C a thread (300 x 201 = 60300 floats: 59 blocks)
    assert gpu.launch_config("warptile", 300, 201, 1000, splits=3, reduce=True).reduce_launch == ((59, 1, 1), (256, 1, 1))
    padded = gpu.launch_config("warptile", 3001, 95, 3003, splits=11, pad=True, reduce=True)
    assert padded.pad and padded.reduce and padded.ld == (3004, 96) and padded.label == "warptile@11+reduce+pad"
    for kw in ({"splits": 1}, {"splits": 4, "tail": 3}):
        with pytest.raises(ValueError, match="separate reduction"):
            gpu.launch_config("warptile", 3000, 96, 3000, reduce=True, **kw)
    # the model: the same slots as split-K, and no output stored by the launch's own threads
    r = ladder.rung("warptile")
    split, red = ladder.predict_trace(r, 300, 200, 100), ladder.predict_trace(r, 300, 200, 100, reduce=True)
    assert (split.a == red.a).all() and (split.b == red.b).all() and (red.c == ladder.NEVER).all()
    assert (split.c != ladder.NEVER).any()


def test_padded_launch_labels_and_geometry():
    """``+pad``: kernel 14 reads copies of A (K not a multiple of 4) and / or B (N not) whose rows
    are padded to 4 floats (``ld``), with the shape's own grid and phases, and stores C in place:
    the guarded instantiation for aligned rows (GUARD 1), or GUARD 3 where C's rows are not
    aligned; refused where nothing needs padding, for kernels other than 14, and for another
    suffix."""
    from explainer.gpu.launch import label_of, parse_label, parse_launch

    assert parse_launch("warptile@24x5+pad") == ("warptile", 5, 24, True, False)
    assert parse_launch("warptile@4") == ("warptile", 4, 0, False, False)
    for lab in ("warptile+pad", "warptile@4+pad", "warptile_128x64@24x5+pad", "warptile@3"):
        assert label_of(*parse_launch(lab)) == lab
    for bad, msg in (("warptile+pads", "after '\\+' come"), ("mma_tf32+pad", "only the warp-tiled"),
                     ("double_buffered+pad", "only the warp-tiled"), ("warptile@0+pad", "split-K count")):
        with pytest.raises(ValueError, match=msg):
            parse_launch(bad)
    with pytest.raises(ValueError, match="parse_launch"):
        parse_label("warptile+pad")
    cfg = gpu.launch_config("warptile", 4189, 4189, 4189, splits=4, tail=33, pad=True)
    plain = gpu.launch_config("warptile", 4189, 4189, 4189, splits=4, tail=33)
    assert (cfg.M, cfg.N, cfg.K, cfg.ld, cfg.pad) == (4189, 4189, 4189, (4192, 4192), True)
    assert (cfg.grid, cfg.tile_grid, cfg.phases) == (plain.grid, plain.tile_grid, plain.phases)
    assert plain.expression.endswith(", 2>") and cfg.expression == plain.expression[:-4] + ", 3>"
    # 4189^2 = 17547721 floats of C; each slice of the workspace starts at a multiple of 4 floats
    # (kernels/splitk_reduce.cu reads them by float4): 17547724 apart
    assert cfg.workspace_floats == 4 * 17547724 and cfg.label == "warptile@33x4+pad"
    assert cfg.pad_floats == (4189 * 4192, 4189 * 4192) and plain.pad_floats == (0, 0) and plain.ld == (4189, 4189)
    a_only = gpu.launch_config("warptile", 100, 64, 7, pad=True)  # rows of C aligned: GUARD 1
    assert (a_only.pad_floats, a_only.ld) == ((100 * 8, 0), (8, 64)) and a_only.expression.endswith(", 1>")
    b_only = gpu.launch_config("warptile", 100, 63, 8, pad=True)
    assert (b_only.pad_floats, b_only.ld) == ((0, 8 * 64), (8, 64)) and b_only.expression.endswith(", 19>")  # short K
    assert gpu.launch_config("warptile", 100, 63, 260, pad=True).expression.endswith(", 3>")
    assert gpu.launch_config("warptile", 4096, 4096, 4096).ld == (4096, 4096)
    assert gpu.launch_config("double_buffered", 100, 63, 8).ld is None  # kernels 10-13 take no strides
    assert ", 3>" in " ".join(ladder.rung("warptile").expressions)  # compiled with the others
    for args, msg in ((("warptile", 64, 64, 64), "nothing to pad"), (("mma_tf32", 63, 63, 63), "only the warp-tiled"),
                      (("vectorized", 63, 63, 63), "only the warp-tiled")):
        with pytest.raises(ValueError, match=msg):
            gpu.launch_config(*args, pad=True)


def test_split_entry_points_copy_b_by_element_on_unaligned_rows():
    """Kernel 14's split entry points copy B element by element wherever K or N is not a multiple
    of 4 (``predict_trace(split=True)``), by pairs where K and N are even (GUARD 5): where only K
    is unaligned, the edge blocks' B slots past column N hold column N - 1 (elements) or the pair
    N - 2, N - 1 instead of the last granule's columns (where C is narrower than a tile: the edge
    blocks clamp); everything else, and every slot where N is unaligned too, is the whole-K entry
    point's."""
    for name in ("warptile", "warptile_64x128", "warptile_128x32_bk16"):
        r = ladder.rung(name)
        M, N = 2 * r.BM + 1, r.BN - 4  # N a multiple of 4, below a tile's width
        for K, width in ((7 * r.BK + 1, 1), (7 * r.BK + 2, 2)):  # K odd: elements; K even: pairs
            whole, split = ladder.predict_trace(r, M, N, K), ladder.predict_trace(r, M, N, K, split=True)
            assert (whole.a == split.a).all() and (whole.c == split.c).all()
            gx, _ = r.grid(M, N)
            assert (whole.b[:, :gx - 1] == split.b[:, :gx - 1]).all()  # inside C's columns: the same
            differ = whole.b != split.b
            assert differ.any(), (name, K)
            cols = set((split.b[differ] % N).tolist())  # only slots past N, filled from N - width ..
            assert cols <= set(range(N - width, N)) and len(cols) == width, (name, K, cols)
            for n_ in (N + 2, N + 1):  # N unaligned too (even, odd): whole and split copy B alike
                assert (ladder.predict_trace(r, M, n_, K).b == ladder.predict_trace(r, M, n_, K, split=True).b).all()
            assert (ladder.predict_trace(r, M, N, K + width).b  # aligned K: nothing changes
                    == ladder.predict_trace(r, M, N, K + width, split=True).b).all() or (K + width) % 4 != 0
        padded = ladder.predict_trace(r, M, N + 2, 7 * r.BK + 2, pad=True)  # a padded launch reads granules
        assert (padded.b == ladder.predict_trace(r, M, N + 2, 7 * r.BK + 2, pad=True, split=True).b).all()


def test_even_rows_copy_by_pairs():
    """Where K and N are even but not both multiples of 4, kernel 14 runs GUARD 5 (its roomy twin
    6), whose bodies copy pairs of elements; the model's edge blocks (C narrower than a tile) then
    hold B's last pair of columns (N - 2, N - 1) past N, where odd rows (GUARD 2) hold column N - 1."""
    r = ladder.rung("warptile_64x128")
    assert gpu.launch_config(r.name, 131, 134, 266).expression.endswith(", 5>")
    assert gpu.launch_config(r.name, 131, 134, 266, splits=2).expression.endswith(", 5>")
    assert gpu.launch_config(r.name, 131, 135, 266).expression.endswith(", 2>")
    assert gpu.launch_config(r.name, 131, 136, 268).expression.endswith(", 1>")
    assert gpu.launch_config(r.name, 131, 134, 266).on_device(132).endswith(", 6>")  # 6 blocks: roomy
    assert gpu.launch_config(r.name, 131, 135, 266).on_device(132).endswith(", 4>")
    assert {", 5>", ", 6>"} <= {e[e.rindex(","):] for e in r.expressions}
    M, N, K = 2 * r.BM + 1, r.BN - 6, 7 * r.BK + 2  # (narrower than a tile: the edge blocks clamp)
    _, n = ladder.slot_coords_b(r)
    for n_, k_, want in ((N, K, lambda col: n_ - 2 + col % 2), (N + 1, K + 1, lambda col: n_ - 1 + 0 * col)):
        tr = ladder.predict_trace(r, M, n_, k_)
        gx, _ = r.grid(M, n_)
        col = np.broadcast_to((gx - 1) * r.BN + n, tr.b[0, gx - 1].shape)  # each slot's column of C
        edge = tr.b[:, gx - 1]  # (rows of tiles, phases, slots)
        past = (col >= n_) & (edge >= 0)
        assert past.any()
        np.testing.assert_array_equal(edge[past] % n_, want(np.broadcast_to(col, edge.shape)[past]))


def test_padded_launch_model_reads_the_same_elements():
    """The model of a padded launch (``predict_trace(pad=True)``): every output of C stored once,
    by the same threads but in a shifted last column of blocks, and, in the blocks inside C, the same slots as without padding (the copies change where rows lie in
    memory, not what a phase adds); at the edge, B's granules lie in its padded rows, which hold
    only padding zeros past column N: where C is a tile wide or more, the last column of blocks
    starts at N rounded up to 4, less BN (unpadded: N - BN); where it is narrower, they clamp into
    those rows; and ``replay`` from it gives A @ B."""
    for name in ("warptile", "warptile_64x64_bk16"):
        r = ladder.rung(name)
        for M, N, K in [(2 * r.BM + 1, r.BN + 3, 7 * r.BK + 2), (2 * r.BM - 3, 2 * r.BN + 4, 5 * r.BK + 1),
                        (r.BM + 7, 3 * r.BN - 2, 4 * r.BK), (2 * r.BM + 1, r.BN - 3, 5 * r.BK + 1)]:
            pad, plain = ladder.predict_trace(r, M, N, K, pad=True), ladder.predict_trace(r, M, N, K)
            gx, gy = r.grid(M, N)
            inside = (slice(0, M // r.BM), slice(0, N // r.BN))
            assert np.array_equal(np.sort(pad.c[pad.c >= 0]), np.arange(M * N))  # every output once
            assert (pad.c[:, :N // r.BN] == plain.c[:, :N // r.BN]).all()  # (the last column's tile may start elsewhere)
            assert (pad.a[inside] == plain.a[inside]).all() and (pad.b[inside] == plain.b[inside]).all()
            b_cols = np.where(pad.b >= 0, pad.b % N, N)  # padding zeros (-1) count as past N
            last = b_cols[:, gx - 1]
            if r.shifts(M, N):
                assert last.min() == -(-N // 4) * 4 - r.BN
                assert (np.where(plain.b >= 0, plain.b % N, N)[:, gx - 1].min()) == N - r.BN
            else:
                assert ((last >= (N - 1) // 4 * 4) | (pad.b[:, gx - 1] == plain.b[:, gx - 1])).all()
            if N % 4:  # the unpadded launch reads single columns; the padded one granules
                assert (pad.b != plain.b).any()
    rng = np.random.default_rng(5)
    r = ladder.rung("warptile_64x64")
    M, N, K = 70, 67, 29
    A, B = rng.integers(-3, 4, (M, K)).astype(np.float64), rng.integers(-3, 4, (K, N)).astype(np.float64)
    np.testing.assert_array_equal(ladder.replay(r, A, B, pad=True), A @ B)


def test_bench_refuses_a_bad_split_label_in_one_line():
    import subprocess
    import sys

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


def test_staged_stores_write_whole_sectors():
    """``warp_store_sectors``: where C's rows are not aligned, one store instruction of a warp
    (128 bytes) touches, stored one output at a time, TN floats apart in WSUBM / TM rows, a sector
    per 8 columns of each of those rows; through shared memory, 32 consecutive floats of a row
    segment: 4 sectors, for every kernel-14 configuration."""
    for r in ladder.RUNGS + ladder.CONFIGS:
        if not r.splits_k:
            continue
        w, p = r.warp_dims, r.p
        rows = w["WSUBM"] // p["TM"]  # lanes down a sub-tile
        span = (w["WSUBN"] // p["TN"]) * p["TN"]  # columns the lanes of a row reach
        assert ladder.warp_store_sectors(r, False) == rows * -(-span // 8), r.name
        assert ladder.warp_store_sectors(r, True) == 4, r.name


@pytest.mark.parametrize("r", [r for r in RUNGS if r.splits_k], ids=lambda r: r.name)
def test_no_roomy_twin_where_minb_already_leaves_every_register(r):
    """A configuration whose MINB share of the SM's registers already is the 255 a thread can have
    (warptile_128x48_t64: 64 threads, MINB 4) has no roomy instantiation: none is compiled, and its
    launches on unaligned rows run GUARD 2 whatever their blocks."""
    minb = dict(r.params).get("MINB", 1)
    share = 65536 // (r.threads * minb)
    assert r.has_roomy == (minb > 1 and share < 255)
    roomy_built = [e for e in r.expressions if e.endswith((", 4>", ", 6>"))]
    assert bool(roomy_built) == r.has_roomy
    if not r.has_roomy:
        assert not any(r.roomy(b, 132) for b in range(1, 4 * 132))
        cfg = gpu.launch_config(r.name, 3 * r.BM + 1, 2 * r.BN + 3, 33 * r.BK + 1)
        assert cfg.on_device(132) == cfg.expression and cfg.expression.endswith(", 2>")
    assert any(not c.has_roomy for c in ladder.CONFIGS if c.min_blocks > 1)  # the rule has a case


@pytest.mark.parametrize("r", [r for r in RUNGS if r.splits_k], ids=lambda r: r.name)
def test_roomy_instantiation_only_where_the_rounds_stay(r):
    """Kernel 14's GUARD 4 (GUARD 2's bodies with registers for MINB - 1 blocks per SM, where
    GUARD 2 spilled) runs a launch on unaligned rows only where its blocks take as many rounds of
    the device's slots (SMs x blocks per SM) at MINB - 1 as at MINB; never for a configuration
    made for one block per SM, a split tail, aligned rows or a padded launch; and it is compiled
    with the others."""
    minb = dict(r.params).get("MINB", 1)
    for sms in (1, 7, 132):
        for blocks in range(1, 3 * max(minb, 2) * sms + 2):
            rounds = lambda cap: -(-blocks // (sms * cap))  # noqa: E731  the device's waves
            assert r.roomy(blocks, sms) == (r.has_roomy and rounds(minb - 1) == rounds(minb)), (sms, blocks)
        if r.has_roomy:
            assert r.roomy((minb - 1) * sms, sms) and not r.roomy(minb * sms, sms)
    M, N, K = 3 * r.BM + 1, 2 * r.BN + 3, 33 * r.BK + 1  # rows unaligned: GUARD 2 (K > WIDE_ROWS_K)
    cfg = gpu.launch_config(r.name, M, N, K)
    few = cfg.grid[0] * cfg.grid[1]  # 6 blocks
    assert cfg.expression.endswith(", 2>")
    assert cfg.on_device(132).endswith(", 4>" if r.has_roomy else ", 2>")
    assert cfg.on_device(132)[:-2] == cfg.expression[:-2]
    if r.has_roomy:
        assert cfg.on_device(132) in r.expressions
        assert cfg.on_device((few + minb - 1) // minb) == cfg.expression  # every slot taken: GUARD 2 stays
        split = gpu.launch_config(r.name, M, N, K, splits=3)
        assert split.on_device(132) == split.expression[:-2] + "4>" and split.on_device(132) in r.expressions
    for other in (gpu.launch_config(r.name, M, N + 1, K + 3), gpu.launch_config(r.name, M, N, K, pad=True),
                  gpu.launch_config(r.name, 4 * r.BM, 4 * r.BN, 4 * r.BK),
                  gpu.launch_config(r.name, M, N, K, splits=3, tail=2)):
        assert other.on_device(132) == other.expression, other.expression
    with pytest.raises(ValueError, match="roomy"):
        r.expression(True, True, True, False, True, roomy=True)


def _float4_store_banks(r) -> list[int]:
    """Distinct banks of each store instruction of kernel 14's float4 copy of A into As (store c of
    copy q by the lanes of one warp), from the model's loader (loader_a) and slots (read_slot_a)."""
    m, k = np.meshgrid(np.arange(r.BM), np.arange(r.BK), indexing="ij")
    thread = ladder.loader_a(r)
    q = (m * (r.BK // 4) + k // 4) // r.threads  # the thread's copy that holds the element
    bank = ladder.read_slot_a(r, m, k) % 32
    groups: dict[tuple, set] = {}
    for key, b in zip(zip(q.ravel(), (k % 4).ravel(), (thread // 32).ravel()), bank.ravel()):
        groups.setdefault(key, set()).add(int(b))
    return [len(v) for v in groups.values()]


@pytest.mark.parametrize("r", [r for r in RUNGS if r.symbol == "warptile_gemm"], ids=lambda r: r.name)
def test_kernel_14_transposed_stores_bank_spread(r):
    # a store instruction of the float4 copy writes 32 banks where BK = 8, 16 where BK = 16, 16
    # where BK = 32 only through the swizzle of rows 8-15 and 24-31 (8 without), and 12 where BK = 24
    # (96x128, left as it is)
    banks = _float4_store_banks(r)
    assert min(banks) == {8: 32, 16: 16, 24: 12, 32: 16}[r.BK], (r.name, sorted(set(banks)))


def test_the_swizzle_is_what_spreads_the_bk32_stores(monkeypatch):
    r = ladder.BY_NAME["warptile_128x48"]
    assert r.swizzled and min(_float4_store_banks(r)) == 16
    monkeypatch.setattr(ladder, "as_swizzle", lambda rr, k: np.zeros_like(np.asarray(k)))
    assert min(_float4_store_banks(r)) == 8


@pytest.mark.parametrize("r", [r for r in RUNGS if r.splits_k], ids=lambda r: r.name)
def test_short_k_on_unaligned_rows_stages_c_a_warp_tile_wide(r):
    """Kernel 14's whole-K launches on rows of C that are not 16-byte aligned (N not a multiple of 4)
    with K <= WIDE_ROWS_K run GUARD + 16 (the same bodies, C's rows staged a warp tile wide): odd rows,
    even rows, a padded launch and the roomy twins; never a split launch, aligned rows or a longer K.
    Every such instantiation is compiled with the others."""
    short, long_ = ladder.WIDE_ROWS_K, ladder.WIDE_ROWS_K + 1
    M = 3 * r.BM + 1
    for N, K, base in ((2 * r.BN + 3, short, 2), (2 * r.BN + 3, short - 1, 2), (2 * r.BN + 2, short, 5),
                       (2 * r.BN + 2, 2, 5), (2 * r.BN + 3, 1, 2)):
        cfg = gpu.launch_config(r.name, M, N, K)
        assert cfg.expression.endswith(f", {base + 16}>"), (N, K, cfg.expression)
        assert cfg.expression in r.expressions and cfg.on_device(132) in r.expressions
        roomy = {2: 4, 5: 6}[base] if r.has_roomy else base  # 12 blocks or fewer: a roomy twin where there is one
        assert cfg.on_device(132).endswith(f", {roomy + 16}>"), cfg.on_device(132)
        padded = gpu.launch_config(r.name, M, N, K, pad=True)
        assert padded.expression.endswith(", 19>") and padded.expression in r.expressions
        others = [gpu.launch_config(r.name, M, N, long_ + (N % 2 == 0)), gpu.launch_config(r.name, M, N + (4 - N % 4), K),
                  gpu.launch_config(r.name, M, N, long_ + (N % 2 == 0), pad=True)]
        if r.phases(K) >= 2:
            others.append(gpu.launch_config(r.name, M, N, K, splits=2))
        for other in others:
            assert int(other.expression.rsplit(", ", 1)[1][:-1]) < 16, other.expression
    for args in (dict(split=True, aligned=False), dict(tail=True, aligned=False), dict()):
        with pytest.raises(ValueError, match="warp tile wide"):
            r.expression(True, wide=True, **args)
    assert ladder.wide_rows(N=2975, K=64) and not ladder.wide_rows(N=2976, K=64)
    assert not ladder.wide_rows(N=2975, K=64, splits=2) and not ladder.wide_rows(N=2975, K=64, splits=2, tail=3)
