"""Kernel 03b (the tiled kernel with a TILE_X x TILE_Y block) on a real GPU (marked ``gpu``;
skipped cleanly without one): compiled with cupy.RawModule and kernels/ on the include path,
launched on blockDim (TILE_X, TILE_Y), C poisoned with NaN first, against numpy float64 on odd
non-symmetric shapes; then through explainer.gpu (gpu.check) by name; and its trace build records
exactly the copies explainer.model.rect predicts (which element lands in which cell of As / Bs in
each phase, which thread stores which element of C)."""

from __future__ import annotations

import numpy as np
import pytest

from explainer import gpu
from explainer.model import rect

pytestmark = pytest.mark.gpu

_STATUS = gpu.status()
if not _STATUS.available:
    pytest.skip(f"needs a CUDA GPU: {_STATUS.reason}", allow_module_level=True)

import cupy as cp  # noqa: E402  (after the skip: CuPy is there when a GPU is)

SHAPES = [(35, 79, 19), (1, 1, 1), (17, 5, 33), (64, 48, 100), (3, 130, 7), (129, 33, 65)]


@pytest.fixture(scope="module")
def module():
    src = (gpu.KERNELS_DIR / "03b_tiled_rect.cu").read_text()
    mod = cp.RawModule(code=src, options=("-std=c++17", f"-I{gpu.KERNELS_DIR}"),
                       name_expressions=[r.expression for r in rect.TILES])
    mod.compile()
    return mod


def _inputs(M, N, K, seed):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((M, K)).astype(np.float32)  # non-symmetric: A is not B's transpose
    B = (rng.standard_normal((K, N)) + 0.5).astype(np.float32)
    return A, B


@pytest.mark.parametrize("r", rect.TILES, ids=[r.name for r in rect.TILES])
@pytest.mark.parametrize("M, N, K", SHAPES)
def test_rect_matches_numpy(module, M, N, K, r):
    A, B = _inputs(M, N, K, M * 10007 + N * 101 + K + r.TX)
    dA, dB = cp.asarray(A), cp.asarray(B)
    dC = cp.full((M, N), cp.nan, dtype=cp.float32)  # poisoned: an unwritten element stays NaN
    kern = module.get_function(r.expression)
    gx, gy = r.grid(M, N)
    assert (gx, gy) == (-(-N // r.TX), -(-M // r.TY))
    kern((gx, gy, 1), (r.TX, r.TY, 1), (dA, dB, dC, np.int32(M), np.int32(N), np.int32(K)))
    cp.cuda.Device().synchronize()
    C = cp.asnumpy(dC)
    assert not np.isnan(C).any(), f"{M}x{N}x{K} {r.name}: {int(np.isnan(C).sum())} elements unwritten"
    ref = A.astype(np.float64) @ B.astype(np.float64)
    rel = np.abs(C - ref).max() / max(np.abs(ref).max(), 1e-30)
    assert rel < 1e-5, f"{M}x{N}x{K} {r.name}: rel. error {rel:.2e}"
    assert module.get_function(r.expression).attributes["shared_size_bytes"] == r.shared_bytes


@pytest.mark.parametrize("name", list(rect.BY_NAME))
def test_through_explainer_gpu(name):
    for M, N, K in SHAPES:
        res = gpu.check(name, M, N, K, seed=M + N + K)
        assert isinstance(res, gpu.CheckResult), res
        assert res.all_written and res.rel_error < 1e-5, (name, M, N, K, res)


@pytest.mark.parametrize("name", ["tiled_rect_4x2", "tiled_rect_32x8", "tiled_rect_8x32"])
@pytest.mark.parametrize("M, N, K", [(35, 79, 19), (9, 5, 13)])
def test_the_trace_is_the_models(name, M, N, K):
    r = rect.BY_NAME[name]
    tr = gpu.trace(name, M, N, K)
    assert not isinstance(tr, gpu.GpuStatus), tr
    want = r.predict_trace(M, N, K)
    for key in ("a", "b", "c"):
        got = getattr(tr, key)
        assert got.shape == want[key].shape, (key, got.shape, want[key].shape)
        assert np.array_equal(got, want[key]), (key, np.argwhere(got != want[key])[:5])
