"""The execution model against brute force: replay = A @ B, per-thread answers against the
kernel's index formulas written out loop by loop, closed-form totals against counts."""

import numpy as np
import pytest

from explainer.model import Launch, LaunchError, replay, schedule, steps

rng = np.random.default_rng(2024)

# Edge shapes (STYLE.md 7): 1x1x1, tile+1, non-square, the 35x79x19, primes.
SHAPES = [
    (1, 1, 1, 1),
    (1, 1, 1, 32),
    (17, 17, 17, 16),
    (35, 79, 19, 8),
    (3, 3, 3, 2),
    (4, 4, 8, 2),
    (5, 7, 3, 32),
    (33, 1, 65, 32),
    (1, 40, 9, 4),
    (64, 64, 64, 16),
    (13, 29, 31, 5),
]


def _mats(M, N, K):
    # Small integers, deliberately non-symmetric: B is not A.T, and rows differ from columns.
    A = rng.integers(-9, 10, size=(M, K))
    B = rng.integers(-9, 10, size=(K, N))
    return A, B


@pytest.mark.parametrize("kernel", ["tiled", "naive", "naive_col"])
@pytest.mark.parametrize("M,N,K,T", SHAPES)
def test_replay_reproduces_matmul_exactly(kernel, M, N, K, T):
    A, B = _mats(M, N, K)
    C = replay(schedule(Launch(kernel, M, N, K, T)), A, B)
    assert not np.isnan(C).any(), "some C element is stored by no thread"
    assert np.array_equal(C, (A @ B).astype(np.float64))


def test_replay_random_shapes():
    for _ in range(40):
        M, N, K = (int(x) for x in rng.integers(1, 50, size=3))
        T = int(rng.integers(1, 33))
        A, B = _mats(M, N, K)
        C = replay(schedule(Launch("tiled", M, N, K, T)), A, B)
        assert np.array_equal(C, (A @ B).astype(np.float64)), (M, N, K, T)


def test_replay_detects_a_wrong_schedule():
    """The replay test can fail: swap the B source of one load and the product changes."""
    A, B = _mats(9, 7, 11)
    s = schedule(Launch("tiled", 9, 7, 11, 4))
    s.b_col[0, 0, 0, 1, 2] = s.b_col[0, 0, 0, 1, 3]
    assert not np.array_equal(replay(s, A, B), (A @ B).astype(np.float64))


def _brute_tiled_loads(M, N, K, T):
    """PMPP fig. 5.9 with boundary checks, written as the kernel reads: nested loops."""
    gx, gy = -(-N // T), -(-M // T)
    P = -(-K // T)
    a, b = {}, {}
    for by in range(gy):
        for bx in range(gx):
            for ty in range(T):
                for tx in range(T):
                    row, col = by * T + ty, bx * T + tx
                    for t in range(P):
                        a[by, bx, t, ty, tx] = (row, t * T + tx) if row < M and t * T + tx < K else None
                        b[by, bx, t, ty, tx] = (t * T + ty, col) if t * T + ty < K and col < N else None
    return a, b


@pytest.mark.parametrize("M,N,K,T", [(3, 3, 3, 2), (5, 7, 3, 4), (35, 79, 19, 8), (1, 1, 1, 1)])
def test_schedule_matches_brute_force(M, N, K, T):
    s = schedule(Launch("tiled", M, N, K, T))
    a, b = _brute_tiled_loads(M, N, K, T)
    for key, want in a.items():
        got = (int(s.a_row[key]), int(s.a_col[key]))
        assert got == (want if want else (-1, -1)), key
    for key, want in b.items():
        got = (int(s.b_row[key]), int(s.b_col[key]))
        assert got == (want if want else (-1, -1)), key


@pytest.mark.parametrize("kernel", ["tiled", "naive", "naive_col"])
@pytest.mark.parametrize("M,N,K,T", [(35, 79, 19, 8), (3, 3, 3, 2), (64, 64, 64, 16), (1, 5, 2, 3)])
def test_closed_form_stats_match_counts(kernel, M, N, K, T):
    L = Launch(kernel, M, N, K, T)
    st, s = L.stats(), schedule(L)
    for key, value in s.counts().items():
        assert st[key] == value, key
    assert st["ghost_threads"] == int((~s.writes_c).sum())
    assert st["flops"] == 2 * M * N * K


def test_thread_view_agrees_with_schedule():
    L = Launch("tiled", 35, 79, 19, 8)
    s = schedule(L)
    for _ in range(50):
        gx, gy = L.grid
        bx, by = int(rng.integers(gx)), int(rng.integers(gy))
        tx, ty = (int(v) for v in rng.integers(8, size=2))
        v = L.thread((bx, by), (tx, ty))
        assert v.c == (s.c_row[by, bx, ty, tx], s.c_col[by, bx, ty, tx])
        for t, ph in enumerate(v.phases()):
            a = (int(s.a_row[by, bx, t, ty, tx]), int(s.a_col[by, bx, t, ty, tx]))
            assert ph["a"] == (None if a[0] < 0 else list(a))
            b = (int(s.b_row[by, bx, t, ty, tx]), int(s.b_col[by, bx, t, ty, tx]))
            assert ph["b"] == (None if b[0] < 0 else list(b))


def test_compute_step_reads_what_other_threads_stored():
    """As[ty][k] holds what thread (x=k, y=ty) loaded; Bs[k][tx] what (x=tx, y=k) loaded."""
    L = Launch("tiled", 20, 21, 22, 4)
    v = L.thread((1, 2), (3, 1))
    for t in range(L.phases):
        for k in range(4):
            c = v.compute(t, k)
            assert c["a"] == L.thread((1, 2), (k, 1)).load(t)["a"]
            assert c["b"] == L.thread((1, 2), (3, k)).load(t)["b"]
            assert c["as"] == [1, k] and c["bs"] == [k, 3]


def test_seed_001_running_example():
    # the gemm_tiled walk-through: M=N=K=1024, TILE_SIZE=16, blockIdx.y=1, blockIdx.x=2, threadIdx.y=3, threadIdx.x=4
    d = Launch("tiled", 1024, 1024, 1024, 16).thread((2, 1), (4, 3)).to_dict()
    assert (d["row"], d["col"]) == (19, 36)
    assert d["phases"][0] == {"phase": 0, "a": [19, 4], "b": [3, 36], "as": [3, 4], "bs": [3, 4]}
    # DESIGN.md: the gemm_tiled walk-through says thread 36 of warp 1; it is linear id 52, lane 20.
    assert (d["linear_thread"], d["warp"], d["lane"]) == (52, 1, 20)
    assert len(d["phases"]) == 64 and d["barriers"] == 128


def test_seed_000_width3_tile2_padding():
    # the course notes: Width=3, TILE_WIDTH=2. In phase 1, tx=1 would read column 3 of A: padding.
    L = Launch("tiled", 3, 3, 3, 2)
    assert L.phases == 2
    ph = L.thread((0, 0), (1, 0)).load(1)
    assert ph["a"] is None and ph["b"] == [2, 1]
    ghost = L.thread((1, 1), (1, 1))
    assert ghost.c == (3, 3) and not ghost.writes_c


def test_naive_col_walks_rows_with_threadIdx_x():
    L = Launch("naive_col", 64, 64, 64, 16)
    rows = [L.thread((0, 0), (tx, 0)).c for tx in range(4)]
    assert rows == [(0, 0), (1, 0), (2, 0), (3, 0)]
    L2 = Launch("naive", 64, 64, 64, 16)
    assert [L2.thread((0, 0), (tx, 0)).c for tx in range(4)] == [(0, 0), (0, 1), (0, 2), (0, 3)]


def test_flop_per_byte_textbook_values():
    assert Launch("naive", 256, 256, 256, 16).stats()["flop_per_byte"] == pytest.approx(0.25)
    for T in (2, 8, 16, 32):
        assert Launch("tiled", 256, 256, 256, T).stats()["flop_per_byte"] == pytest.approx(T / 4)
    # Non-multiple shapes are lower than T/4: edge blocks reload less but still run.
    assert Launch("tiled", 35, 79, 19, 8).stats()["flop_per_byte"] < 2


def test_huge_launch_single_thread_is_cheap():
    L = Launch("tiled", 4096, 4096, 4096, 16)
    v = L.thread((255, 255), (15, 15)).to_dict()
    assert v["row"] == v["col"] == 4095 and len(v["phases"]) == 256
    assert L.stats()["global_loads"] == 2 * 4096**3 // 16


def test_steps_per_block():
    L = Launch("tiled", 8, 8, 8, 4)
    st = steps(L)
    assert len(st) == 2 * (3 + 4 + 1) + 1
    assert [s.kind for s in st[:4]] == ["load_a", "load_b", "barrier1", "compute"]
    assert st[-1].kind == "store"
    assert len(steps(L, per_k=False)) == 2 * 5 + 1


@pytest.mark.parametrize(
    "args,needle",
    [
        (("tiled", 0, 4, 4, 2), "M must be at least 1"),
        (("tiled", 4, 4, 4, 33), "tile must be between 1 and 32"),
        (("tiled", 4, 4, 4, 0), "tile must be between 1 and 32"),
        (("blocked", 4, 4, 4, 2), "unknown kernel"),
        (("tiled", 4.5, 4, 4, 2), "whole number"),
        (("tiled", 70000, 70000, 4, 2), "32-bit"),
    ],
)
def test_bad_launches_raise_one_line(args, needle):
    with pytest.raises(LaunchError, match=needle) as e:
        Launch(*args)
    assert "\n" not in str(e.value)


def test_bad_block_and_thread():
    L = Launch("tiled", 10, 10, 10, 4)
    with pytest.raises(LaunchError, match="outside the grid"):
        L.thread((3, 0), (0, 0))
    with pytest.raises(LaunchError, match="outside the 4x4 block"):
        L.thread((0, 0), (0, 4))


@pytest.mark.parametrize("kernel", ["naive", "naive_col", "tiled"])
@pytest.mark.parametrize("M, N, T", [(40, 50, 8), (3, 7, 2), (33, 17, 16)])
def test_c_owner_inverts_c_index_everywhere(kernel, M, N, T):
    L = Launch(kernel, M, N, 5, T)
    gx, gy = L.grid
    bx, by, tx, ty = np.meshgrid(np.arange(gx), np.arange(gy), np.arange(T), np.arange(T), indexing="ij")
    rows, cols = L.c_index(bx, by, tx, ty)
    ok = L.writes_c(bx, by, tx, ty)
    seen = set()
    for b0, b1, t0, t1, r, c in zip(bx[ok], by[ok], tx[ok], ty[ok], rows[ok], cols[ok]):
        assert L.c_owner(int(r), int(c)) == ((b0, b1), (t0, t1))
        seen.add((int(r), int(c)))
    assert len(seen) == M * N  # every element of C has exactly one owner
    with pytest.raises(LaunchError, match="outside"):
        L.c_owner(M, 0)
