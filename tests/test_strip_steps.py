"""V1 against V2 stepped side by side (explainer.model.strip_steps): V1's strips against the CPU
simulator running kernels/02b_strip.cu itself (extern __shared__ sized as the launch sizes it,
2*T*K floats) and both kernels' steps against a direct loop written here; the simulator's rule for
dynamic shared memory (explainer.sim.dynamic): refused input, and a strip kernel overflowing the
default two windows."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from explainer.model import LaunchError
from explainer.model import strip_steps as ss
from explainer.model.launch import PAD
from explainer.sim import SimError, check_kernel
from explainer.sim.dynamic import DynamicShared
from explainer.gpu import KERNELS_DIR

LAUNCHES = [(5, 7, 19, 4), (1, 1, 1, 2), (9, 3, 8, 4), (4, 6, 13, 8), (17, 5, 33, 4)]
STRIP_SRC = (KERNELS_DIR / "02b_strip.cu").read_text(encoding="utf-8")


def _loop_v1(M, N, K, T, bx, by):
    """Kernel 02b's load loop, one thread at a time: the strips after it (-2: never written)."""
    As = np.full((T, K), -2)
    Bs = np.full((K, T), -2)
    for t in range(-(-K // T)):
        for ty in range(T):
            for tx in range(T):
                row, col = by * T + ty, bx * T + tx
                a_col, b_row = t * T + tx, t * T + ty
                if a_col < K:
                    As[ty, a_col] = row * K + a_col if row < M else PAD
                if b_row < K:
                    Bs[b_row, tx] = b_row * N + col if col < N else PAD
    return As, Bs


def _loop_v2(M, N, K, T, bx, by, t):
    """Kernel 03's window in phase t."""
    As = np.full((T, T), -2)
    Bs = np.full((T, T), -2)
    for ty in range(T):
        for tx in range(T):
            row, col = by * T + ty, bx * T + tx
            a_col, b_row = t * T + tx, t * T + ty
            As[ty, tx] = row * K + a_col if row < M and a_col < K else PAD
            Bs[ty, tx] = b_row * N + col if b_row < K and col < N else PAD
    return As, Bs


@pytest.mark.parametrize("M,N,K,T", LAUNCHES)
def test_v1_strips_are_what_the_simulated_kernel_stores(M, N, K, T):
    rep = check_kernel(STRIP_SRC, [(M, N, K, T)], dynamic_shared="2*T*K")
    assert rep.passed, rep.lines()
    run = rep.launches[0]
    sh = run.trace.shared
    gx, gy = run.launch.grid
    for by in range(gy):
        for bx in range(gx):
            want = ss.strip_sources(M, N, K, T, (bx, by))
            got_a, got_b = np.full((T, K), -2), np.full((K, T), -2)
            ph_a, ph_b = np.full((T, K), -1), np.full((K, T), -1)
            mine = sh["block"] == by * gx + bx
            for cell, idx, matrix, phase in zip(sh["cell"][mine], sh["index"][mine], sh["matrix"][mine], sh["phase"][mine]):
                src = idx if matrix in (1, 2) else PAD
                if cell < T * K:
                    got_a[cell // K, cell % K], ph_a[cell // K, cell % K] = src, phase
                else:
                    c = cell - T * K
                    got_b[c // T, c % T], ph_b[c // T, c % T] = src, phase
            assert np.array_equal(got_a, want["a"]) and np.array_equal(got_b, want["b"]), (bx, by)
            assert np.array_equal(ph_a, want["t_a"]) and np.array_equal(ph_b, want["t_b"]), (bx, by)


@pytest.mark.parametrize("M,N,K,T", LAUNCHES)
def test_every_step_of_both_kernels_against_a_direct_loop(M, N, K, T):
    gx, gy = -(-N // T), -(-M // T)
    P = -(-K // T)
    for bx, by in {(0, 0), (gx - 1, gy - 1), (gx // 2, 0)}:
        for tx, ty in {(0, 0), (T - 1, T - 1), (T // 2, 0)}:
            d = ss.side_by_side(M, N, K, T, (bx, by), (tx, ty))
            kinds = [s["kind"] for s in d["steps"]]
            assert kinds == ["index"] + ["loop"] * P + ["compute", "store"]
            v1_a, v1_b = _loop_v1(M, N, K, T, bx, by)
            loads = 0
            for t in range(P):
                s = d["steps"][1 + t]
                w_a, w_b = _loop_v2(M, N, K, T, bx, by, t)
                assert np.array_equal(s["v2"]["as"], w_a) and np.array_equal(s["v2"]["bs"], w_b)
                filled = slice(0, min(K, (t + 1) * T))
                assert np.array_equal(s["v1"]["as"][:, filled], v1_a[:, filled])
                assert (s["v1"]["as"][:, filled.stop:] == ss.EMPTY).all()
                assert np.array_equal(s["v1"]["bs"][filled], v1_b[filled])
                # the same global elements reach both kernels' shared memory in this step
                new_a = set(v1_a[:, t * T:(t + 1) * T].ravel()) - {PAD}
                new_b = set(v1_b[t * T:(t + 1) * T].ravel()) - {PAD}
                assert new_a == set(w_a.ravel()) - {PAD} and new_b == set(w_b.ravel()) - {PAD}
                loads += len(new_a) + len(new_b)
                assert s["loads"] == loads
                assert s["v2"]["barriers"] == 2 * (t + 1) and s["v1"]["barriers"] == 0
                assert s["v2"]["fma"] == (t + 1) * T and s["v1"]["fma"] == 0
            final = d["steps"][-2]["v1"]
            assert np.array_equal(final["as"], v1_a) and np.array_equal(final["bs"], v1_b)
            assert final["barriers"] == 1 and final["fma"] == K
            rows_in, cols_in = min(T, M - by * T), min(T, N - bx * T)
            assert loads == (rows_in + cols_in) * K  # each element of the block's strips once
            assert d["v1_bytes"] == 8 * T * K and d["v2_bytes"] == 8 * T * T
            assert d["steps"][-1]["stores"] == (by * T + ty < M and bx * T + tx < N)


def test_a_launch_the_view_cannot_draw_says_so():
    with pytest.raises(LaunchError, match="outside the"):
        ss.side_by_side(5, 7, 9, 4, (2, 0))
    with pytest.raises(LaunchError, match="thread"):
        ss.side_by_side(5, 7, 9, 4, (0, 0), (4, 0))
    with pytest.raises(LaunchError, match=str(ss.MAX_DRAWN_K)):
        ss.side_by_side(5, 7, ss.MAX_DRAWN_K + 1, 4)


def test_the_strip_kernel_overflows_two_windows_and_fits_its_strips():
    """With the default rule (two T x T windows) kernel 02b writes past its array once K > T; with
    the launch's own rule it is clean. At K <= T the two rules give it room enough."""
    over = check_kernel(STRIP_SRC, [(5, 7, 9, 4)])
    assert not over.passed and any("outside its array" in line for line in over.lines())
    assert check_kernel(STRIP_SRC, [(5, 7, 4, 4)]).passed
    assert check_kernel(STRIP_SRC, [(5, 7, 9, 4)], dynamic_shared="2*T*K").passed
    tiled_dyn = (KERNELS_DIR / "04_tiled_dynamic.cu").read_text(encoding="utf-8")
    assert check_kernel(tiled_dyn, [(5, 7, 9, 4)]).passed


@pytest.mark.parametrize("text", ["", "2*T*Q", "__import__('os')", "2.5*T", "T**2", "True", "f(T)", "T if K else M",
                                  "x" * 70, "-T*K"])
def test_a_bad_rule_is_one_line(text):
    with pytest.raises(SimError) as e:
        DynamicShared.parse(text).floats(5, 7, 9, 4)
    assert "\n" not in str(e.value)


def test_the_rule_is_arithmetic_in_the_launch():
    r = DynamicShared.parse("2*T*K + (M - N) // 2 % 3")
    assert r.floats(9, 4, 7, 3) == 2 * 3 * 7 + (9 - 4) // 2 % 3
    assert DynamicShared.parse(None).floats(1, 1, 1, 8) == 128
    with pytest.raises(SimError, match="no architecture"):
        DynamicShared.parse("2*T*K").floats(1, 1, 10**6, 32)
    with pytest.raises(SimError, match="divides by zero"):
        DynamicShared.parse("K // (T - 4)").floats(1, 1, 1, 4)


def test_the_cli_takes_the_rule_and_refuses_a_bad_one():
    run = [sys.executable, "-m", "explainer.app.cli", "check-kernel", str(KERNELS_DIR / "02b_strip.cu"),
           "--tile", "4", "--M", "5", "--N", "7", "--K", "19"]
    ok = subprocess.run(run + ["--dynamic-shared", "2*T*K"], capture_output=True, text=True)
    assert ok.returncode == 0 and "PASS" in ok.stdout
    bad = subprocess.run(run + ["--dynamic-shared", "open('x')"], capture_output=True, text=True)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
