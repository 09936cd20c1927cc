"""Pages 03 and 04's model: the unguarded kernel against a brute-force loop over every thread,
the hazard detector (none for the correct kernel, exactly the right ones for each broken
variant), the tile-quantization counts, and the widgets built from them."""

import numpy as np
import pytest

from explainer.model import hazards as H
from explainer.model import Launch, replay, schedule, steps, unguarded_report, unguarded_values


# ---- unguarded -------------------------------------------------------------------------
def _brute_unguarded(M, N, K, T, A, B):
    """PMPP fig. 5.9 as printed, thread by thread, on flat buffers padded with zeros; stores
    in block order, so every contested element records all its writers."""
    gx, gy, P = -(-N // T), -(-M // T), K // T
    a, b = list(np.ravel(A).astype(float)), list(np.ravel(B).astype(float))
    reads_a, reads_b, writes = [], [], {}
    for by in range(gy):
        for bx in range(gx):
            for ty in range(T):
                for tx in range(T):
                    row, col, s = by * T + ty, bx * T + tx, 0.0
                    for t in range(P):
                        for k in range(T):
                            ia, ib = row * K + t * T + k, (t * T + k) * N + col
                            s += (a[ia] if ia < M * K else 0.0) * (b[ib] if ib < K * N else 0.0)
                        reads_a.append(row * K + t * T + tx)
                        reads_b.append(((t * T + ty) * N + col, col))
                    writes.setdefault(row * N + col, []).append(((row, col), s))
    return reads_a, reads_b, writes


@pytest.mark.parametrize("M,N,K,T", [(3, 3, 3, 2), (5, 7, 3, 4), (5, 7, 9, 4), (35, 9, 19, 8), (1, 5, 2, 3), (8, 8, 8, 4)])
def test_unguarded_matches_brute_force(M, N, K, T):
    rng = np.random.default_rng(M * 100 + N)
    A, B = rng.integers(-4, 5, (M, K)), rng.integers(-4, 5, (K, N))
    L = Launch("tiled_unguarded", M, N, K, T)
    ra, rb, writes = _brute_unguarded(M, N, K, T, A, B)
    rep = unguarded_report(L)
    assert rep["reads_out_of_range_a"] == sum(i >= M * K for i in ra)
    out_b = [i for i, col in rb if col >= N]  # a column that does not exist
    assert rep["reads_out_of_range_b"] == len(out_b)
    assert rep["reads_past_end_b"] == sum(i >= K * N for i in out_b)
    assert rep["b_reads_in_other_rows"] == sum(i < K * N for i in out_b)
    contested = {(lin // N, lin % N) for lin, w in writes.items() if lin < M * N and len(w) > 1}
    assert set(rep["contested_c"]) == contested
    assert rep["stores_past_end_c"] == sum(len(w) for lin, w in writes.items() if lin >= M * N)
    pred = unguarded_values(L, A, B)
    for lin, w in writes.items():
        if lin < M * N:
            i, j = divmod(lin, N)
            owner = next(s for (r, c), s in w if (r, c) == (i, j))
            assert pred["C"][i, j] == owner
            if len(w) > 1:
                assert sorted(pred["candidates"][(i, j)]) == sorted(s for _, s in w)
    # the replay of an unguarded schedule is the owners' values
    assert np.array_equal(replay(schedule(L), A, B), pred["C"])
    right = (A @ B).astype(float)
    wrong = pred["C"] != right
    if K % T == 0 and not contested:
        assert not wrong.any() and rep["wrong_c"] == 0
    if K % T:
        assert rep["wrong_c"] == M * N and rep["missing_k"] == [K // T * T, K - 1]


def test_unguarded_b_reads_counted_per_thread():
    rep = unguarded_report(Launch("tiled_unguarded", 3, 3, 3, 2))
    _, rb, _ = _brute_unguarded(3, 3, 3, 2, np.ones((3, 3)), np.ones((3, 3)))
    # B's column 3 does not exist: each read of it lands in the next row of B
    assert rep["reads_out_of_range_b"] == 4 == rep["b_reads_in_other_rows"] == sum(c >= 3 for _, c in rb)
    assert rep["examples"]["b"][0]["lands"] == "B[1][0]"
    assert rep["examples"]["a"][0]["lands"].startswith("past the end of A")
    assert rep["contested_c"] == [(1, 0), (2, 0)]


def test_unguarded_with_k_below_tile_computes_nothing():
    L = Launch("tiled_unguarded", 4, 4, 3, 4)
    assert L.phases == 0 and L.stats()["fmas_executed"] == 0
    assert not unguarded_values(L, np.ones((4, 3)), np.ones((3, 4)))["C"].any()


# ---- counts ------------------------------------------------------------------------------
@pytest.mark.parametrize("M,N,K,T", [(3, 3, 3, 2), (35, 79, 19, 8), (16, 16, 16, 16), (1, 1, 1, 32)])
def test_wasted_fmas_brute_force(M, N, K, T):
    s = Launch("tiled", M, N, K, T).stats()
    S = schedule(Launch("tiled", M, N, K, T))
    # per thread and phase, T multiply-adds; useful iff the thread is inside C and k < K
    useful = 0
    for t in range(S.launch.phases):
        useful += int(S.writes_c.sum()) * min(T, K - t * T)
    assert s["useful_fmas"] == useful == M * N * K
    assert s["wasted_fmas"] == s["fmas_executed"] - useful
    assert s["padding_loads_a"] + s["padding_loads_b"] == s["padding_loads"]
    assert s["padding_loads_a"] == int((S.a_row < 0).sum())
    if M % T == N % T == K % T == 0:
        assert s["wasted_fmas"] == 0 and s["ghost_threads"] == 0 and s["padding_loads"] == 0


# ---- hazards -----------------------------------------------------------------------------
@pytest.mark.parametrize("M,N,K,T", [(8, 8, 8, 4), (35, 79, 19, 8), (3, 3, 3, 2), (40, 40, 70, 32)])
def test_correct_kernel_has_no_hazards(M, N, K, T):
    assert H.hazards(Launch("tiled", M, N, K, T)) == []
    acc = H.accesses(Launch("tiled", M, N, K, T))
    assert all(a.barrier_before_reads and a.barrier_before_next_write for a in acc)


def test_each_variant_has_exactly_its_hazards():
    M = N = K = 8
    T, P = 4, 2
    b1 = H.hazards(Launch("tiled_no_barrier1", M, N, K, T))
    b2 = H.hazards(Launch("tiled_no_barrier2", M, N, K, T))
    bb = H.hazards(Launch("tiled_no_barriers", M, N, K, T))
    # barrier 1 missing: every cell of As and Bs in every phase, read-before-write only
    assert {h.kind for h in b1} == {H.READ_BEFORE_WRITE} and len(b1) == 2 * T * T * P
    # barrier 2 missing: write-before-read, every cell, every phase but the last
    assert {h.kind for h in b2} == {H.WRITE_BEFORE_READ} and len(b2) == 2 * T * T * (P - 1)
    assert {h.phase for h in b2} == {0}
    assert set(bb) == set(b1) | set(b2)
    for h in b1 + b2:  # T-1 other readers; a thread never races with itself
        assert len(h.readers) == T - 1 and h.writer not in h.readers


def test_reports_name_the_right_cells():
    L = Launch("tiled_no_barrier1", 8, 8, 8, 4)
    h = next(h for h in H.hazards(L) if h.tile == "As" and h.cell == (2, 3) and h.phase == 1)
    assert h.writer == (3, 2)  # As[2][3] is stored by thread (x=3, y=2)
    assert set(h.readers) == {(0, 2), (1, 2), (2, 2)}  # the rest of row 2 reads it at k = 3
    assert "As[2][3]" in h.describe() and "barrier 1" in h.describe() and "(x=3, y=2)" in h.describe()
    g = next(h for h in H.hazards(Launch("tiled_no_barrier2", 8, 8, 8, 4)) if h.tile == "Bs" and h.cell == (1, 0))
    assert g.writer == (0, 1) and set(g.readers) == {(0, 0), (0, 2), (0, 3)}  # column 0 reads Bs[1][0]
    assert g.phase == 0 and "barrier 2" in g.describe() and "phase t = 1" in g.describe()  # counted from 0
    assert "of phase t = 0 " in g.describe(2) and "phase t = 1 of 0..1" in g.describe(2)
    assert "in phase t = 1 of 0..1 " in h.describe(2)  # h.phase == 1: the second of two phases


def test_hazard_edge_cases():
    assert H.hazards(Launch("tiled_no_barrier2", 35, 79, 19, 32)) == []  # one phase: nothing to overwrite
    assert H.hazards(Launch("tiled_no_barriers", 9, 9, 9, 1)) == []  # one thread per block
    s = H.summary(Launch("tiled_no_barrier1", 64, 64, 64, 8))  # 2 warps: some pairs cross warps
    assert s[H.READ_BEFORE_WRITE]["pairs_across_warps"] > 0
    assert H.summary(Launch("tiled_no_barrier1", 8, 8, 8, 4))[H.READ_BEFORE_WRITE]["pairs_across_warps"] == 0


def test_steps_drop_the_missing_barriers():
    kinds = lambda k: [s.kind for s in steps(Launch(k, 8, 8, 8, 4))]  # noqa: E731
    assert "barrier1" not in kinds("tiled_no_barrier1") and "barrier2" in kinds("tiled_no_barrier1")
    assert "barrier2" not in kinds("tiled_no_barrier2")
    assert not {"barrier1", "barrier2"} & set(kinds("tiled_no_barriers"))
    assert Launch("tiled_no_barriers", 8, 8, 8, 4).barriers_per_block == 0


# ---- widgets -----------------------------------------------------------------------------
def test_stepper_sends_hazards_and_ghosts():
    from explainer.views.stepper import TiledStepper

    st = TiledStepper(8, 8, 8, 4, (1, 0), (1, 2), kernel="tiled_no_barrier1")
    meta, a = st.data()
    i = next(i for i, s in enumerate(st.steps) if s.kind == "compute" and s.phase == 0 and s.k == 3)
    h = a["k_hz"][i]
    assert h >= 0 and a["k_hz_threads"][i] == 1
    p = int(a["thread_grid"][2, 1])  # the pinned thread (x=1, y=2) reads As[2][3] and Bs[3][1]
    ca, cb = a["read_as"][3, p], a["read_bs"][3, p]
    assert a["haz_as"][h, ca] and a["haz_bs"][h, cb]
    assert tuple(a["thread_xy"][a["writer"][ca]]) == (3, 2) and tuple(a["thread_xy"][a["writer"][cb]]) == (1, 3)
    ok = TiledStepper(8, 8, 8, 4, (1, 0), (1, 2))
    assert (ok.data()[1]["k_hz"] == -1).all()
    g = TiledStepper(3, 3, 3, 2, (1, 1), (0, 0), mark_ghosts=True)
    ga = g.data()[1]
    assert ga["ghost"][ga["thread_grid"][1, 1]] == 1 and ga["ghost"][ga["thread_grid"][0, 0]] == 0


def test_seed_003_preset_walks_four_windows():
    from explainer.views.stepper import TiledStepper

    st = TiledStepper(3, 3, 3, 2, (1, 0), (1, 0))
    st.set_preset(next(p for p in st.PRESETS if p.startswith("the sliding-window write-up")))
    assert (st.L.M, st.L.N, st.L.K, st.L.T) == (4, 4, 8, 2) and st.L.phases == 4


def test_pages_build_and_switch_variant():
    from explainer.pages import edges as pages_edges

    from explainer.views.tiled import TiledView

    b = pages_edges.barriers()
    view = next(c for c in b.children if isinstance(c, TiledView))
    assert list(view.kernels) == list(pages_edges.VARIANTS)
    thread = int(view.meta["start"]["thread"])
    for k in ("tiled_no_barrier1", "tiled_no_barrier2", "tiled"):  # the browser's picker
        view._handle_custom_msg({"cmd": "kernel", "name": k, "thread": 3, "mode": "k"}, [])
        assert view.meta["kernel"] == k and view.meta["start"]["thread"] == 3 and view.error == ""
    assert thread != 3  # the pinned thread came from the message, not the old state
    view._handle_custom_msg({"cmd": "kernel", "name": "tiled_unguarded", "thread": 0}, [])
    assert "unknown kernel" in view.error and view.meta["kernel"] == "tiled"  # last good state kept
    html = pages_edges.hazard_table().value
    assert "tiled_no_barrier1" in html and "64 cells" in html
    page = pages_edges.boundaries()
    assert len(page.children) == 2  # the legend and the stepper; each section's figures follow its heading
    assert len(pages_edges.edge_costs().children) == 2 and len(pages_edges.without_checks().children) == 2
    assert "recorded" in pages_edges.flakiness_table().value or "live" in pages_edges.flakiness_table().value


def test_recorded_gpu_runs_agree_with_the_model():
    """The recorded unguarded runs (what page 03 shows without a GPU) are what the model
    predicts; the recorded race counts are 0 wherever the detector finds no hazard."""
    from explainer.gpu import edges as gpu_edges

    rec = gpu_edges.recorded_flakiness()
    assert rec and rec["device"]["name"] and rec["date"]
    for u in rec["unguarded"]:
        M, N, K, T = u["M"], u["N"], u["K"], u["tile"]
        pred = unguarded_values(Launch("tiled_unguarded", M, N, K, T), *gpu_edges.example_inputs(M, N, K))
        got = np.array(u["C"], dtype=float)
        for i in range(M):
            for j in range(N):
                assert got[i, j] in pred["candidates"].get((i, j), [pred["C"][i, j]]), (M, N, K, T, i, j)
    for r in rec["results"]:
        if not H.hazards(Launch(r["kernel"], r["M"], r["N"], r["K"], r["tile"])):
            assert r["runs_differing"] == 0, r


def test_page_03_headings_come_before_what_they_introduce():
    """Each section of page 03 is its heading, then the figures it introduces: the stepper's cell
    holds the stepper only."""
    import json

    from explainer import resources

    cells = ["".join(c["source"]) for c in json.loads((resources.notebooks_dir() / "03_boundaries.ipynb").read_text())["cells"]]

    def at(text):
        return next(i for i, c in enumerate(cells) if text in c)

    assert at("edges.boundaries()") < at("## The price of the edges") < at("edges.edge_costs()") \
        < at("## The kernel without checks") < at("edges.without_checks()")
