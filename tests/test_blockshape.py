"""Non-square blocks: the naive kernels with blockDim (BX, BY) and kernel 03b's copies, against
brute force on odd shapes.

* the mapping: every thread's C element from the kernels' own index lines evaluated here thread by
  thread, the grid covering C exactly once, ``c_owner`` its inverse, a square ``block_dim`` the
  T x T launch itself;
* the coalescing: each warp's rows and sectors from its lanes' own addresses (id = tx + ty*BX);
* the occupancy: the SM's warps and block slots, divided out here;
* the lab report's partitions: its block partition's index lines give every thread the row
  partition's element, the column partition's do not;
* kernel 03b: a loop that runs the kernel's copy loops (e = tid; e += THREADS) one thread at a
  time, every cell of As / Bs stored once per phase, the replay equal to A @ B.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from explainer.model import Launch, LaunchError, blockshape as bs, hardware, rect, replay, schedule
from explainer.model import memory

ODD = [(35, 79, 19), (5, 9, 2), (17, 3, 4), (1, 1, 1), (64, 40, 7)]
BLOCKS = [(16, 4), (4, 16), (8, 2), (3, 5), (32, 8), (64, 4), (1, 7), (8, 8)]


def _kernel_index(kernel, bx, by, tx, ty, BX, BY):
    """kernels/01_naive.cu and 02_naive_col.cu's two index lines, as written there."""
    if kernel == "naive":
        return by * BY + ty, bx * BX + tx  # row = blockIdx.y*blockDim.y + threadIdx.y; col = ...x
    return by * BX + tx, bx * BY + ty  # row = blockIdx.y*blockDim.x + threadIdx.x; col = blockIdx.x*blockDim.y + ty


@pytest.mark.parametrize("kernel", ["naive", "naive_col"])
@pytest.mark.parametrize("BX, BY", BLOCKS)
@pytest.mark.parametrize("M, N, K", ODD)
def test_every_element_of_C_has_one_thread_and_it_is_the_kernels(kernel, BX, BY, M, N, K):
    L = Launch(kernel, M, N, K, block_dim=(BX, BY))
    gx, gy = L.grid
    owners = {}
    for by in range(gy):
        for bx in range(gx):
            for ty in range(BY):
                for tx in range(BX):
                    r, c = _kernel_index(kernel, bx, by, tx, ty, BX, BY)
                    assert tuple(int(v) for v in L.c_index(bx, by, tx, ty)) == (r, c)
                    assert bool(L.writes_c(bx, by, tx, ty)) == (r < M and c < N)
                    if r < M and c < N:
                        assert (r, c) not in owners
                        owners[(r, c)] = ((bx, by), (tx, ty))
    assert len(owners) == M * N  # the grid covers C, no element twice
    for (r, c), who in owners.items():
        assert L.c_owner(r, c) == who
    # and no block of the grid is wholly outside C (the grid is the smallest that covers it)
    tile_rows, tile_cols = (BX, BY) if kernel == "naive_col" else (BY, BX)
    assert (gx - 1) * tile_cols < N <= gx * tile_cols and (gy - 1) * tile_rows < M <= gy * tile_rows
    C = replay(schedule(L), *_ints(M, N, K))
    A, B = _ints(M, N, K)
    assert np.array_equal(C, A @ B)


def _ints(M, N, K):
    rng = np.random.default_rng(M * 131 + N * 7 + K)
    return rng.integers(-4, 5, (M, K)).astype(np.float64), rng.integers(-4, 5, (K, N)).astype(np.float64)


def test_a_square_block_dim_is_the_square_launch_and_bad_blocks_say_why():
    assert Launch("naive", 7, 9, 3, block_dim=(8, 8)) == Launch("naive", 7, 9, 3, 8)
    assert Launch("naive_col", 7, 9, 3, block_dim=[4, 16]).block == (4, 16)
    L = Launch("naive", 7, 9, 3, block_dim=(16, 4))
    assert L.block_label == "16x4" and L.threads_per_block == 64 and L.stats()["block"] == [16, 4]
    with pytest.raises(LaunchError, match="no single edge"):
        L.T
    for bad, says in (((64, 32), "2048 threads"), ((0, 4), "at least 1"), ((16,), "blockDim"), (("a", 2), "whole")):
        with pytest.raises(LaunchError, match=says):
            Launch("naive", 7, 9, 3, block_dim=bad)
    with pytest.raises(LaunchError, match="T x T"):
        Launch("tiled", 7, 9, 3, block_dim=(16, 4))
    with pytest.raises(LaunchError, match="outside the 16x4 block"):
        L.check_thread(3, 4)


@pytest.mark.parametrize("kernel", ["naive", "naive_col"])
@pytest.mark.parametrize("BX, BY", [(16, 4), (8, 8), (3, 5), (64, 4), (4, 16)])
def test_owner_map_is_every_threads_element(kernel, BX, BY):
    L = Launch(kernel, 140, 170, 5, block_dim=(BX, BY))
    block = (1, 1)
    om = bs.owner_map(L, block)
    r0, c0 = om["origin"]
    for ty in range(BY):
        for tx in range(BX):
            r, c = _kernel_index(kernel, *block, tx, ty, BX, BY)
            lin = tx + ty * BX
            i, j = r - r0, c - c0
            assert (om["tx"][i, j], om["ty"][i, j], om["lin"][i, j]) == (tx, ty, lin)
            assert (om["warp"][i, j], om["lane"][i, j]) == (lin // 32, lin % 32)


def _brute_warp(L, block, warp, k):
    """Rows and sectors of each access of ``warp`` from its lanes, one lane at a time."""
    BX, BY = L.block
    out = {m: {"rows": set(), "sectors": set(), "floats": set()} for m in "ABC"}
    for lane in range(32):
        lin = warp * 32 + lane
        tx, ty = lin % BX, lin // BX
        if ty >= BY:
            continue
        r, c = _kernel_index(L.kernel, *block, tx, ty, BX, BY)
        if not (r < L.M and c < L.N):
            continue  # the guard: no load, no store
        for m, (row, col, width) in {"A": (r, k, L.K), "B": (k, c, L.N), "C": (r, c, L.N)}.items():
            out[m]["rows"].add(row)
            out[m]["floats"].add(row * width + col)
            out[m]["sectors"].add((row * width + col) * 4 // 32)
    return out


@pytest.mark.parametrize("kernel", ["naive", "naive_col"])
@pytest.mark.parametrize("BX, BY", [(8, 8), (16, 16), (32, 32), (32, 8), (64, 4), (16, 4), (3, 5), (8, 32)])
def test_each_warps_rows_and_sectors_from_its_lanes(kernel, BX, BY):
    L = Launch(kernel, 75, 131, 33, block_dim=(BX, BY))
    gx, gy = L.grid
    for block in ((0, 0), (gx - 1, gy - 1)):
        for k in (0, 32):
            fps = bs.block_footprints(L, block, k)
            assert len(fps) == math.ceil(BX * BY / 32)
            for fp in fps:
                want = _brute_warp(L, block, fp["warp"], k)
                for m in "ABC":
                    assert fp[m]["rows"] == sorted(want[m]["rows"]), (m, fp["warp"])
                    assert fp[m]["sectors"] == len(want[m]["sectors"])
                    assert fp[m]["ideal"] == math.ceil(len(want[m]["floats"]) * 4 / 32)


def test_an_8_wide_block_puts_4_rows_in_a_warp_and_its_A_load_pays_a_sector_each():
    """The lab report's claim that 8x8 blocks keep a warp more contiguous, against the count."""
    row = {r["block"]: r for r in bs.shape_table("naive", ((8, 8), (16, 16), (32, 32), (32, 8)))}
    assert [row[s]["warp_rows"] for s in ((8, 8), (16, 16), (32, 32))] == [4, 2, 1]
    a = [row[s]["warp0"]["A"] for s in ((8, 8), (16, 16), (32, 32))]
    assert [x["sectors"] for x in a] == [4, 2, 1] and all(x["ideal"] == 1 for x in a)
    assert row[(32, 8)]["warp0"]["A"]["sectors"] == 1  # as wide as a warp: one row, like 32x32
    col = {r["block"]: r for r in bs.shape_table("naive_col", ((8, 8), (32, 32)))}
    assert col[(8, 8)]["sectors_per_request"]["A"] == 8 and col[(32, 32)]["sectors_per_request"]["A"] == 32


@pytest.mark.parametrize("arch", list(hardware.arches()))
def test_occupancy_of_each_shape_is_the_sms_limits_divided_out(arch):
    a = hardware.arch(arch)
    for r in bs.shape_table("naive", bs.SHAPES, arch=[arch], n=64):
        BX, BY = r["block"]
        warps = -(-BX * BY // 32)
        o = r["occupancy"][arch]
        assert o["blocks_per_sm"] == min(a["max_warps_per_sm"] // warps, a["max_blocks_per_sm"])
        assert o["active_warps"] == o["blocks_per_sm"] * warps


def test_the_lab_reports_partitions():
    rows = bs.partition_table(n=96)
    by = {(r["partition"], r["block"]): r for r in rows}
    assert {p for p, _ in by} == {"row", "column", "block"}
    for s in ((8, 8), (16, 16), (32, 32)):
        assert by[("row", s)]["same_as_row"] and by[("block", s)]["same_as_row"]
        assert not by[("column", s)]["same_as_row"]
        assert by[("block", s)]["sectors_per_request"] == by[("row", s)]["sectors_per_request"]
    # the block partition's own lines, thread by thread, against the row partition's (non-square too)
    for BX, BY in ((16, 4), (3, 5)):
        rows_b, cols_b = bs.partition_owners("block", BX, BY, 37, 29)
        L = Launch("naive", 37, 29, 1, block_dim=(BX, BY))
        gy, gx, ty_n, tx_n = rows_b.shape
        for by_ in range(gy):
            for bx_ in range(gx):
                for ty in range(ty_n):
                    for tx in range(tx_n):
                        want = (by_ * BY + ty, bx_ * BX + tx)  # blockRow = blockIdx.y*tile_y; row = blockRow + ty
                        assert (rows_b[by_, bx_, ty, tx], cols_b[by_, bx_, ty, tx]) == want
                        assert tuple(int(v) for v in L.c_index(bx_, by_, tx, ty)) == want


def test_warp_lanes_of_a_non_square_block():
    tx, ty, valid = memory.warp_lanes((8, 3), 0)
    assert valid.sum() == 24 and list(zip(tx[:10], ty[:10])) == [(x % 8, x // 8) for x in range(10)]
    assert memory.warps_per_block((64, 4)) == 8 and memory.warp_rows((8, 8)) == 4 and memory.warp_rows((64, 4)) == 1


# ---- kernel 03b ----------------------------------------------------------------------------------
RECTS = [(32, 8), (8, 32), (16, 4), (4, 2), (3, 5), (6, 4), (1, 1), (5, 5)]


def _kernel_copies(TX, TY, BK):
    """The kernel's two copy loops run one thread at a time: tid -> [(r, c) of As], [(r, c) of Bs]."""
    threads = TX * TY
    a, b = {}, {}
    for ty in range(TY):
        for tx in range(TX):
            tid = tx + ty * TX
            e, mine = tid, []
            while e < TY * BK:
                mine.append((e // BK, e % BK))
                e += threads
            a[tid] = mine
            e, mine = tid, []
            while e < BK * TX:
                mine.append((e // TX, e % TX))
                e += threads
            b[tid] = mine
    return a, b


@pytest.mark.parametrize("TX, TY", RECTS)
def test_rect_copies_are_the_kernels_loops_and_fill_each_cell_once(TX, TY):
    r = rect.RectTile(TX, TY)
    BK = r.BK
    assert BK % TX == 0 and BK % TY == 0 and all(BK > m or m % TX or m % TY for m in range(1, BK))  # the lcm
    a, b = _kernel_copies(TX, TY, BK)
    ar, ac = r.copies_a()
    br, bc = r.copies_b()
    for tid in range(TX * TY):
        assert list(zip(ar[tid].tolist(), ac[tid].tolist())) == a[tid]
        assert list(zip(br[tid].tolist(), bc[tid].tolist())) == b[tid]
        assert len(a[tid]) == r.a_copies and len(b[tid]) == r.b_copies  # a whole number for every thread
    cells_a = [c for v in a.values() for c in v]
    cells_b = [c for v in b.values() for c in v]
    assert sorted(cells_a) == [(i, j) for i in range(TY) for j in range(BK)]  # each cell once
    assert sorted(cells_b) == [(i, j) for i in range(BK) for j in range(TX)]
    if TX == TY:  # the square case: thread (tx, ty) copies its own cell, as in kernel 03
        assert all(a[tx + ty * TX] == [(ty, tx)] == b[tx + ty * TX] for ty in range(TY) for tx in range(TX))


@pytest.mark.parametrize("TX, TY", RECTS)
@pytest.mark.parametrize("M, N, K", ODD)
def test_rect_replay_and_trace_on_odd_shapes(TX, TY, M, N, K):
    r = rect.RectTile(TX, TY)
    A, B = _ints(M, N, K)
    assert np.array_equal(r.replay(A, B), A @ B)
    tr = r.predict_trace(M, N, K)
    gx, gy = r.grid(M, N)
    P = r.phases(K)
    assert tr["a"].shape == (gy, gx, P, TY * r.BK) and tr["c"].shape == (gy, gx, TY, TX)
    # the cell each thread copies holds what the thread view says, phase by phase
    a, b = _kernel_copies(TX, TY, r.BK)
    for (bx, by) in {(0, 0), (gx - 1, gy - 1)}:
        for t in range(P):
            for tid in (0, TX * TY - 1):
                loads = r.thread_loads(M, N, K, (bx, by), (tid % TX, tid // TX), t)
                for (i, j), got in zip(a[tid], loads["a"]):
                    src = (by * TY + i, t * r.BK + j)
                    want = list(src) if src[0] < M and src[1] < K else None
                    assert got == {"as": [i, j], "a": want}
                    assert tr["a"][by, bx, t, i * r.BK + j] == (src[0] * K + src[1] if want else -1)
                for (i, j), got in zip(b[tid], loads["b"]):
                    src = (t * r.BK + i, bx * TX + j)
                    want = list(src) if src[0] < K and src[1] < N else None
                    assert got == {"bs": [i, j], "b": want}
                    assert tr["b"][by, bx, t, i * TX + j] == (src[0] * N + src[1] if want else -1)
    # global reads, counted from the trace, are the closed form; and the FLOP per byte
    loads = int((tr["a"] >= 0).sum() + (tr["b"] >= 0).sum())
    assert loads == r.global_loads(M, N, K)
    assert math.isclose(r.flop_per_byte(M, N, K), 2 * M * N * K / (4 * loads))


def test_rect_names_and_bad_shapes():
    assert rect.BY_NAME["tiled_rect_32x8"].BK == 32 and rect.BY_NAME["tiled_rect_32x8"].b_copies == 4
    assert rect.RectTile(6, 4).BK == 12 and rect.RectTile(16, 16).flop_per_byte(1024, 1024, 1024) == 4.0
    with pytest.raises(LaunchError):
        rect.RectTile(64, 32)
    with pytest.raises(LaunchError):
        rect.RectTile(0, 4)
