"""Sectors and banks against hand-worked cases: warps of a block, one warp's global request
(addresses -> 32-byte sectors), the compute loop's shared reads (words -> banks)."""

import pytest

from explainer.model import memory
from explainer.model import Launch, LaunchError


# ---- warps -------------------------------------------------------------------------------
def test_warp_lanes_seed_001_thread():
    # 16x16 block: id = tx + 16*ty; thread (x=4, y=3) is 52 = warp 1, lane 20 (the gemm_tiled walk-through says 36).
    tx, ty, valid = memory.warp_lanes(16, 1)
    assert (tx[20], ty[20]) == (4, 3) and valid.all()
    assert memory.warp_map(16)[3][4] == 1
    # warp 1 = rows 2 and 3 of the block: two rows per warp
    assert sorted(set(ty.tolist())) == [2, 3]


def test_warp_shapes():
    assert memory.warp_map(8)[3].tolist() == [0] * 8 and memory.warp_map(8)[4][0] == 1  # 4 rows a warp
    assert memory.warp_map(32)[5].tolist() == [5] * 32  # a warp is one row
    tx, ty, valid = memory.warp_lanes(4, 0)  # 16 threads: half a warp
    assert valid.sum() == 16 and (tx[5], ty[5]) == (1, 1)
    assert memory.warps_per_block(16) == 8 and memory.warp_rows(16) == 2
    with pytest.raises(LaunchError, match="warp must be 0..7"):
        memory.warp_lanes(16, 8)


# ---- global sectors -------------------------------------------------------------------------
def test_naive_a_load_is_one_float_per_row():
    # 64^3, T=16, block (0,0), warp 0 (rows 0 and 1), k=5: A[0][5] at byte 20 (sector 0) and
    # A[1][5] at byte (64+5)*4 = 276 (sector 8): 2 sectors for 2 distinct floats (ideal 1).
    r = memory.warp_request(Launch("naive", 64, 64, 64, 16), "A load", (0, 0), 0, k=5)
    assert r.distinct_addresses == 2 and r.sector_ids == [0, 8]
    assert (r.sectors, r.ideal) == (2, 1)


def test_naive_b_load_coalesced():
    # B[5][0..15] at bytes 1280..1340: sectors 40, 41; both rows of the warp read the same.
    r = memory.warp_request(Launch("naive", 64, 64, 64, 16), "B load", (0, 0), 0, k=5)
    assert r.sector_ids == [40, 41] and (r.sectors, r.ideal) == (2, 2) and r.coalesced


def test_naive_col_is_the_uncoalesced_kernel():
    # threadIdx.x walks rows: A[0..15][k], one float per row, 256 bytes apart: 16 sectors for
    # 64 bytes (ideal 2); C stores likewise 16 sectors for 2 columns x 16 rows.
    L = Launch("naive_col", 64, 64, 64, 16)
    a = memory.warp_request(L, "A load", (0, 0), 0, k=0)
    assert a.sector_ids == [8 * r for r in range(16)] and (a.sectors, a.ideal) == (16, 2)
    assert not a.coalesced
    b = memory.warp_request(L, "B load", (0, 0), 0, k=0)
    assert (b.distinct_addresses, b.sectors) == (2, 1)  # columns 0 and 1 of row k: one sector
    c = memory.warp_request(L, "C store", (0, 0), 0)
    assert (c.sectors, c.ideal) == (16, 4)


def test_tiled_b_tile_load_is_coalesced():
    # The gemm_tiled walk-through says B[(t*T+ty)*N + col] is uncoalesced. Block (1,0), warp 0, t=1, 64^3:
    # rows 16 and 17 of B, columns 16..31: bytes (16*64+16)*4 = 4160 -> sectors 130, 131 and
    # (17*64+16)*4 = 4416 -> sectors 138, 139. 4 sectors for 128 bytes: the ideal.
    r = memory.warp_request(Launch("tiled", 64, 64, 64, 16), "B tile load", (1, 0), 0, t=1)
    assert r.sector_ids == [130, 131, 138, 139] and (r.sectors, r.ideal) == (4, 4) and r.coalesced
    assert r.lanes[17]["element"] == [17, 17]


def test_misaligned_row_costs_one_extra_sector():
    # N = 65: row 17 of B starts at (17*65+16)*4 = 4484, inside sector 140; its 64 bytes end at
    # 4547 (sector 142): 3 sectors; row 16 (4224..4287) is aligned: 2. 5 against an ideal of 4.
    r = memory.warp_request(Launch("tiled", 64, 65, 64, 16), "B tile load", (1, 0), 0, t=1)
    assert r.sector_ids == [132, 133, 140, 141, 142] and (r.sectors, r.ideal) == (5, 4)


def test_ghost_and_padding_lanes_issue_nothing():
    # 20^3, T=16, block (1,1): only columns 16..19 of rows 16, 17 exist in warp 0.
    c = memory.warp_request(Launch("naive", 20, 20, 20, 16), "C store", (1, 1), 0)
    assert c.active == 8
    # C[16][16] at (16*20+16)*4 = 1344 (sector 42), C[17][16] at 1424 (sector 44)
    assert c.sector_ids == [42, 44]
    # tiled A tile, phase 1 of K=20: columns 16..19 real, 20..31 padding zeros
    a = memory.warp_request(Launch("tiled", 20, 20, 20, 16), "A tile load", (0, 0), 0, t=1)
    assert a.active == 8 and a.lanes[4]["element"] is None


def test_sectors_per_request_matches_hand_counts():
    n = 64
    got = {k: {a: memory.sectors_per_request(Launch(k, n, n, n, 16), a, (1, 1))["sectors_per_request"]
               for a, _, _ in memory.ACCESSES[k]} for k in memory.ACCESSES}
    assert got["naive"] == {"A load": 2, "B load": 2, "C store": 4}
    assert got["naive_col"] == {"A load": 16, "B load": 1, "C store": 16}
    assert got["tiled"] == {"A tile load": 4, "B tile load": 4, "C store": 4}
    # T = 32: one row per warp, A becomes a single broadcast sector
    assert memory.sectors_per_request(Launch("naive", n, n, n, 32), "A load", (1, 1))["sectors_per_request"] == 1
    assert memory.sectors_per_request(Launch("naive_col", n, n, n, 32), "A load", (1, 1))["sectors_per_request"] == 32


def test_bad_access():
    with pytest.raises(LaunchError, match="no access"):
        memory.warp_request(Launch("naive", 8, 8, 8, 4), "B tile load")
    with pytest.raises(LaunchError, match="phase"):
        memory.warp_request(Launch("tiled", 8, 8, 8, 4), "A tile load", t=2)


# ---- banks ---------------------------------------------------------------------------------
def test_as_row_is_a_broadcast():
    # T=16, warp 0 = rows 0, 1; k=3: words 3 and 19 -> banks 3 and 19; 32 lanes, 2 words.
    a = memory.bank_access("As[ty][k]", 16, 0, 3)
    assert sorted(set(a.words)) == [3, 19] and a.banks_touched == 2
    assert a.broadcast and a.degree == 1


def test_bs_row_one_word_per_bank():
    a = memory.bank_access("Bs[k][tx]", 32, 0, 2)
    assert a.words == list(range(64, 96)) and a.banks_touched == 32 and a.degree == 1


def test_transposed_conflicts_and_padding_fixes_them():
    # Bs[tx][k], T=32: words 32*tx + k, all in bank k: 32-way. Padded rows of 33: bank (tx+k)%32.
    a = memory.bank_access("Bs[tx][k]", 32, 0, 0)
    assert set(a.banks) == {0} and a.degree == 32
    p = memory.bank_access("Bs[tx][k]", 32, 0, 0, pad=1)
    assert p.banks == list(range(32)) and p.degree == 1
    # T=16: words 16*tx + k -> banks k (even tx) and 16+k (odd tx): 8 words each, 8-way.
    assert memory.bank_access("Bs[tx][k]", 16, 0, 0).degree == 8
    assert memory.worst_bank_degree("Bs[tx][k]", 8) == 2
    for T in (8, 16, 32):
        assert memory.worst_bank_degree("As[ty][k]", T) == 1
        assert memory.worst_bank_degree("Bs[k][tx]", T) == 1
