"""The arrays the tiled view's front end receives equal what explainer.model answers, step by step.

The browser only looks things up in these arrays, so this is where "the picture is the model"
is checked: every step's kind and phase, what each shared cell holds, what the pinned thread
copies and reads, its running sum, the owner of each C cell, the hazards of the broken variants,
on odd rectangular launches, the course material's examples, edge blocks and chunked long K loops.
"""

from __future__ import annotations

import numpy as np
import pytest

from explainer.model import hazards as hz
from explainer.model import PAD, STEP_KINDS, Launch, phase_of_step, step_count, steps, steps_of_phases
from explainer.views import tiled as tv
from explainer.views.common import demo_matrices
from explainer.views.payload import pack, unpack

CASES = [  # kernel, M, N, K, T, block
    ("tiled", 3, 3, 3, 2, (1, 0)),          # the course notes: Width=3, TILE_WIDTH=2
    ("tiled", 4, 4, 8, 2, (1, 1)),          # the sliding-window write-up: A 4x8, B 8x4, BLOCK_SIZE=2
    ("tiled", 35, 79, 19, 8, (9, 4)),       # odd rectangular, the corner block
    ("tiled", 13, 29, 37, 5, (2, 1)),
    ("tiled", 1, 1, 1, 1, (0, 0)),
    ("tiled_no_barrier1", 8, 8, 8, 4, (1, 0)),
    ("tiled_no_barrier2", 9, 7, 11, 4, (1, 2)),
    ("tiled_no_barriers", 8, 8, 8, 4, (0, 1)),
]


def brute_sum(L, A, B, block, p_xy, t_end, k_end):
    """The running sum of thread p after compute step (t_end, k_end), by brute force over the
    model's a_load / b_load (padding zeros count as 0)."""
    bx, by = block
    tx, ty = p_xy
    total = 0
    for t in range(t_end + 1):
        for k in range(L.T if t < t_end else k_end + 1):
            ar, ac = L.a_load(by, t, ty, k)
            br, bc = L.b_load(bx, t, k, tx)
            a = 0 if ar == PAD else int(A[int(ar), int(ac)])
            b = 0 if br == PAD else int(B[int(br), int(bc)])
            total += a * b
    return total


@pytest.mark.parametrize("kernel,M,N,K,T,block", CASES)
def test_arrays_equal_the_model_step_by_step(kernel, M, N, K, T, block):
    L = Launch(kernel, M, N, K, T)
    meta, a = tv.tiled_data(L, block, mark_ghosts=True)
    assert (meta["p0"], meta["p1"], meta["pbase"]) == (0, L.phases, 0)
    A, B = demo_matrices(M, N, K)
    bx, by = block
    P = L.phases
    threads = [(int(x), int(y)) for x, y in a["thread_xy"]]
    assert sorted(threads) == sorted((x, y) for x in range(T) for y in range(T))

    # Per thread: what it stores, reads, owns; per cell: who stores it.
    for p, (tx, ty) in enumerate(threads):
        v = L.thread(block, (tx, ty))
        assert list(a["cell_rc"][a["store_cell"][p]]) == v.load(0)["as"] == v.load(0)["bs"]
        assert a["writer"][a["store_cell"][p]] == p
        assert tuple(a["c_rc"][p]) == v.c and bool(a["writes"][p]) == v.writes_c
        assert a["warp"][p] == v.warp and bool(a["ghost"][p]) == (not v.writes_c)
        assert a["thread_grid"][ty, tx] == p
        for k in range(T):
            c = v.compute(0, k)
            assert list(a["cell_rc"][a["read_as"][k, p]]) == c["as"]
            assert list(a["cell_rc"][a["read_bs"][k, p]]) == c["bs"]

    # Per phase: the global element (or padding zero) in each shared cell, and its value.
    for t in range(P):
        for cell, (r, c) in enumerate(a["cell_rc"]):
            want_a = tuple(int(x) for x in L.a_load(by, t, r, c))
            want_b = tuple(int(x) for x in L.b_load(bx, t, r, c))
            assert tuple(a["a_src"][t, cell]) == want_a and tuple(a["b_src"][t, cell]) == want_b
            assert a["a_val"][t, cell] == (0 if want_a[0] == PAD else A[want_a])
            assert a["b_val"][t, cell] == (0 if want_b[0] == PAD else B[want_b])
        # mark_ghosts (page 03) draws phase t's tile whole, past K; the edge says where A and B end
        assert tuple(a["k_tile"][t]) == (t * T, t * T + T)
        assert tuple(tv.tiled_data(L, block)[1]["k_tile"][t]) == (t * T, min(K, t * T + T))
        # where a padding zero's index arithmetic pointed: the unchecked index, past A's / B's edge
        for cell, (r, c) in enumerate(a["cell_rc"]):
            if a["a_src"][t, cell][0] == PAD:
                wr, wc = (int(x) for x in a["a_want"][t, cell])
                assert (wr, wc) == (by * T + r, t * T + c) and (wr >= M or wc >= K)
            if a["b_src"][t, cell][0] == PAD:
                wr, wc = (int(x) for x in a["b_want"][t, cell])
                assert (wr, wc) == (t * T + r, bx * T + c) and (wr >= K or wc >= N)
    assert meta["edges"] == {"m": M, "n": N, "k": K}
    gx, gy = L.grid
    if gy * T <= 48:  # a small launch: the window holds every tile whole, past C's last row
        assert meta["mwin"] == [0, gy * T]
    if gx * T <= 48:
        assert meta["nwin"] == [0, gx * T]
    # a ghost thread's element past C's edge is drawn, and owned by that thread
    for p, (tx, ty) in enumerate(threads):
        r, c = (int(x) for x in a["c_rc"][p])
        rr, cc = r - meta["mwin"][0], c - meta["nwin"][0]
        if not a["writes"][p] and 0 <= rr < a["c_owner"].shape[0] and 0 <= cc < a["c_owner"].shape[1]:
            assert tuple(int(x) for x in a["c_owner"][rr, cc]) == (bx, by, p)

    # Per step, both modes: the model's program, and the pinned thread's running sum.
    for mode, per_k in tv.MODES.items():
        want = steps(L, per_k)
        assert meta["steps"][mode] == {"s0": 0, "s1": len(want), "total": len(want)}
        for i, s in enumerate(want):
            assert STEP_KINDS[a[f"{mode}_kind"][i]] == s.kind
            assert a[f"{mode}_phase"][i] == (P - 1 if s.kind == "store" else s.phase)
            assert a[f"{mode}_k"][i] == (-1 if s.k is None else s.k)
            idx = a[f"{mode}_sum"][i]
            for p in (0, len(threads) // 2, len(threads) - 1):
                got = 0 if idx < 0 else int(a["sums"].reshape(-1, T * T)[idx, p])
                if idx < 0:
                    assert s.kind in ("load_a", "load_b", "barrier1") and s.phase == 0
                    continue
                t_end, k_end = divmod(int(idx), T)
                assert got == brute_sum(L, A, B, block, threads[p], t_end, k_end)
            # Hazard tables: those of the model's detector for this phase and kind.
            h = a[f"{mode}_hz"][i]
            if s.kind == "compute" and not L.barriers[0]:
                cells = hz.cells_at(L, s.phase, hz.READ_BEFORE_WRITE)
            elif s.kind in ("load_a", "load_b") and s.phase > 0 and not L.barriers[1]:
                cells = hz.cells_at(L, s.phase - 1, hz.WRITE_BEFORE_READ)
            else:
                assert h == -1
                continue
            got_as = {tuple(a["cell_rc"][c]) for c in np.nonzero(a["haz_as"][h])[0]}
            got_bs = {tuple(a["cell_rc"][c]) for c in np.nonzero(a["haz_bs"][h])[0]}
            assert got_as == cells["As"] and got_bs == cells["Bs"]
    # The last running sum of every thread inside C is numpy's C element.
    for p, (tx, ty) in enumerate(threads):
        if a["writes"][p]:
            r, c = L.c_index(bx, by, tx, ty)
            want = int(A[int(r)].astype(np.int64) @ B[:, int(c)].astype(np.int64))
            assert int(a["sums"][P - 1, T - 1, p]) == want == int(a["numpy_c"][p])

    # The C window: each cell's owner computes exactly that cell (model.c_index).
    m0, n0 = meta["mwin"][0], meta["nwin"][0]
    for (r, c), owner in np.ndenumerate(a["c_owner"][..., 2]):
        obx, oby, q = a["c_owner"][r, c]
        assert q >= 0
        tx, ty = a["thread_xy"][q]
        assert tuple(int(x) for x in L.c_index(obx, oby, tx, ty)) == (m0 + r, n0 + c)


def test_seed_001_running_example():
    """The gemm_tiled walk-through: block (x=2, y=1), thread (x=4, y=3) of 1024^3, T=16 copies A[19][4] into As[3][4]
    in phase 0 and owns C[19][36] (linear id 52: warp 1, lane 20)."""
    L = Launch("tiled", 1024, 1024, 1024, 16)
    meta, a = tv.tiled_data(L, (2, 1), (4, 3))
    p = int(a["thread_grid"][3, 4])
    assert tuple(a["cell_rc"][a["store_cell"][p]]) == (3, 4)
    assert tuple(a["a_src"][0, a["store_cell"][p]]) == (19, 4)
    assert tuple(a["b_src"][0, a["store_cell"][p]]) == (3, 36)
    assert tuple(a["c_rc"][p]) == (19, 36) and a["warp"][p] == 1
    assert meta["steps"]["k"]["total"] == 64 * (2 + 1 + 16 + 1) + 1


def test_long_k_loops_come_in_chunks_that_continue_the_sum():
    L = Launch("tiled", 5, 6, 40_000, 8)  # 5000 phases: more than one chunk
    size = tv.CHUNK_BUDGET // 8 ** 3
    assert L.phases > size
    phase = size + 3
    meta, a = tv.tiled_data(L, (0, 0), (1, 2), phase=phase)
    assert (meta["p0"], meta["pbase"]) == (size, size - 1)
    s0, chunk = steps_of_phases(L, meta["p0"], meta["p1"])
    assert meta["steps"]["k"]["s0"] == s0 and meta["steps"]["k"]["s1"] == s0 + len(chunk)
    A, B = demo_matrices(L.M, L.N, L.K)
    i = next(i for i, s in enumerate(chunk) if s.kind == "compute" and s.phase == phase and s.k == 5)
    idx = int(a["k_sum"][i])
    t_end, k_end = divmod(idx, L.T)
    assert t_end + meta["pbase"] == phase and k_end == 5
    p = int(a["thread_grid"][2, 1])
    assert int(a["sums"].reshape(-1, 64)[idx, p]) == brute_sum(L, A, B, (0, 0), (1, 2), phase, 5)
    # The first load of the chunk shows the previous phase (held in row 0) as stale in Bs.
    assert a["k_bs_phase"][0] == meta["p0"] - 1 and a["k_tp"][0] == 1


def test_step_helpers_match_the_step_list():
    for L in (Launch("tiled", 7, 9, 11, 4), Launch("tiled_no_barriers", 8, 8, 8, 4), Launch("tiled", 1, 1, 1, 1)):
        for per_k in (True, False):
            full = steps(L, per_k)
            assert step_count(L, per_k) == len(full)
            for p0 in range(L.phases):
                for p1 in range(p0 + 1, L.phases + 1):
                    s0, part = steps_of_phases(L, p0, p1, per_k)
                    assert full[s0:s0 + len(part)] == part
            for i, s in enumerate(full):
                assert phase_of_step(L, i, per_k) == (L.phases - 1 if s.kind == "store" else s.phase)


def test_pack_round_trips_and_refuses_objects():
    arrays = {"a": np.arange(7, dtype=np.int8), "b": np.arange(6, dtype=np.int32).reshape(2, 3),
              "c": np.array([1.5, -2.0]), "d": np.array([True, False])}
    index, buf = pack(arrays)
    assert all(off % 8 == 0 for _, off, _ in index.values())
    back = unpack(index, buf)
    for k, v in arrays.items():
        assert np.array_equal(back[k], v)
    with pytest.raises(TypeError):
        pack({"bad": np.array(["x"])})
