"""Kernel 02b (the sliding-window write-up's V1: the block's whole strips in dynamic shared
memory) on a real GPU (marked ``gpu``; skipped cleanly without one): compiled with
cupy.RawModule and kernels/ on the include path, launched with 2*T*K*4 bytes as the launch's
dynamic shared memory, C poisoned with NaN first, against numpy float64 on odd non-symmetric
shapes; then through explainer.gpu (gpu.check), up to the largest K the device's opt-in maximum
allows (explainer.model.strip), and refused one past it."""

from __future__ import annotations

import numpy as np
import pytest

from explainer import gpu
from explainer.model import strip

pytestmark = pytest.mark.gpu

_STATUS = gpu.status()
if not _STATUS.available:
    pytest.skip(f"needs a CUDA GPU: {_STATUS.reason}", allow_module_level=True)

import cupy as cp  # noqa: E402  (after the skip: CuPy is there when a GPU is)

SHAPES = [(35, 79, 19), (1, 1, 1), (17, 5, 33), (64, 48, 100), (3, 130, 7)]
TILES = (4, 16)


@pytest.fixture(scope="module")
def module():
    src = (gpu.KERNELS_DIR / "02b_strip.cu").read_text()
    mod = cp.RawModule(code=src, options=("-std=c++17", f"-I{gpu.KERNELS_DIR}"),
                       name_expressions=[f"strip_gemm<{T}>" for T in TILES])
    mod.compile()
    return mod


def _inputs(M, N, K, seed):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((M, K)).astype(np.float32)  # non-symmetric: A is not B's transpose
    B = (rng.standard_normal((K, N)) + 0.5).astype(np.float32)
    return A, B


@pytest.mark.parametrize("T", TILES)
@pytest.mark.parametrize("M, N, K", SHAPES)
def test_strip_matches_numpy(module, M, N, K, T):
    A, B = _inputs(M, N, K, M * 10007 + N * 101 + K + T)
    dA, dB = cp.asarray(A), cp.asarray(B)
    dC = cp.full((M, N), cp.nan, dtype=cp.float32)  # poisoned: an unwritten element stays NaN
    kern = module.get_function(f"strip_gemm<{T}>")
    smem = strip.v1_shared_bytes(K, T)
    assert smem == 2 * T * K * 4
    grid = (-(-N // T), -(-M // T), 1)
    kern(grid, (T, T, 1), (dA, dB, dC, np.int32(M), np.int32(N), np.int32(K)), shared_mem=smem)
    cp.cuda.Device().synchronize()
    C = cp.asnumpy(dC)
    assert not np.isnan(C).any(), f"{M}x{N}x{K} T={T}: {int(np.isnan(C).sum())} elements unwritten"
    ref = A.astype(np.float64) @ B.astype(np.float64)
    rel = np.abs(C - ref).max() / max(np.abs(ref).max(), 1e-30)
    assert rel < 1e-5, f"{M}x{N}x{K} T={T}: rel. error {rel:.2e}"


@pytest.mark.parametrize("T", TILES)
def test_through_explainer_gpu_up_to_the_wall(T):
    """gpu.check runs kernel 02b on odd shapes, and at the largest K the device's opt-in maximum
    allows (model.strip.max_k_v1); one more K is refused, not launched."""
    from explainer.gpu.properties import device_properties

    props = device_properties()
    optin = int(props.get("sharedMemPerBlockOptin") or props["sharedMemPerBlock"])
    K = strip.max_k_v1(optin, T)
    for M, N, k in SHAPES + [(37, 21, K)]:
        res = gpu.check("strip", M, N, k, T, seed=M + N + k)
        assert isinstance(res, gpu.CheckResult), res
        assert res.all_written and res.rel_error < 1e-5, (M, N, k, T, res)
    assert not isinstance(gpu.check("strip", 37, 21, K + 1, T), gpu.CheckResult)


@pytest.mark.parametrize("M, N, K, T", [(5, 7, 19, 4), (35, 79, 19, 16), (17, 5, 33, 4), (8, 8, 16, 4)])
def test_the_kernels_own_trace_is_the_side_by_side_model(M, N, K, T):
    """The trace build of kernel 02b records, per block, loop iteration t and thread, the element it
    copied: laid out as V1's strips, it is explainer.model.strip_steps.strip_sources (what page 02's
    stepper draws), every block; and iteration t's copies are V2's window of phase t (the schedule
    of the tiled kernel), so both kernels copy the same elements in the same order."""
    from explainer.model import Launch, schedule
    from explainer.model import strip_steps as ss

    tr = gpu.trace("strip", M, N, K, T)
    gy, gx, P = tr.a.shape[:3]
    S = schedule(Launch("tiled", M, N, K, T))
    for by in range(gy):
        for bx in range(gx):
            want = ss.strip_sources(M, N, K, T, (bx, by))
            got_a = tr.a[by, bx].transpose(1, 0, 2).reshape(T, P * T)[:, :K]  # [t, ty, tx] -> [ty, t*T + tx]
            got_b = tr.b[by, bx].reshape(P * T, T)[:K]  # [t, ty, tx] -> [t*T + ty, tx]
            assert np.array_equal(got_a, want["a"]) and np.array_equal(got_b, want["b"]), (bx, by)
            v2_a = np.where(S.a_row[by, bx] >= 0, S.a_row[by, bx] * K + S.a_col[by, bx], -1)
            assert np.array_equal(tr.a[by, bx], v2_a), (bx, by)
