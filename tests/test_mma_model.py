"""The tensor-core model (explainer/model/mma.py): mma.sync m16n8k8 fragments as the PTX ISA
fixes them, kernel 15's geometry and predicted trace, and TF32 rounding. CPU only; the GPU test
(tests/test_gpu_mma.py) compares the prediction with the kernel's own record."""

from __future__ import annotations

import re

import numpy as np
import pytest

from explainer.model import mma


@pytest.mark.parametrize("which", ["a", "b", "c"])
def test_each_element_of_a_tile_is_held_by_exactly_one_register(which):
    f = mma.fragment(which)
    rows, cols = mma.tile_shape(which)
    assert f.shape == (32, mma.REGS[which], 2)
    flat = f[:, :, 0] * cols + f[:, :, 1]
    assert sorted(flat.ravel().tolist()) == list(range(rows * cols))


def test_fragments_follow_the_ptx_isa_tables():
    """Lanes read off the PTX ISA's m16n8k8 .tf32 figures (groupID = lane >> 2,
    threadID_in_group = lane % 4)."""
    a, b, c = mma.fragment("a"), mma.fragment("b"), mma.fragment("c")
    assert a[0].tolist() == [[0, 0], [8, 0], [0, 4], [8, 4]]
    assert a[5].tolist() == [[1, 1], [9, 1], [1, 5], [9, 5]]
    assert a[31].tolist() == [[7, 3], [15, 3], [7, 7], [15, 7]]
    assert b[0].tolist() == [[0, 0], [4, 0]]
    assert b[6].tolist() == [[2, 1], [6, 1]]
    assert c[0].tolist() == [[0, 0], [0, 1], [8, 0], [8, 1]]
    assert c[7].tolist() == [[1, 6], [1, 7], [9, 6], [9, 7]]


def test_c_owner_inverts_the_c_fragment():
    f = mma.fragment("c")
    for lane in range(32):
        for reg in range(4):
            r, col = f[lane, reg]
            assert mma.c_owner(int(r), int(col)) == (lane, reg)
    with pytest.raises(ValueError):
        mma.c_owner(16, 0)


def test_fragment_rejects_an_unknown_operand():
    with pytest.raises(ValueError, match="'a', 'b', 'c'"):
        mma.fragment("d")


def test_tf32_rounds_to_ten_mantissa_bits_ties_away_from_zero():
    ulp = 2.0 ** -10
    x = np.array([1.0, 1 + ulp / 2, 1 + ulp / 4, 1 + 3 * ulp / 4, -(1 + ulp / 2), 3.0, 0.0],
                 dtype=np.float32)
    want = np.array([1.0, 1 + ulp, 1.0, 1 + ulp, -(1 + ulp), 3.0, 0.0], dtype=np.float32)
    np.testing.assert_array_equal(mma.tf32(x), want)
    r = np.random.default_rng(0).uniform(-1, 1, 1000).astype(np.float32)
    t = mma.tf32(r)
    assert np.all(np.abs(t - r) <= np.abs(r) * 2.0 ** -11)  # half a TF32 ulp
    assert np.all((t.view(np.uint32) & 0x1FFF) == 0)  # the 13 low mantissa bits are gone


def test_kernel_geometry():
    k = mma.KERNEL
    assert (k.warps, k.threads, k.miter, k.niter, k.ksteps) == (4, 128, 2, 4, 2)
    assert k.grid(65, 130) == (3, 2) and k.phases(17) == 2
    assert k.shared_bytes == 4 * (64 * 20 + 16 * 72)
    assert [k.warp_origin(w) for w in range(4)] == [(0, 0), (0, 32), (32, 0), (32, 32)]


def test_staged_kernel_geometry():
    k = mma.STAGED
    assert (k.warps, k.threads, k.miter, k.niter, k.ksteps, k.stages) == (8, 256, 4, 8, 4, 3)
    assert k.shared_bytes == 3 * 4 * (128 * 36 + 32 * 264) and k.dynamic and k.barriers_per_phase == 1
    assert mma.KERNEL.barriers_per_phase == 2 and not mma.KERNEL.dynamic
    assert [k.warp_origin(w) for w in (0, 3, 4, 7)] == [(0, 0), (0, 192), (64, 0), (64, 192)]
    # the kernel file's own geometry is the model's
    from explainer import resources

    text = (resources.kernels_dir() / k.file).read_text()
    got = {n: int(v) for n, v in re.findall(r"#define SG_(BM|BN|BK|WM|WN|STAGES) (\d+)", text)}
    assert got == {"BM": k.BM, "BN": k.BN, "BK": k.BK, "WM": k.WM, "WN": k.WN, "STAGES": k.stages}
    assert f"{k.shared_bytes} bytes" in text  # the header's Launch figure


@pytest.mark.parametrize("kern", list(mma.KERNELS.values()), ids=lambda k: k.name)
@pytest.mark.parametrize("M, N, K", [(35, 79, 19), (64, 64, 16), (130, 70, 41), (300, 260, 77)])
def test_predicted_trace_covers_every_element_as_often_as_the_tiling_says(kern, M, N, K):
    k = kern
    tr = mma.predict_trace(M, N, K, k)
    shapes = k.trace_shapes(M, N, K)
    assert tr.a.shape == shapes["a"] and tr.b.shape == shapes["b"] and tr.c.shape == shapes["c"]
    gx, gy = k.grid(M, N)
    # each A element is read by every block along N and, in a block, by the warps along N
    counts = np.bincount(tr.a[tr.a >= 0], minlength=M * K)
    assert np.all(counts == gx * (k.BN // k.WN))
    counts = np.bincount(tr.b[tr.b >= 0], minlength=K * N)
    assert np.all(counts == gy * (k.BM // k.WM))
    # every C element is stored exactly once
    assert sorted(tr.c[tr.c >= 0].tolist()) == list(range(M * N))
    assert set(np.unique(tr.c[tr.c < 0])) <= {mma.NEVER}


def test_predicted_trace_replays_the_product():
    """The registers the model names, multiplied as the mma does (fragment by fragment), give
    A @ B: the layout is a real product, not just a permutation."""
    rng = np.random.default_rng(3)
    M, N, K = 37, 21, 27
    A = rng.integers(-4, 5, (M, K)).astype(np.float64)
    B = rng.integers(-4, 5, (K, N)).astype(np.float64)
    tr = mma.predict_trace(M, N, K)
    Af = np.where(tr.a >= 0, A.ravel()[np.maximum(tr.a, 0)], 0.0)
    Bf = np.where(tr.b >= 0, B.ravel()[np.maximum(tr.b, 0)], 0.0)
    fa, fb, fc = mma.fragment("a"), mma.fragment("b"), mma.fragment("c")
    gy, gx, P, S, W, MI = tr.a.shape[:6]
    NI = tr.b.shape[5]
    C = np.full(M * N, np.nan)
    for by in range(gy):
        for bx in range(gx):
            for w in range(W):
                for mi in range(MI):
                    for ni in range(NI):
                        acc = np.zeros((16, 8))
                        for p in range(P):
                            for s in range(S):
                                a = np.zeros((16, 8))
                                b = np.zeros((8, 8))
                                a[fa[..., 0], fa[..., 1]] = Af[by, bx, p, s, w, mi]
                                b[fb[..., 0], fb[..., 1]] = Bf[by, bx, p, s, w, ni]
                                acc += a @ b
                        dst = tr.c[by, bx, w, mi, ni]
                        vals = acc[fc[..., 0], fc[..., 1]]
                        C[dst[dst >= 0]] = vals[dst >= 0]
    np.testing.assert_array_equal(C.reshape(M, N), A @ B)


def test_error_bound_holds_for_tf32_products():
    rng = np.random.default_rng(1)
    A = rng.uniform(-1, 1, (50, 300)).astype(np.float32)
    B = rng.uniform(-1, 1, (300, 40)).astype(np.float32)
    exact = A.astype(np.float64) @ B.astype(np.float64)
    emulated = mma.tf32(A).astype(np.float64) @ mma.tf32(B).astype(np.float64)
    assert np.all(np.abs(emulated - exact) <= mma.error_bound(A, B))
    assert np.max(np.abs(emulated - exact)) > 1e-5  # TF32 really is coarser than float32


@pytest.mark.parametrize("K", [1, 16, 32, 33, 96, 192, 1000])
def test_pipeline_never_overwrites_a_buffer_still_needed(K):
    """Kernel 16's pipeline as the model steps it: each phase is issued once, into buffer
    phase % stages, and only into a free buffer whose last fragment load lies behind a barrier;
    fragments of a phase are loaded only from its buffer after this thread's wait and a barrier;
    every phase runs its k-steps in order, once; everything is waited for at the end."""
    k = mma.STAGED
    steps = mma.pipeline(K)
    P, S, KS = k.phases(K), k.stages, k.ksteps
    issued, last_load, waited, ran = [], {}, set(), {ph: [] for ph in range(P)}
    barrier_since = {}  # buffer -> a barrier came after its last fragment load
    for i, s in enumerate(steps):
        before = steps[i - 1] if i else None
        loads = []  # (phase, buffer) whose fragments this step loads
        if s.line == "barrier" and s.phase + 1 < P:
            loads.append(s.phase + 1)  # the next phase's k-step 0 (the prologue: phase 0)
        if s.line == "compute" and s.ksteps and s.ksteps[0] == 0 and KS > 1:
            loads.append(s.phase)  # k-steps 1 .. KS - 1, each during the one before
        for ph in loads:
            b = ph % S
            assert s.holds[b] == ph and s.state[b] == mma.BUF_READ, (i, ph, s.state)
            assert ph in waited and ph not in s.in_flight, (i, ph)
            last_load[b], barrier_since[b] = i, False
        if s.line == "wait":
            waited.update(ph for ph in range(P) if ph not in s.in_flight and ph in issued)
        if s.line == "barrier":
            barrier_since = {b: True for b in barrier_since}
        if s.line == "issue":
            new = [b for b in range(S) if s.holds[b] >= 0 and (before is None or s.holds[b] != before.holds[b])]
            for b in new:
                assert s.holds[b] % S == b and s.state[b] == mma.BUF_IN_FLIGHT
                assert before is None or before.state[b] == mma.BUF_FREE, (i, b, before.state)
                assert barrier_since.get(b, True), f"step {i}: buffer {b} refilled before a barrier"
                issued.append(s.holds[b])
        if s.line == "compute":
            ran[s.phase] += list(s.ksteps)
    assert issued == list(range(P))
    assert ran == {ph: list(range(KS)) for ph in range(P)}
    assert [s.phase for s in steps if s.line == "compute"] == sorted(s.phase for s in steps if s.line == "compute")
    assert steps[-1].line == "drain" and steps[-1].in_flight == ()
    with pytest.raises(ValueError):
        mma.pipeline(0)


@pytest.mark.parametrize("kern", [mma.KERNEL, mma.STAGED], ids=lambda k: k.name)
def test_padding_makes_every_fragment_load_conflict_free(kern):
    for which, regs in (("a", 4), ("b", 2)):
        padded, plain = mma.fragment_banks(which, kern), mma.fragment_banks(which, kern, pad=0)
        assert len(padded) == len(plain) == regs
        for fb in padded:
            assert fb.degree == 1 and len(set(fb.banks)) == 32 and len(set(fb.words)) == 32
        row_plain = kern.BK if which == "a" else kern.BN
        f0 = mma.fragment(which)[:, 0]
        hit = {}  # bank -> words, counted here from the fragment table
        for r, c in f0.tolist():
            hit.setdefault((r * row_plain + c) % 32, set()).add(r * row_plain + c)
        for fb in plain:  # rows a multiple of 16 floats long: several lanes per bank
            assert fb.degree == max(len(w) for w in hit.values()) > 1 and len(set(fb.banks)) == len(hit)
        # the words are the fragment table's elements in the padded layout
        row_len = (kern.BK + kern.PAD_A) if which == "a" else (kern.BN + kern.PAD_B)
        f = mma.fragment(which)
        assert padded[0].words == tuple((f[:, 0, 0] * row_len + f[:, 0, 1]).tolist())
    with pytest.raises(ValueError, match="'a' and 'b'"):
        mma.fragment_banks("c")


def test_page_bank_rows_are_the_models():
    from explainer.pages import tensor

    rows = tensor.fragment_bank_rows()
    assert len(rows) == 2 * 4 + 2 * 2
    assert all(r[4] == "none" for r in rows if "the kernel" in r[1])
    assert all(r[4].endswith("-way") for r in rows if "unpadded" in r[1])
    assert {r[4] for r in rows if "unpadded" in r[1] and r[0].startswith("b")} == {"4-way"}  # rows k of Bs


def test_rounding_by_compute_capability():
    assert [mma.rounding(c) for c in ("8.0", "8.6", 8.9, "9.0", (9, 0), "10.0")] == \
        ["rna", "rna", "rna", "rne", "rne", "rne"]
    tie, odd_tie = np.float32(1 + 2.0 ** -11), np.float32(1 + 2.0 ** -10 + 2.0 ** -11)
    assert mma.tf32(tie, "rna") == np.float32(1 + 2.0 ** -10) and mma.tf32(tie, "rne") == 1
    assert mma.tf32(odd_tie, "rna") == mma.tf32(odd_tie, "rne") == np.float32(1 + 2.0 ** -9)
    assert mma.tf32(odd_tie, "truncate") == np.float32(1 + 2.0 ** -10)
