"""Kernel 17's model (explainer/model/hopper.py) and TF32 rounding modes, on the CPU: geometry that
matches the kernel file's constants, the shared memory the launch asks for, the one-line refusals,
and the three roundings (cvt.rna, the TMA's nearest-even, truncation) bit by bit."""

from __future__ import annotations

import re

import numpy as np
import pytest

from explainer import gpu
from explainer.model import hopper, mma

K17 = hopper.KERNEL
SRC = (gpu.KERNELS_DIR / K17.file).read_text()


def _define(name: str) -> int:
    return int(re.search(rf"#define {name} (\d+)", SRC).group(1))


def test_geometry_is_the_kernel_files():
    assert (K17.BM, K17.BN, K17.BK, K17.stages, K17.consumers) == tuple(
        _define(n) for n in ("H_BM", "H_BN", "H_BK", "H_STAGES", "H_CONSUMERS"))
    assert _define("H_B_BOX") == K17.box_b == 32  # 128 bytes: the swizzle's width
    assert K17.threads == 384 and K17.empty_arrivals == 8
    assert K17.stage_bytes == 4 * 32 * (256 + 128) == 49152
    assert K17.shared_bytes == 4 * 49152 + 1024 + 64  # stages, alignment, 8 mbarriers
    assert K17.shared_bytes <= 227 * 1024  # the H100's opt-in limit per block


@pytest.mark.parametrize("M, N, K", [(1, 4, 4), (4096, 4096, 4096), (257, 129, 33), (1000, 3000, 20)])
def test_launch_covers_c(M, N, K):
    cfg = gpu.launch_config(K17.name, M, N, K)
    gx, gy, _ = cfg.grid
    assert (gx - 1) * K17.BN < N <= gx * K17.BN and (gy - 1) * K17.BM < M <= gy * K17.BM
    assert cfg.block == (K17.threads, 1, 1) and cfg.phases * K17.BK >= K > (cfg.phases - 1) * K17.BK
    assert cfg.dynamic_shared_bytes == K17.shared_bytes


def test_refusals_are_one_line_and_say_what_runs_instead():
    limits = {"shared_per_block": 49152, "shared_per_block_optin": 232448, "max_threads_per_block": 1024}
    ok = gpu.launch_config(K17.name, 300, 200, 100)
    assert gpu.launch.refusal(ok, dict(limits, compute_capability="9.0")) is None
    ampere = gpu.launch.refusal(ok, dict(limits, compute_capability="8.0"))
    assert "Hopper" in ampere and "Kernel 16" in ampere and "\n" not in ampere
    odd = gpu.launch.refusal(gpu.launch_config(K17.name, 300, 201, 99), dict(limits, compute_capability="9.0"))
    assert "K = 99" in odd and "N = 201" in odd and "\n" not in odd
    assert K17.why_not(300, 200, 99) and not K17.why_not(301, 200, 100)  # M may be anything


def test_roundings_bit_by_bit():
    u = 2.0 ** -10  # one TF32 unit in the last place at 1.0
    x = np.float32([1 + u / 2, 1 + 1.5 * u, 1 + u / 2 + 2 ** -20, -(1 + 1.5 * u), 1 + u / 4])
    got = {r: (mma.tf32(x, r).astype(np.float64) - np.sign(x)) / u for r in ("rna", "rne", "truncate")}
    np.testing.assert_array_equal(got["rna"], [1, 2, 1, -2, 0])  # ties away from zero
    np.testing.assert_array_equal(got["rne"], [0, 2, 1, -2, 0])  # ties to the even neighbour
    np.testing.assert_array_equal(got["truncate"], [0, 1, 0, -1, 0])
    r = np.random.default_rng(0).standard_normal(10000).astype(np.float32)
    for mode in ("rna", "rne", "truncate"):
        t = mma.tf32(r, mode)
        assert np.all(t.view(np.uint32) & 0x1FFF == 0)  # 10 mantissa bits left
        assert np.all(np.abs(t - r) <= np.abs(r) * (2.0 ** -10 if mode == "truncate" else 2.0 ** -11))
    with pytest.raises(ValueError, match="rounding"):
        mma.tf32(r, "up")


def test_registered_as_a_tf32_kernel_for_sm90a():
    spec = gpu.KERNELS[K17.name]
    assert K17.name in gpu.TENSOR_KERNEL_NAMES and K17.name not in gpu.KERNEL_NAMES
    assert spec.math == "tf32" and spec.arch == "sm_90a" and not spec.takes_tile


@pytest.mark.parametrize("M, N, K", [(35, 76, 20), (300, 260, 100), (513, 132, 300)])
def test_predicted_trace_covers_the_inputs_and_c(M, N, K):
    want = K17.predict_trace(M, N, K)
    gx, gy = K17.grid(M, N)
    a, b, c = want["a"], want["b"], want["c"]
    assert a.shape == K17.trace_shapes(M, N, K)["a"] and c.shape == K17.trace_shapes(M, N, K)["c"]
    # every element of A is copied once per column of blocks, of B once per row of blocks
    np.testing.assert_array_equal(np.bincount(a[a >= 0], minlength=M * K), gx)
    np.testing.assert_array_equal(np.bincount(b[b >= 0], minlength=K * N), gy)
    # every element of C is stored exactly once
    np.testing.assert_array_equal(np.bincount(c[c >= 0], minlength=M * N), 1)
    assert (c == -2).sum() == gx * gy * K17.BM * K17.BN - M * N


def test_the_swizzle_spreads_a_fragment_read_over_banks():
    """Row r of a box sits at 128 r bytes with its 16-byte chunks XORed by r mod 8: the 8 rows
    of a wgmma core matrix (one 16-byte chunk each) fall in 8 different groups of 4 banks."""
    m, k = K17.a_slots()
    slots = np.flatnonzero((m < 8) & (k == 0))  # column 0 of rows 0..7
    banks = {(s // 4) % 8 for s in slots}  # the 16-byte group of banks each falls in
    assert len(slots) == 8 and len(banks) == 8, (slots, banks)


@pytest.mark.parametrize("K", [1, 31, 32, 33, 4 * 32, 4 * 32 + 1, 9 * 32 + 5, 1000])
def test_the_handover_never_overwrites_or_reads_early_and_parities_are_exact(K):
    S, P, C = K17.stages, K17.phases(K), K17.consumers
    steps = hopper.schedule(K)
    seen = lambda actor, line, ph: [i for i, x in enumerate(steps)  # noqa: E731
                                    if x.actor == actor and x.line == line and x.phase == ph and not x.waits]
    for ph in range(P):
        s = ph % S
        (issue,), (landed,) = seen(0, "expect_tx", ph), seen(1, "land", ph)
        assert seen(0, "load", ph) and issue < landed and steps[landed].stage == s
        for c in range(C):
            (passed,), (read,), (freed,) = (seen(2 + c, ln, ph) for ln in ("wait_full", "compute", "arrive_empty"))
            assert landed < passed < read < freed  # read only after every byte landed
            # a parity wait is right only if the barrier is exactly at the phase asked for
            assert steps[passed].full_done[s] == ph // S + 1
            assert (steps[passed].full_done[s] - 1) % 2 == (ph // S) & 1  # the kernel's (ph / S) & 1
        if ph >= S:  # refilled only after both consumers released phase ph - S
            assert max(seen(2 + c, "arrive_empty", ph - S)[0] for c in range(C)) < issue
            (ok,) = seen(0, "wait_empty", ph)
            assert steps[ok].empty_done[s] == ph // S and (ph // S - 1) % 2 == ((ph // S) & 1) ^ 1
    assert [x.line for x in steps].count("store") == C and steps[0].line == "init"
    last = steps[-1]
    assert last.full_done == last.empty_done == tuple(len(range(s, P, S)) for s in range(S))


def test_the_handover_shows_every_kind_of_wait_and_matches_the_kernel_lines():
    steps = hopper.schedule(6 * K17.BK)
    waits = {(hopper.ACTORS[x.actor], x.line) for x in steps if x.waits}
    assert waits == {("producer", "wait_empty"), ("consumer 1", "wait_full"), ("consumer 2", "wait_full")}
    assert "mbar_wait(full + 8 * s, (ph / H_STAGES) & 1)" in SRC
    assert "mbar_wait(empty + 8 * s, ((ph / H_STAGES) & 1) ^ 1)" in SRC
    markers = set(re.findall(r"// @step:(\w+)\s*$", SRC, flags=re.M))
    assert {x.line for x in steps} - {"land", "load"} <= markers and {"load_a", "load_b"} <= markers
    with pytest.raises(ValueError, match="K must be"):
        hopper.schedule(0)


def test_page_tables_come_from_the_model():
    from explainer.pages import tensor

    rows = tensor.swizzle_rows()
    assert len(rows) == 8
    for r, row in enumerate(rows):
        cells = [c[1] if isinstance(c, tuple) else c for c in row[1:]]
        assert sorted(cells) == sorted(f"{'<b>' if k == 0 else ''}k {k}–{k + 3}{'</b>' if k == 0 else ''}"
                                       for k in range(0, 32, 4))
        assert "k 0–3" in cells[r]  # columns 0-3 of row r sit in chunk r: 8 rows, 8 bank groups
    table = dict((r[0], r[1:]) for r in tensor.hopper_rows())
    n_lines = len(SRC.splitlines())
    assert f"{n_lines} lines" in table["the file"][1]
    assert f"{K17.stage_bytes:,}" in table["stages"][0] and f"{K17.empty_arrivals} arrivals" == table["empty[s]"][0]
