"""Kernel 17 (Hopper: TMA, mbarrier, wgmma TF32) on a real GPU (marked ``gpu``; skipped cleanly
without one, and below or above compute capability 9.0, where it is refused in one line).

On odd shapes (M, and every size not a multiple of the block tile; K and N multiples of 4 as the
TMA needs) with C poisoned by NaN: every element written, within the TF32 bound of the float64
product, and, sharper, equal to the product of the inputs as the TMA delivers them (rounded to
TF32, to nearest, ties to even) up to float32 accumulation, so a kernel computing anything else
(a wrong swizzle, a lost stage, a phase read twice, floats left unrounded) fails."""

from __future__ import annotations

import numpy as np
import pytest

from explainer import gpu
from explainer.model import hopper, mma

pytestmark = pytest.mark.gpu

_STATUS = gpu.status()
if not _STATUS.available:
    pytest.skip(f"needs a CUDA GPU: {_STATUS.reason}", allow_module_level=True)
_CC = str(getattr(gpu.device_info(), "compute_capability", "?"))
NAME = hopper.KERNEL.name
K17 = hopper.KERNEL
ODD = [(1, 4, 4), (35, 76, 20), (K17.BM, K17.BN, K17.BK), (K17.BM + 1, K17.BN + 4, K17.BK + 4),
       (777, 1000, 332), (1000, 300, 4 * K17.BK * K17.stages + 12), (513, 260, 4100)]


def test_refused_in_one_line_off_hopper_or_on_unaligned_rows():
    res = gpu.check(NAME, 100, 101, 99)
    assert isinstance(res, gpu.GpuStatus) and res.kind == "refused", res
    assert "\n" not in res.reason and ("multiples of 4" in res.reason or "Hopper" in res.reason)


hopper_only = pytest.mark.skipif(_CC != "9.0", reason=f"kernel 17 needs compute capability 9.0, this GPU is {_CC}")


@hopper_only
@pytest.mark.parametrize("M, N, K", ODD)
def test_odd_shapes_are_the_product_of_the_inputs_the_tensor_cores_read(M, N, K):
    rng = np.random.default_rng(M + 7 * N + 13 * K)
    A = rng.uniform(-1, 1, (M, K)).astype(np.float32)
    B = rng.uniform(-1, 1, (K, N)).astype(np.float32)
    C = gpu.matmul(NAME, A, B)  # C poisoned with NaN before the launch
    assert isinstance(C, np.ndarray), C
    assert np.isfinite(C).all(), f"{np.count_nonzero(~np.isfinite(C))} elements unwritten"
    exact = A.astype(np.float64) @ B.astype(np.float64)
    assert np.all(np.abs(C - exact) <= mma.error_bound(A, B)), "outside the TF32 bound"
    tf = mma.tf32(A, "rne").astype(np.float64) @ mma.tf32(B, "rne").astype(np.float64)
    accum = (K * 2.0 ** -23) * (np.abs(A).astype(np.float64) @ np.abs(B).astype(np.float64))
    assert np.all(np.abs(C - tf) <= accum + 1e-30), "not the product of the TF32-rounded inputs"
    if M * N * K >= 1000:  # and not the product of truncated inputs (the TMA's rounding is on)
        cut = mma.tf32(A, "truncate").astype(np.float64) @ mma.tf32(B, "truncate").astype(np.float64)
        assert np.linalg.norm(C - tf) < 0.1 * np.linalg.norm(C - cut), "inputs truncated, not rounded"


@hopper_only
def test_exact_on_small_integers():
    rng = np.random.default_rng(5)
    M, N, K = 300, 260, 200
    A = rng.integers(-4, 5, (M, K)).astype(np.float32)
    B = rng.integers(-4, 5, (K, N)).astype(np.float32)
    C = gpu.matmul(NAME, A, B)
    assert isinstance(C, np.ndarray), C
    np.testing.assert_array_equal(C, A.astype(np.float64) @ B.astype(np.float64))


@hopper_only
def test_check_and_kernel_info():
    res = gpu.check(NAME, 600, 520, 1000, seed=3)
    assert isinstance(res, gpu.CheckResult), res
    assert res.passed and res.tol == gpu.verify.TF32_TOL and 1e-5 < res.rel_error, res
    i = gpu.kernel_info(NAME)
    assert isinstance(i, gpu.KernelInfo), i
    assert i.local_bytes == 0 and i.blocks_per_sm == 1 and i.dynamic_shared_bytes == K17.shared_bytes, i


@hopper_only
@pytest.mark.parametrize("M, N, K", [(35, 76, 20), (K17.BM, K17.BN, K17.BK),
                                     (2 * K17.BM + 2, K17.BN + 4, (2 * K17.stages + 1) * K17.BK + 4)])
def test_trace_matches_the_model(M, N, K):
    """What the TMA put in every slot of every stage (its 128-byte swizzle, its zero fill at the
    edges, the stage of each phase, wrapping the stages twice) and which element of C every
    accumulator of every consumer thread stores: the kernel's own record, element by element."""
    tr = gpu.trace(NAME, M, N, K, seed=M * 7 + N)
    assert isinstance(tr, gpu.KernelTrace), tr
    assert tr.all_written and tr.rel_error < gpu.verify.TF32_TOL
    want = K17.predict_trace(M, N, K)
    np.testing.assert_array_equal(tr.a, want["a"], err_msg=f"{M}x{N}x{K} As slots")
    np.testing.assert_array_equal(tr.b, want["b"], err_msg=f"{M}x{N}x{K} Bs slots")
    np.testing.assert_array_equal(tr.c, want["c"], err_msg=f"{M}x{N}x{K} C stores")
