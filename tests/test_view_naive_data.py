"""The arrays the naive explorer's front end receives equal what explainer.model answers.

The browser pins a thread by looking it up in these arrays, so every entry is checked against
the model one thread at a time (``Launch.thread``: its C element, warp, lane, whether it
writes C) and every C cell of the window against the model's inverse (``Launch.c_owner``),
on odd rectangular launches, edge blocks, windows that cut blocks, and the course material's examples.
"""

from __future__ import annotations

import numpy as np
import pytest

from explainer.model import Launch, LaunchError, memory
from explainer.views import naive as nv
from explainer.views.common import demo_matrices
from explainer.views.payload import pack, unpack

CASES = [  # kernel, M, N, K, T, block, window cells
    ("naive", 40, 50, 7, 8, (0, 0), 32),
    ("naive_col", 40, 50, 7, 8, (6, 4), 32),        # the corner block
    ("naive", 35, 79, 19, 8, (9, 4), 16),           # the window cuts blocks
    ("naive_col", 35, 79, 19, 8, (3, 2), 16),
    ("naive", 3, 3, 3, 2, (1, 1), 32),              # the course notes' Width=3, TILE_WIDTH=2: ghost threads
    ("naive_col", 1024, 1024, 1024, 16, (2, 1), 32),  # the gemm_tiled walk-through's running example
    ("naive", 100, 70, 1000, 32, (2, 3), 32),
    ("naive_col", 5, 9, 2, 3, (2, 1), 4),
    # non-square blocks, blockDim (BX, BY): the lab report's tile_x x tile_y
    ("naive", 35, 79, 19, (16, 4), (2, 3), 32),
    ("naive_col", 35, 79, 19, (16, 4), (4, 1), 32),   # naive_col: a 16-row x 4-column tile of C per block
    ("naive", 40, 50, 7, (8, 32), (6, 0), 16),         # the corner block, a window that cuts blocks
    ("naive_col", 100, 70, 9, (3, 5), (2, 3), 16),
    ("naive", 1024, 1024, 1024, (64, 4), (1, 5), 32),
]


def _launch(kernel, M, N, K, T) -> Launch:
    return Launch(kernel, M, N, K, T) if isinstance(T, int) else Launch(kernel, M, N, K, block_dim=T)


@pytest.mark.parametrize("kernel, M, N, K, T, block, cells", CASES)
def test_threads_and_c_cells_are_the_models(kernel, M, N, K, T, block, cells):
    L = _launch(kernel, M, N, K, T)
    meta, a = nv.naive_data(L, block, cells)
    R, Cw = L.tile_rows, L.tile_cols  # the tile of C a block covers
    (m0, m1), (n0, n1), (k0, k1) = meta["mwin"], meta["nwin"], meta["kwin"]
    assert np.array_equal(a["rows"], np.arange(m0, m1)) and np.array_equal(a["cols"], np.arange(n0, n1))
    assert np.array_equal(a["ks"], np.arange(k0, k1))
    assert m0 <= block[1] * R < m1 and n0 <= block[0] * Cw < n1  # the chosen block is drawn
    assert (meta["BX"], meta["BY"]) == L.block and str(meta["T"]) == L.block_label
    nw = n1 - n0
    for i, (bx, by) in enumerate(a["blocks"]):
        for q, (tx, ty) in enumerate(a["thread_xy"]):
            v = L.thread((bx, by), (tx, ty))
            row, col = v.c
            assert tuple(a["thr_rc"][i, q]) == (row, col)
            assert a["thr_writes"][i, q] == v.writes_c
            assert (a["thr_warp"][i, q], a["thr_lane"][i, q], a["thr_lin"][i, q]) == (v.warp, v.lane, v.linear_thread)
            drawn_r, drawn_c = v.writes_c and m0 <= row < m1, v.writes_c and n0 <= col < n1
            assert a["thr_arow"][i, q] == (row - m0 if drawn_r else -1)
            assert a["thr_bcol"][i, q] == (col - n0 if drawn_c else -1)
            assert a["thr_cell"][i, q] == ((row - m0) * nw + col - n0 if drawn_r and drawn_c else -1)
    # Every block the window touches is listed, and each C cell names its owner.
    touched = {(c // Cw, r // R) for r in range(m0, m1) for c in range(n0, n1)}
    assert {tuple(b) for b in a["blocks"]} == touched
    for r in range(m0, m1):
        for c in range(n0, n1):
            i, q = a["c_blk"][r - m0, c - n0], a["c_p"][r - m0, c - n0]
            assert (tuple(a["blocks"][i]), tuple(a["thread_xy"][q])) == L.c_owner(r, c)
    # each warp of each block drawn, at k = 0: its rows of the block and its requests' sectors
    for i, (bx, by) in enumerate(a["blocks"]):
        for w in range(memory.warps_per_block(L.block)):
            tx, ty, valid = memory.warp_lanes(L.block, w)
            assert a["warp_rows"][i, w] == len(set(ty[valid].tolist()))
            for j, access in enumerate(("A load", "B load", "C store")):
                req = memory.warp_request(L, access, (int(bx), int(by)), w, k=0)
                assert (a["warp_sec"][i, w, j], a["warp_ideal"][i, w, j]) == (req.sectors, req.ideal)


def test_labels_are_the_demo_values_in_small_windows():
    L = Launch("naive", 5, 9, 6, 3)
    meta, a = nv.naive_data(L, (1, 1))
    A, B = demo_matrices(5, 9, 6)
    assert np.array_equal(a["a_text"], A[:, :]) and np.array_equal(a["b_text"], B[:, :])
    _, big = nv.naive_data(Launch("naive", 1024, 1024, 1024, 16), (2, 1))
    assert "a_text" not in big  # too many cells to label


def test_payload_round_trips_and_starts_at_the_pinned_thread():
    L = Launch("naive_col", 40, 50, 7, 8)
    meta, buf = nv.naive_payload(L, (2, 2), thread=(5, 1), pinned=(3, 2))
    a = unpack(meta["arrays"], buf)
    _, direct = nv.naive_data(L, (2, 2))
    assert set(a) == set(direct) and all(np.array_equal(a[k], direct[k]) for k in a)
    assert meta["start"] == {"thread": L.linear_thread(5, 1), "pinned": [3, 2]}
    assert pack(direct)[1] == buf


def test_explorer_answers_the_browser_and_keeps_state_on_bad_input():
    ne = nv.NaiveExplorer(M=40, N=50, K=7, tile=8, block=(1, 1), thread=(2, 3))
    sent = []
    ne.view.send = lambda msg, buffers=None: sent.append(msg)
    rev = ne.view.rev
    ne._on_msg(None, {"cmd": "kernel", "name": "naive_col", "thread": 3 + 2 * 8, "pinned": [2, 1]}, [])
    meta, a = ne.data()
    assert ne.view.rev == rev + 1 and meta["kernel"] == "naive_col" and meta["block"] == [1, 1]
    assert ne.block == (2, 1) and ne.thread == (3, 2) and meta["start"]["pinned"] == [2, 1]
    ne._on_msg(None, {"cmd": "block", "block": ["4", "0"], "thread": 0}, [])
    assert ne.data()[0]["block"] == [4, 0]
    before = (ne.view.rev, ne.view.meta)
    for bad in ({"cmd": "launch", "M": "x", "N": 5, "K": 5, "T": 4},
                {"cmd": "launch", "M": 5, "N": 5, "K": 5, "T": 64},
                {"cmd": "block", "block": [99, 0], "thread": 0},
                {"cmd": "kernel", "name": "tiled", "thread": 0}):
        ne._on_msg(None, bad, [])
        assert sent[-1]["error"] and "\n" not in sent[-1]["error"]
        assert (ne.view.rev, ne.view.meta) == before  # the last good state stays
    ne._on_msg(None, {"cmd": "launch", "M": "9", "N": "11", "K": "3", "T": "4", "thread": 0, "pinned": [4, 0]}, [])
    meta, _ = ne.data()
    assert (meta["M"], meta["N"], meta["T"]) == (9, 11, 4) and meta["block"] == [2, 0]  # clamped into the grid


def test_pin_moves_the_window_only_when_needed():
    ne = nv.NaiveExplorer(M=200, N=300, K=9, tile=8, block=(0, 0), thread=(0, 0), window_cells=16)
    sent = []
    ne.view.send = lambda msg, buffers=None: sent.append(msg)
    rev = ne.view.rev
    ne.pin_c(9, 12)  # block (1, 1): inside the 16-cell window
    assert ne.view.rev == rev and sent[-1]["pin"][1] == ne.L.linear_thread(4, 1)
    ne.pin_c(150, 250)
    assert ne.view.rev == rev + 1 and ne.data()[0]["block"] == [31, 18]
    with pytest.raises(LaunchError, match="outside"):
        ne.pin_c(200, 0)


def test_static_store_holds_both_mappings_and_nearby_blocks():
    ne = nv.NaiveExplorer(M=300, N=200, K=50, tile=16, block=(3, 4), thread=(1, 2))
    store = ne.static_store(200_000)
    for kernel in ("naive", "naive_col"):
        assert f"{kernel}|300|200|50|16|3|4" in store["states"]
    assert store["bytes"] <= 200_000 and len(store["states"]) > 2
    assert "naive|300|200|50|16|2|3" in store["states"]  # the first ring


def test_a_non_square_block_from_the_browser_and_its_bad_input():
    """blockDim.x and blockDim.y typed apart (cmd launch with BX, BY): a 16x4 launch; 64x32 (2048
    threads) and 0 refused in one line, the last good state kept; the other mapping keeps the shape."""
    ne = nv.NaiveExplorer(M=40, N=50, K=7, tile=8, block=(1, 1), thread=(2, 3))
    sent = []
    ne.view.send = lambda msg, buffers=None: sent.append(msg)
    ne._on_msg(None, {"cmd": "launch", "M": "40", "N": "50", "K": "7", "BX": "16", "BY": "4", "T": "16x4",
                      "thread": 2 + 3 * 8, "pinned": [1, 1]}, [])
    meta, a = ne.data()
    assert (meta["BX"], meta["BY"], meta["T"]) == (16, 4, "16x4") and ne.L == Launch("naive", 40, 50, 7, block_dim=(16, 4))
    assert meta["start"]["thread"] == ne.L.linear_thread(2, 3) and len(a["thread_xy"]) == 64
    before = (ne.view.rev, ne.view.meta)
    for bad in ({"cmd": "launch", "M": 40, "N": 50, "K": 7, "BX": "64", "BY": "32", "thread": 0},
                {"cmd": "launch", "M": 40, "N": 50, "K": 7, "BX": "0", "BY": "4", "thread": 0},
                {"cmd": "launch", "M": 40, "N": 50, "K": 7, "BX": "8", "thread": 0}):
        ne._on_msg(None, bad, [])
        assert sent[-1]["error"] and "\n" not in sent[-1]["error"], sent[-1]
        assert (ne.view.rev, ne.view.meta) == before
    assert "2048 threads" in sent[0]["error"]
    ne._on_msg(None, {"cmd": "kernel", "name": "naive_col", "thread": 0, "pinned": [0, 0]}, [])
    meta, _ = ne.data()
    assert meta["kernel"] == "naive_col" and (meta["BX"], meta["BY"]) == (16, 4) and meta["grid"] == [13, 3]


def test_static_store_holds_the_non_square_blocks():
    ne = nv.NaiveExplorer(M=300, N=200, K=50, tile=16, block=(3, 4), thread=(1, 2))
    store = ne.static_store()
    for dims in nv.NaiveExplorer.STATIC_BLOCKS:
        L = Launch("naive", 300, 200, 50, block_dim=dims)
        for kernel in ("naive", "naive_col"):
            key = f"{kernel}|300|200|50|{L.block_label}"
            assert key in store["launches"], key
            entry = store["launches"][key]
            meta = store["payloads"][store["states"][entry["key"]]]["meta"]
            assert (meta["kernel"], meta["BX"], meta["BY"], str(meta["T"])) == (kernel, *dims, L.block_label)
    assert store["bytes"] <= nv.STATIC_CAP
