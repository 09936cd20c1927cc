"""Kernel 15 (tensor cores, mma.sync m16n8k8 TF32) on a real GPU (marked ``gpu``; skipped
cleanly without one or below compute capability 8.0): its own trace (-DEXPLAINER_TRACE: what
every lane's fragment registers hold) equal to explainer.model.mma's prediction, element by
element; exact on small integers (exactly representable in TF32); on odd shapes with C poisoned
by NaN within the TF32 bound of float64 and, sharper, equal to the TF32-rounded product up to
float32 accumulation, so that a kernel computing anything else fails."""

from __future__ import annotations

import numpy as np
import pytest

from explainer import gpu
from explainer.model import mma

pytestmark = pytest.mark.gpu

_STATUS = gpu.status()
if not _STATUS.available:
    pytest.skip(f"needs a CUDA GPU: {_STATUS.reason}", allow_module_level=True)
_INFO = gpu.device_info()
if tuple(int(x) for x in str(getattr(_INFO, "compute_capability", "9.0")).split(".")) < (8, 0):
    pytest.skip("mma.sync TF32 needs compute capability 8.0", allow_module_level=True)

NAME = mma.KERNEL.name
ROUNDING = mma.rounding(getattr(_INFO, "compute_capability", "9.0"))  # what tf32_bits does here
NAMES = list(mma.KERNELS)  # kernel 15 and the staged kernel 16
ODD = [(1, 1, 1), (35, 79, 19), (130, 70, 41), (1000, 300, 77), (257, 511, 1023), (300, 260, 2048)]


def _trace_shapes(k):
    """Odd, whole tiles, and enough phases to wrap the staged kernel's buffers twice."""
    return [(35, 79, 19), (k.BM, k.BN, k.BK), (2 * k.BM + 2, k.BN + 3, 7 * k.BK + 3)]


@pytest.mark.parametrize("name, M, N, K", [(n, *s) for n in NAMES for s in _trace_shapes(mma.KERNELS[n])])
def test_trace_matches_the_model(name, M, N, K):
    tr = gpu.trace(name, M, N, K, seed=M * 7 + N)
    assert isinstance(tr, gpu.KernelTrace), tr
    assert tr.all_written and tr.rel_error < gpu.verify.TF32_TOL
    want = mma.predict_trace(M, N, K, mma.KERNELS[name])
    np.testing.assert_array_equal(tr.a, want.a, err_msg=f"{M}x{N}x{K} A fragments")
    np.testing.assert_array_equal(tr.b, want.b, err_msg=f"{M}x{N}x{K} B fragments")
    np.testing.assert_array_equal(tr.c, want.c, err_msg=f"{M}x{N}x{K} C stores")


@pytest.mark.parametrize("name", NAMES)
def test_exact_on_small_integers(name):
    rng = np.random.default_rng(7)
    A = rng.integers(-4, 5, size=(137, 121)).astype(np.float32)
    B = rng.integers(-4, 5, size=(121, 145)).astype(np.float32)
    C = gpu.matmul(name, A, B)
    assert isinstance(C, np.ndarray), C
    np.testing.assert_array_equal(C, A.astype(np.float64) @ B.astype(np.float64))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("M, N, K", ODD)
def test_odd_shapes_within_tf32_and_equal_to_the_tf32_product(name, M, N, K):
    rng = np.random.default_rng(M + N + K)
    A = rng.uniform(-1, 1, (M, K)).astype(np.float32)
    B = rng.uniform(-1, 1, (K, N)).astype(np.float32)
    C = gpu.matmul(name, A, B)  # C poisoned with NaN before the launch
    assert isinstance(C, np.ndarray), C
    assert np.isfinite(C).all(), f"{np.count_nonzero(~np.isfinite(C))} elements unwritten"
    exact = A.astype(np.float64) @ B.astype(np.float64)
    assert np.all(np.abs(C - exact) <= mma.error_bound(A, B)), "outside the TF32 error bound"
    tf = mma.tf32(A, ROUNDING).astype(np.float64) @ mma.tf32(B, ROUNDING).astype(np.float64)
    accum = (K * 2.0 ** -23) * (np.abs(A).astype(np.float64) @ np.abs(B).astype(np.float64))
    assert np.all(np.abs(C - tf) <= accum + 1e-30), "not the product of the TF32-rounded inputs"


@pytest.mark.parametrize("name", NAMES)
def test_rounding_is_the_devices_to_the_last_bit(name):
    """Inputs whose cut-off bits are exactly half (ties), more than half, and ties with an odd
    kept bit, times an identity-like B: C is A as the kernel rounded it, exactly; each of
    truncation, ties away from zero and ties to even gives a different C."""
    one = np.float32(1)
    cases = np.array([1 + 2.0 ** -11, -(1 + 2.0 ** -11), 1 + 3 * 2.0 ** -12, 1 + 2.0 ** -10 + 2.0 ** -11,
                      3 + 3 * 2.0 ** -10, 0.5 + 2.0 ** -12], dtype=np.float32)
    K = 40
    A = np.resize(cases, (37, K)).astype(np.float32)
    B = np.zeros((K, 29), dtype=np.float32)
    B[np.arange(29), np.arange(29)] = one  # C = A's first 29 columns, rounded
    C = gpu.matmul(name, A, B)
    assert isinstance(C, np.ndarray), C
    want = {r: mma.tf32(A, r)[:, :29] for r in ("truncate", "rna", "rne")}
    assert len({w.tobytes() for w in want.values()}) == 3  # the cases tell the three apart
    np.testing.assert_array_equal(C, want[ROUNDING], err_msg=f"not {ROUNDING} on this device")


def test_check_uses_the_tf32_tolerance_and_catches_float32_claims():
    res = gpu.check(NAME, 300, 200, 500, seed=3)
    assert isinstance(res, gpu.CheckResult), res
    assert res.passed and res.tol == gpu.verify.TF32_TOL
    assert 1e-5 < res.rel_error < gpu.verify.TF32_TOL  # TF32: clearly coarser than float32
    strict = gpu.check(NAME, 300, 200, 500, seed=3, tol=1e-5)
    assert not strict.passed


@pytest.mark.parametrize("name", NAMES)
def test_kernel_info_no_spills(name):
    k = mma.KERNELS[name]
    i = gpu.kernel_info(name)
    assert isinstance(i, gpu.KernelInfo), i
    assert i.local_bytes == 0 and i.blocks_per_sm >= 1, i
    assert (i.dynamic_shared_bytes if k.dynamic else i.static_shared_bytes) == k.shared_bytes
