"""The tuning engine's kernel on the CPU (explainer.tuning.configs, kernels/tuned/warptile_tuned.cu):
its configurations share the rungs' thread and slot layouts (explainer.model.ladder) and add
split-K, the split tail, padded rows (``+pad``), a separate reduction (``+reduce``), K's partial
phase first (lead), edge tiles shifted back inside C or clamped, GUARD 0-6 (+ 16), roomy twins,
the swizzled BK = 32 As. Who owns which output, what each shared slot holds, a replay that must
reproduce A @ B exactly, and the launch geometry and instantiations that explainer.gpu takes from
it. The GPU side: tests/test_gpu_tuned.py. The rungs themselves: tests/test_ladder_model.py.

Marked ``check`` (``make check``, CI), like every test of the tuning engine."""

from __future__ import annotations

import re

import numpy as np
import pytest

from explainer import gpu
from explainer.model import ladder
from explainer.tuning import configs

pytestmark = pytest.mark.check

CONFIGS = configs.CONFIGS
W256 = configs.config("warptile_256x128")  # the rung "warptile"'s tile, tuned
ODD = [(1, 1, 1), (35, 79, 19), (130, 260, 17), (257, 129, 9), (130, 260, 20)]  # the last: rows aligned
ids = lambda r: r.name  # noqa: E731


def _ints(rng, shape):
    return rng.integers(-4, 5, size=shape).astype(np.float64)


def test_the_configurations_and_their_names():
    """17 configurations of kernels/tuned/warptile_tuned.cu, names unique and none a rung's; the
    256 x 128 one has the rung "warptile"'s parameters (the rung is the tile it was tuned from);
    ``config`` refuses an unknown name in one line; importing explainer.tuning registers them all
    in explainer.gpu, launched from kernels/tuned/."""
    import explainer.tuning  # noqa: F401  (registers)

    assert len(CONFIGS) == 17 and len(configs.BY_NAME) == 17 and list(configs.BY_NAME.values()) == list(CONFIGS)
    assert not set(configs.BY_NAME) & set(ladder.NAMES)
    assert all(isinstance(c, configs.TunedConfig) and isinstance(c, ladder.Rung) for c in CONFIGS)
    assert all((c.file, c.symbol, c.layout) == (configs.FILE, "warptile_gemm", "warp") for c in CONFIGS)
    assert configs.FILE == "tuned/warptile_tuned.cu" and (gpu.KERNELS_DIR / configs.FILE).is_file()
    assert W256.params == ladder.rung("warptile").params and W256 is configs.BY_NAME["warptile_256x128"]
    with pytest.raises(ValueError, match="unknown configuration 'warptile'; choose one of warptile_256x128"):
        configs.config("warptile")
    for c in CONFIGS:
        spec = gpu.KERNELS[c.name]
        assert spec.config is c and spec.file == configs.FILE and spec.name_expressions == c.expressions
        assert c.name in gpu.launch.ENGINE_KERNEL_NAMES
    assert gpu.launch.PAD_SPEC.file == "tuned/pad_rows.cu" and gpu.launch.REDUCE_SPEC.file == "tuned/splitk_reduce.cu"
    assert (gpu.KERNELS_DIR / gpu.launch.PAD_SPEC.file).is_file() and (gpu.KERNELS_DIR / gpu.launch.REDUCE_SPEC.file).is_file()


@pytest.mark.parametrize("r", CONFIGS, ids=ids)
def test_every_output_of_the_block_tile_has_exactly_one_owner(r):
    om = ladder.owner_map(r)
    assert om.shape == (r.BM, r.BN) and (om >= 0).all()
    counts = np.bincount(om.ravel(), minlength=r.threads)
    assert len(counts) == r.threads and (counts == r.outputs_per_thread).all()


@pytest.mark.parametrize("r", CONFIGS, ids=ids)
@pytest.mark.parametrize("shape", ODD, ids=lambda s: "x".join(map(str, s)))
def test_replay_reproduces_the_product_exactly(r, shape):
    """``ladder.replay`` from the configuration's own trace (``TunedConfig.trace``: lead, shifted and
    clamped edge tiles) gives A @ B exactly."""
    M, N, K = shape
    rng = np.random.default_rng(M * 7 + N * 3 + K)
    A, B = _ints(rng, (M, K)), _ints(rng, (K, N))
    np.testing.assert_array_equal(ladder.replay(r, A, B), A @ B)


@pytest.mark.parametrize("r", CONFIGS, ids=ids)
def test_loaders_cover_each_window_once_per_instruction(r):
    la, lb = ladder.loader_a(r), ladder.loader_b(r)
    assert la.shape == (r.BM, r.BK) and lb.shape == (r.BK, r.BN)
    assert la.min() >= 0 and la.max() < r.threads and lb.max() < r.threads
    v = r.vector
    # with float4 loads, 4 neighbours along k (A) / n (B) come from one thread
    assert (la.reshape(r.BM, r.BK // v, v) == la.reshape(r.BM, r.BK // v, v)[..., :1]).all()
    assert (lb.reshape(r.BK, r.BN // v, v) == lb.reshape(r.BK, r.BN // v, v)[..., :1]).all()


@pytest.mark.parametrize("r", CONFIGS, ids=ids)
def test_predicted_trace_layout(r):
    M, N, K = 35, 79, 19
    tr = configs.predict_trace(r, M, N, K)
    gx, gy = r.grid(M, N)
    P = r.phases(K)
    assert tr.a.shape == (gy, gx, P, r.slots_a) and tr.b.shape == (gy, gx, P, r.slots_b)
    assert tr.c.shape == (gy, gx, r.threads, r.outputs_per_thread)
    stored = tr.c[tr.c >= 0]
    assert len(stored) == M * N and len(np.unique(stored)) == M * N
    pad_slots = (tr.a == ladder.NEVER).sum(axis=-1)
    assert (pad_slots == r.BK * r["PAD"]).all()  # only the padding columns of As stay unwritten
    again = r.trace(M, N, K)  # TunedConfig.trace is the tuned model, not the rungs'
    assert all((getattr(again, f) == getattr(tr, f)).all() for f in "abc")


@pytest.mark.parametrize("r", CONFIGS, ids=ids)
@pytest.mark.parametrize("K", [1, 19, 33, 64, 70])
def test_partial_phase_is_first(r, K):
    """Where BK does not divide K, the zeros that fill the partial phase stand before column 0 in
    phase 0 (the tuned kernel's loop then never checks K: ``lead``); every other phase holds BK
    columns, and every column comes once. (The rungs put them after column K - 1, in the last
    phase: tests/test_ladder_model.py.)"""
    M, N = 35, 79
    tr = configs.predict_trace(r, M, N, K)
    P, lead = r.phases(K), r.lead(K)
    assert lead == P * r.BK - K
    a = tr.a[0, 0]  # (phases, slots) of block (0, 0)
    inside = (a >= 0)
    cols = np.where(inside, a % K, -1)
    for t in range(P):
        want = set(range(t * r.BK - lead, (t + 1) * r.BK - lead)) & set(range(K))
        assert set(cols[t][inside[t]]) == want, t
        if t != 0 or P * r.BK == K:
            assert len(want) == r.BK, t
    seen = np.concatenate([cols[t][inside[t] & (a[t] // K == 0)] for t in range(P)])
    np.testing.assert_array_equal(np.sort(seen), np.arange(K))  # row 0 of A: each column once


@pytest.mark.parametrize("r", CONFIGS, ids=ids)
def test_edge_blocks_shift_back_inside_c_or_clamp(r):
    """The tuned kernel's edge blocks, where C is at least a tile tall and wide (``shifts``): the last
    row (column) of blocks computes the last whole tile inside C, A's rows M - BM .. M - 1 and B's
    columns N - BN .. N - 1, and stores only its own outputs. Where C is narrower: A's last row in
    place of rows past M, and in place of columns past N B's last four columns where N is a
    multiple of 4 (granules), its last column where it is not (element copies); only outputs
    outside C read them. (The rungs hold padding zeros there: tests/test_ladder_model.py.) Every
    launch stores every output of C exactly once."""
    shapes = [(2 * r.BM + 3, r.BN + 4, 21), (2 * r.BM + 3, r.BN + 2, 21), (2 * r.BM + 3, r.BN + 4, 20),
              (max(r.BM - 2, 1), r.BN + 4, 21), (r.BM + 1, r.BN - 4, 20), (r.BM + 1, r.BN - 3, 21)]
    for M, n_, K in shapes:
        tr = configs.predict_trace(r, M, n_, K)
        assert np.array_equal(np.sort(tr.c[tr.c >= 0]), np.arange(M * n_)), (M, n_, K)
        gx, gy = r.grid(M, n_)
        shift = r.shifts(M, n_)
        assert shift == (M >= r.BM and n_ >= r.BN)
        a = tr.a[gy - 1, 0]  # the last row of blocks
        m, _ = ladder.slot_coords_a(r)
        if shift:
            rows = a[a >= 0] // K
            assert rows.min() == M - r.BM and rows.max() == M - 1
        past = (gy - 1) * r.BM + m >= M
        if past.any() and not shift:
            vals = a[:, past & (m >= 0)]
            rows = vals[vals >= 0] // K
            assert (vals >= 0).any() and (rows == M - 1).all()
        bx = gx - 1  # the last column of blocks
        b = tr.b[0, bx]
        if shift:
            cols = b[b >= 0] % n_
            assert cols.min() == n_ - r.BN and cols.max() == n_ - 1
        k, n = ladder.slot_coords_b(r)
        past = bx * r.BN + n >= n_
        if past.any() and not shift:
            vals = b[:, past]
            cols = vals[vals >= 0] % n_
            lowest = n_ - 4 if n_ % 4 == 0 else n_ - 1
            assert (vals >= 0).any() and (cols >= lowest).all() and (cols < n_).all()
            if n_ % 4 == 0:  # a granule keeps its 4 columns apart
                assert len(np.unique(cols)) == 4


def test_the_256x128_configuration_is_the_rung_with_the_tuned_edges():
    """warptile_256x128 and the rung "warptile" own the same outputs and lay out the same slots;
    they differ only in what the tuned kernel adds: lead, shifted edge tiles, split-K, GUARD ints."""
    w = ladder.rung("warptile")
    assert (ladder.owner_map(W256) == ladder.owner_map(w)).all()
    assert all((f(W256)[i] == f(w)[i]).all() for f in (ladder.slot_coords_a, ladder.slot_coords_b) for i in (0, 1))
    M, N, K = 1000, 300, 1100
    assert (W256.lead(K), w.lead(K)) == (W256.phases(K) * W256.BK - K, 0) == (4, 0)
    assert W256.splits_k and not w.splits_k and W256.shifts(M, N)
    tuned, plain = configs.predict_trace(W256, M, N, K), ladder.predict_trace(w, M, N, K)
    assert (tuned.c[:-1, :-1] == plain.c[:-1, :-1]).all()  # the same owners inside C
    assert not (tuned.a == plain.a).all()  # phases offset by the lead
    # the last row of tiles starts at row 1000 - 256 = 744 (shifted back), the rung's at 768
    assert tuned.a[-1, 0][tuned.a[-1, 0] >= 0].min() // K == M - W256.BM
    assert plain.a[-1, 0][plain.a[-1, 0] >= 0].min() // K == M // w.BM * w.BM


@pytest.mark.parametrize("r", CONFIGS, ids=ids)
def test_launch_config_comes_from_the_configuration(r):
    for M, N, K in ODD + [(4096, 4096, 4096), (r.BM * 2, r.BN * 3, r.BK * 5)]:
        cfg = gpu.launch_config(r.name, M, N, K)
        assert cfg.tile is None and cfg.block == (r.threads, 1, 1)
        gx, gy, _ = cfg.grid
        assert gx * r.BN >= N > (gx - 1) * r.BN and gy * r.BM >= M > (gy - 1) * r.BM
        assert cfg.phases == -(-K // r.BK) and cfg.shared_bytes == r.shared_bytes and cfg.ld == (K, N)
        fast = M % r.BM == 0 and N % r.BN == 0 and K % r.BK == 0
        # int GUARD: 0 fast, 1 guarded on aligned rows (K, N multiples of 4), 2 not (5: even)
        width = configs.copy_width(K, N)
        guard = 0 if fast else {4: 1, 2: 5, 1: 2}[width]
        guard += 16 if N % 4 and K <= configs.WIDE_ROWS_K else 0  # C's rows staged a warp tile wide
        assert cfg.expression.endswith(f", {guard}>"), (M, N, K, cfg.expression)
        assert cfg.expression == r.launch_expression(M, N, K) and cfg.expression in r.expressions


@pytest.mark.parametrize("r", CONFIGS, ids=ids)
def test_table_matches_the_template(r):
    """The template parameter list in kernels/tuned/warptile_tuned.cu names the same parameters, in
    the same order, as the table (plus the trailing int GUARD), for each of its three entry points."""
    text = (gpu.KERNELS_DIR / r.file).read_text()
    for symbol in ("warptile_gemm", "warptile_splitk_gemm", "warptile_splittail_gemm"):
        m = re.search(r"template <([^>]*)>\s*__global__[^;{]*?\b" + symbol + r"\(", text, flags=re.S)
        assert m, f"{r.file}: no template for {symbol}"
        params = [p.split() for p in m.group(1).split(",")]
        assert [p[-1] for p in params] == [k for k, _ in r.params] + ["GUARD"], symbol
        assert params[-1] == ["int", "GUARD"], symbol
    assert gpu.KERNELS[r.name].name_expressions == r.expressions


@pytest.mark.parametrize("K,S", [(8, 1), (19, 3), (77, 5), (4096, 7), (1000, 125)])
def test_split_ranges_cover_every_phase_once(K, S):
    r = configs.config("warptile_64x64")
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
        gpu.launch_config("warptile", 128, 128, 128, splits=2)  # the rung: whole K only
    with pytest.raises(ValueError, match="no split-K"):
        gpu.launch_config("tiled", 128, 128, 128, 16, splits=2)
    cfg = gpu.launch_config("warptile_64x64", 100, 70, 800, splits=4)
    assert cfg.grid == (2, 2, 4) and cfg.workspace_floats == 4 * 100 * 70
    assert cfg.expression.startswith("warptile_splitk_gemm<") and cfg.expression.endswith(", 5>")  # N = 70: even
    assert gpu.launch_config("warptile_64x64", 100, 71, 800, splits=4).expression.endswith(", 2>")  # N = 71
    assert gpu.launch_config("warptile_64x64", 100, 72, 800, splits=4).expression.endswith(", 1>")


def test_kernel_labels_with_a_split_count():
    from explainer.gpu.launch import kernel_and_splits

    assert kernel_and_splits("warptile_256x128") == ("warptile_256x128", 1)
    assert kernel_and_splits("warptile_64x64@6") == ("warptile_64x64", 6)
    for bad, msg in (("warptile_256x128@0", "whole number"), ("warptile_256x128@x", "whole number"),
                     ("tiled@2", "no split-K"), ("warptile@2", "no split-K"), ("nope@2", "unknown kernel")):
        with pytest.raises(ValueError, match=msg):
            kernel_and_splits(bad)


def test_split_tail_labels_and_launches():
    from explainer.gpu.launch import label_of, parse_label

    w = "warptile_256x128"
    assert parse_label(w) == (w, 1, 0)
    assert parse_label(f"{w}@4") == (w, 4, 0)
    assert parse_label("warptile_128x64@24x5") == ("warptile_128x64", 5, 24)
    for lab in (w, f"{w}@4", "warptile_128x64@24x5"):
        assert label_of(*parse_label(lab)) == lab
    for bad, msg in ((f"{w}@0x5", "RxS"), (f"{w}@24x1", "RxS"), (f"{w}@x5", "RxS"),
                     (f"{w}@24x", "RxS"), ("double_buffered@4x2", "no split-K"), ("warptile@4x2", "no split-K")):
        with pytest.raises(ValueError, match=msg):
            parse_label(bad)
    # 3000^3 in 256 x 128 tiles: 24 x 12 = 288 tiles; the last 24 in 5 slices, 264 whole first
    cfg = gpu.launch_config(w, 3000, 3000, 3000, splits=5, tail=24)
    assert cfg.tiles == 288 and cfg.whole_tiles == 264 and cfg.grid == (264 + 24 * 5, 1, 1)
    assert cfg.tile_grid == (24, 12) and cfg.workspace_floats == 5 * 3000 * 3000 and cfg.label == f"{w}@24x5"
    assert cfg.expression.startswith("warptile_splittail_gemm<") and cfg.expression.endswith(", 1>")
    assert gpu.launch_config(w, 4096, 4096, 4096, splits=2, tail=8).expression.endswith(", 0>")
    for kw, msg in ((dict(splits=1, tail=3), "S >= 2"), (dict(splits=4, tail=288), "between 1 and 287"),
                    (dict(splits=400, tail=3), "phases")):
        with pytest.raises(ValueError, match=msg):
            gpu.launch_config(w, 3000, 3000, 3000, **kw)
    assert all(any("_splittail_gemm<" in e for e in r.expressions) for r in CONFIGS)
    assert all(any("_splitk_gemm<" in e for e in r.expressions) for r in CONFIGS)


def test_split_k_with_a_separate_reduction_labels_and_geometry():
    """``+reduce``: split-K (S >= 2 of every tile) whose slices kernels/tuned/splitk_reduce.cu adds;
    the kernel's grid, instantiation and workspace are split-K's; with ``+pad`` after it; refused
    for a split tail, S = 1, a kernel without split-K, a suffix out of order or twice."""
    from explainer.gpu.launch import label_of, parse_launch

    w = "warptile_256x128"
    assert parse_launch(f"{w}@11+reduce") == (w, 11, 0, False, True)
    assert parse_launch("warptile_64x64@8+reduce+pad") == ("warptile_64x64", 8, 0, True, True)
    for lab in (f"{w}@11+reduce", "warptile_64x64@8+reduce+pad", "warptile_32x128@128+reduce"):
        assert label_of(*parse_launch(lab)) == lab
    for bad, msg in ((f"{w}@24x5+reduce", "not a split tail"), (f"{w}+reduce", "S >= 2"),
                     (f"{w}@1+reduce", "S >= 2"), ("double_buffered@2+reduce", "no split-K"),
                     ("warptile@2+reduce", "no split-K"),
                     (f"{w}@4+pad+reduce", "in that order"), (f"{w}@4+reduce+reduce", "once each")):
        with pytest.raises(ValueError, match=msg):
            parse_launch(bad)
    cfg = gpu.launch_config(w, 3000, 96, 3000, splits=11, reduce=True)
    plain = gpu.launch_config(w, 3000, 96, 3000, splits=11)
    assert cfg.reduce and not plain.reduce and cfg.label == f"{w}@11+reduce"
    assert (cfg.grid, cfg.expression, cfg.workspace_floats) == (plain.grid, plain.expression, 11 * 3000 * 96)
    # the reduction's own launch (kernels/tuned/splitk_reduce.cu's layouts)
    # 11 slices: a block of 8 warps per 128 floats of C, the warps on the slices
    assert cfg.reduce_launch == ((-(-3000 * 96 // 128), 1, 1), (256, 1, 1)) and plain.reduce_launch is None
    # up to 8 slices: 256 threads a block, 4 floats of C a thread (300 x 201 = 60300 floats: 59 blocks)
    assert gpu.launch_config(w, 300, 201, 1000, splits=3, reduce=True).reduce_launch == ((59, 1, 1), (256, 1, 1))
    padded = gpu.launch_config(w, 3001, 95, 3003, splits=11, pad=True, reduce=True)
    assert padded.pad and padded.reduce and padded.ld == (3004, 96) and padded.label == f"{w}@11+reduce+pad"
    for kw in ({"splits": 1}, {"splits": 4, "tail": 3}):
        with pytest.raises(ValueError, match="separate reduction"):
            gpu.launch_config(w, 3000, 96, 3000, reduce=True, **kw)
    # the model: the same slots as split-K, and no output stored by the launch's own threads
    split, red = configs.predict_trace(W256, 300, 200, 100), configs.predict_trace(W256, 300, 200, 100, reduce=True)
    assert (split.a == red.a).all() and (split.b == red.b).all() and (red.c == ladder.NEVER).all()
    assert (split.c != ladder.NEVER).any()


def test_padded_launch_labels_and_geometry():
    """``+pad``: the tuned kernel reads copies of A (K not a multiple of 4) and / or B (N not) whose
    rows are padded to 4 floats (``ld``), with the shape's own grid and phases, and stores C in
    place: the guarded instantiation for aligned rows (GUARD 1), or GUARD 3 where C's rows are not
    aligned; refused where nothing needs padding, for the rungs (kernel 14 included) and the
    tensor-core kernels, and for another suffix."""
    from explainer.gpu.launch import label_of, parse_label, parse_launch

    w = "warptile_256x128"
    assert parse_launch(f"{w}@24x5+pad") == (w, 5, 24, True, False)
    assert parse_launch(f"{w}@4") == (w, 4, 0, False, False)
    for lab in (f"{w}+pad", f"{w}@4+pad", "warptile_128x64@24x5+pad", f"{w}@3"):
        assert label_of(*parse_launch(lab)) == lab
    for bad, msg in ((f"{w}+pads", "after '\\+' come"), ("mma_tf32+pad", "only the tuning engine's configurations"),
                     ("double_buffered+pad", "only the tuning engine's configurations"), ("warptile+pad", "only the tuning engine's configurations"),
                     (f"{w}@0+pad", "split-K count")):
        with pytest.raises(ValueError, match=msg):
            parse_launch(bad)
    with pytest.raises(ValueError, match="parse_launch"):
        parse_label(f"{w}+pad")
    cfg = gpu.launch_config(w, 4189, 4189, 4189, splits=4, tail=33, pad=True)
    plain = gpu.launch_config(w, 4189, 4189, 4189, splits=4, tail=33)
    assert (cfg.M, cfg.N, cfg.K, cfg.ld, cfg.pad) == (4189, 4189, 4189, (4192, 4192), True)
    assert (cfg.grid, cfg.tile_grid, cfg.phases) == (plain.grid, plain.tile_grid, plain.phases)
    assert plain.expression.endswith(", 2>") and cfg.expression == plain.expression[:-4] + ", 3>"
    # 4189^2 = 17547721 floats of C; each slice of the workspace starts at a multiple of 4 floats
    # (kernels/tuned/splitk_reduce.cu reads them by float4): 17547724 apart
    assert cfg.workspace_floats == 4 * 17547724 and cfg.label == f"{w}@33x4+pad"
    assert cfg.pad_floats == (4189 * 4192, 4189 * 4192) and plain.pad_floats == (0, 0) and plain.ld == (4189, 4189)
    a_only = gpu.launch_config(w, 100, 64, 7, pad=True)  # rows of C aligned: GUARD 1
    assert (a_only.pad_floats, a_only.ld) == ((100 * 8, 0), (8, 64)) and a_only.expression.endswith(", 1>")
    b_only = gpu.launch_config(w, 100, 63, 8, pad=True)
    assert (b_only.pad_floats, b_only.ld) == ((0, 8 * 64), (8, 64)) and b_only.expression.endswith(", 19>")  # short K
    assert gpu.launch_config(w, 100, 63, 260, pad=True).expression.endswith(", 3>")
    assert gpu.launch_config(w, 4096, 4096, 4096).ld == (4096, 4096)
    assert gpu.launch_config("double_buffered", 100, 63, 8).ld is None  # kernels 10-14 take no strides
    assert gpu.launch_config("warptile", 100, 63, 8).ld is None
    assert ", 3>" in " ".join(W256.expressions)  # compiled with the others
    for args, msg in (((w, 64, 64, 64), "nothing to pad"), (("mma_tf32", 63, 63, 63), "only the tuning engine's configurations"),
                      (("vectorized", 63, 63, 63), "only the tuning engine's configurations"), (("warptile", 63, 63, 63), "only the tuning engine's configurations")):
        with pytest.raises(ValueError, match=msg):
            gpu.launch_config(*args, pad=True)


def test_split_entry_points_copy_b_by_element_on_unaligned_rows():
    """The tuned kernel's split entry points copy B element by element wherever K or N is not a
    multiple of 4 (``predict_trace(split=True)``), by pairs where K and N are even (GUARD 5): where
    only K is unaligned, the edge blocks' B slots past column N hold column N - 1 (elements) or the
    pair N - 2, N - 1 instead of the last granule's columns (where C is narrower than a tile: the
    edge blocks clamp); everything else, and every slot where N is unaligned too, is the whole-K
    entry point's."""
    for name in ("warptile_256x128", "warptile_64x128", "warptile_128x32_bk16"):
        r = configs.config(name)
        M, N = 2 * r.BM + 1, r.BN - 4  # N a multiple of 4, below a tile's width
        for K, width in ((7 * r.BK + 1, 1), (7 * r.BK + 2, 2)):  # K odd: elements; K even: pairs
            whole, split = configs.predict_trace(r, M, N, K), configs.predict_trace(r, M, N, K, split=True)
            assert (whole.a == split.a).all() and (whole.c == split.c).all()
            gx, _ = r.grid(M, N)
            assert (whole.b[:, :gx - 1] == split.b[:, :gx - 1]).all()  # inside C's columns: the same
            differ = whole.b != split.b
            assert differ.any(), (name, K)
            cols = set((split.b[differ] % N).tolist())  # only slots past N, filled from N - width ..
            assert cols <= set(range(N - width, N)) and len(cols) == width, (name, K, cols)
            for n_ in (N + 2, N + 1):  # N unaligned too (even, odd): whole and split copy B alike
                assert (configs.predict_trace(r, M, n_, K).b == configs.predict_trace(r, M, n_, K, split=True).b).all()
            assert (configs.predict_trace(r, M, N, K + width).b  # aligned K: nothing changes
                    == configs.predict_trace(r, M, N, K + width, split=True).b).all() or (K + width) % 4 != 0
        padded = configs.predict_trace(r, M, N + 2, 7 * r.BK + 2, pad=True)  # a padded launch reads granules
        assert (padded.b == configs.predict_trace(r, M, N + 2, 7 * r.BK + 2, pad=True, split=True).b).all()


def test_even_rows_copy_by_pairs():
    """Where K and N are even but not both multiples of 4, the tuned kernel runs GUARD 5 (its roomy
    twin 6), whose bodies copy pairs of elements; the model's edge blocks (C narrower than a tile)
    then hold B's last pair of columns (N - 2, N - 1) past N, where odd rows (GUARD 2) hold column N - 1."""
    r = configs.config("warptile_64x128")
    assert configs.copy_width(266, 134) == 2 and configs.copy_width(266, 135) == 1 and configs.copy_width(268, 136) == 4
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
        tr = configs.predict_trace(r, M, n_, k_)
        gx, _ = r.grid(M, n_)
        col = np.broadcast_to((gx - 1) * r.BN + n, tr.b[0, gx - 1].shape)  # each slot's column of C
        edge = tr.b[:, gx - 1]  # (rows of tiles, phases, slots)
        past = (col >= n_) & (edge >= 0)
        assert past.any()
        np.testing.assert_array_equal(edge[past] % n_, want(np.broadcast_to(col, edge.shape)[past]))


def test_padded_launch_model_reads_the_same_elements():
    """The model of a padded launch (``predict_trace(pad=True)``): every output of C stored once,
    by the same threads but in a shifted last column of blocks, and, in the blocks inside C, the
    same slots as without padding (the copies change where rows lie in memory, not what a phase
    adds); at the edge, B's granules lie in its padded rows, which hold only padding zeros past
    column N: where C is a tile wide or more, the last column of blocks starts at N rounded up to
    4, less BN (unpadded: N - BN); where it is narrower, they clamp into those rows; and ``replay``
    from it gives A @ B."""
    for name in ("warptile_256x128", "warptile_64x64_bk16"):
        r = configs.config(name)
        for M, N, K in [(2 * r.BM + 1, r.BN + 3, 7 * r.BK + 2), (2 * r.BM - 3, 2 * r.BN + 4, 5 * r.BK + 1),
                        (r.BM + 7, 3 * r.BN - 2, 4 * r.BK), (2 * r.BM + 1, r.BN - 3, 5 * r.BK + 1)]:
            pad, plain = configs.predict_trace(r, M, N, K, pad=True), configs.predict_trace(r, M, N, K)
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
    r = configs.config("warptile_64x64")
    M, N, K = 70, 67, 29
    A, B = rng.integers(-3, 4, (M, K)).astype(np.float64), rng.integers(-3, 4, (K, N)).astype(np.float64)
    np.testing.assert_array_equal(ladder.replay(r, A, B, pad=True), A @ B)


def test_staged_stores_write_whole_sectors():
    """``warp_store_sectors``: where C's rows are not aligned, one store instruction of a warp
    (128 bytes) touches, stored one output at a time, TN floats apart in WSUBM / TM rows, a sector
    per 8 columns of each of those rows; through shared memory, 32 consecutive floats of a row
    segment: 4 sectors, for every configuration of the tuned kernel."""
    for r in CONFIGS:
        w, p = r.warp_dims, r.p
        rows = w["WSUBM"] // p["TM"]  # lanes down a sub-tile
        span = (w["WSUBN"] // p["TN"]) * p["TN"]  # columns the lanes of a row reach
        assert configs.warp_store_sectors(r, False) == rows * -(-span // 8), r.name
        assert configs.warp_store_sectors(r, True) == 4, r.name


@pytest.mark.parametrize("r", CONFIGS, ids=ids)
def test_no_roomy_twin_where_minb_already_leaves_every_register(r):
    """A configuration whose MINB share of the SM's registers already is the 255 a thread can have
    (warptile_128x48_t64: 64 threads, MINB 4) has no roomy instantiation: none is compiled, and its
    launches on unaligned rows run GUARD 2 whatever their blocks."""
    minb = dict(r.params).get("MINB", 1)
    assert r.min_blocks == minb
    share = 65536 // (r.threads * minb)
    assert r.has_roomy == (minb > 1 and share < 255)
    roomy_built = [e for e in r.expressions if e.endswith((", 4>", ", 6>"))]
    assert bool(roomy_built) == r.has_roomy
    if not r.has_roomy:
        assert not any(r.roomy(b, 132) for b in range(1, 4 * 132))
        cfg = gpu.launch_config(r.name, 3 * r.BM + 1, 2 * r.BN + 3, 33 * r.BK + 1)
        assert cfg.on_device(132) == cfg.expression and cfg.expression.endswith(", 2>")
    assert any(not c.has_roomy for c in CONFIGS if c.min_blocks > 1)  # the rule has a case


@pytest.mark.parametrize("r", CONFIGS, ids=ids)
def test_roomy_instantiation_only_where_the_rounds_stay(r):
    """The tuned kernel's GUARD 4 (GUARD 2's bodies with registers for MINB - 1 blocks per SM, where
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
    assert cfg.on_device(132) == r.device_expression(cfg, 132)
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
    """Distinct banks of each store instruction of the tuned kernel's float4 copy of A into As (store
    c of copy q by the lanes of one warp), from the model's loader (loader_a) and slots (read_slot_a)."""
    m, k = np.meshgrid(np.arange(r.BM), np.arange(r.BK), indexing="ij")
    thread = ladder.loader_a(r)
    q = (m * (r.BK // 4) + k // 4) // r.threads  # the thread's copy that holds the element
    bank = ladder.read_slot_a(r, m, k) % 32
    groups: dict[tuple, set] = {}
    for key, b in zip(zip(q.ravel(), (k % 4).ravel(), (thread // 32).ravel()), bank.ravel()):
        groups.setdefault(key, set()).add(int(b))
    return [len(v) for v in groups.values()]


@pytest.mark.parametrize("r", CONFIGS, ids=ids)
def test_transposed_stores_bank_spread(r):
    # a store instruction of the float4 copy writes 32 banks where BK = 8, 16 where BK = 16, 16
    # where BK = 32 only through the swizzle of rows 8-15 and 24-31 (8 without), and 12 where BK = 24
    # (96x128, left as it is)
    banks = _float4_store_banks(r)
    assert min(banks) == {8: 32, 16: 16, 24: 12, 32: 16}[r.BK], (r.name, sorted(set(banks)))
    assert r.swizzled == (r.BK == 32)


def test_the_swizzle_is_what_spreads_the_bk32_stores(monkeypatch):
    r = configs.config("warptile_128x48")
    assert r.swizzled and min(_float4_store_banks(r)) == 16
    assert (ladder.as_swizzle(r, np.arange(32)) == np.where((np.arange(32) >> 3) & 1, 4, 0)).all()
    monkeypatch.setattr(ladder, "as_swizzle", lambda rr, k: np.zeros_like(np.asarray(k)))
    assert min(_float4_store_banks(r)) == 8


@pytest.mark.parametrize("r", CONFIGS, ids=ids)
def test_short_k_on_unaligned_rows_stages_c_a_warp_tile_wide(r):
    """The tuned kernel's whole-K launches on rows of C that are not 16-byte aligned (N not a multiple
    of 4) with K <= WIDE_ROWS_K run GUARD + 16 (the same bodies, C's rows staged a warp tile wide):
    odd rows, even rows, a padded launch and the roomy twins; never a split launch, aligned rows or a
    longer K. Every such instantiation is compiled with the others."""
    short, long_ = configs.WIDE_ROWS_K, configs.WIDE_ROWS_K + 1
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
    assert configs.WIDE == 16
    assert configs.wide_rows(N=2975, K=64) and not configs.wide_rows(N=2976, K=64)
    assert not configs.wide_rows(N=2975, K=configs.WIDE_ROWS_K + 1)
    assert not configs.wide_rows(N=2975, K=64, splits=2) and not configs.wide_rows(N=2975, K=64, splits=2, tail=3)


def test_tail_tiles_are_the_last_partial_round():
    """``tail_tiles``: the tiles of C in a device's last, partial round of ``slots`` blocks (what the
    split tail splits), none when they fill every round or do not fill one."""
    r = W256
    assert r.grid(3000, 3000) == (24, 12)
    assert r.tail_tiles(3000, 3000, 132) == 288 % 132 == 24
    assert r.tail_tiles(4096, 4096, 128) == 0 and r.tail_tiles(1024, 1024, 132) == 0  # 512 = 4 x 128; 32 < 132
