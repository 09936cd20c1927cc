"""A student's kernel on the real GPU after the simulator passed it (marked ``gpu``; skipped
cleanly without one): the device result matches numpy float64 on odd, non-symmetric shapes with C
poisoned by NaN, and a kernel the simulator rejects never reaches the device."""

from __future__ import annotations

import pytest

from explainer import gpu
from explainer.gpu.student import StudentKernelRefused, StudentRun, run_student_kernel
from explainer.resources import kernels_dir

pytestmark = pytest.mark.gpu

_STATUS = gpu.status()
if not _STATUS.available:
    pytest.skip(f"needs a CUDA GPU: {_STATUS.reason}", allow_module_level=True)

SHAPES = [(1, 1, 1), (35, 79, 19), (17, 5, 33), (300, 100, 77)]

# C++ linkage (a mangled name) and a template with a default: both compiled through name expressions
NAIVE = """
__global__ void student_naive(const float* A, const float* B, float* C, int M, int N, int K)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N) return;
    float s = 0.0f;
    for (int k = 0; k < K; ++k) s += A[row * K + k] * B[k * N + col];
    C[row * N + col] = s;
}
"""


@pytest.mark.parametrize("name", ["01", "03", "04", "05"])
@pytest.mark.parametrize("tile", [4, 16])
def test_a_passing_rung_runs_and_matches_numpy(name, tile):
    path = next(kernels_dir().glob(f"{name}_*.cu"))
    for M, N, K in SHAPES:
        r = run_student_kernel(path.read_text(), M, N, K, tile, path=path)
        assert isinstance(r, StudentRun), r
        assert r.all_written and r.rel_error < 1e-5 and r.passed, (name, tile, M, N, K, r)
        assert r.simulated  # the simulator ran first


def test_a_hand_written_kernel_with_cpp_linkage():
    for M, N, K in SHAPES:
        r = run_student_kernel(NAIVE, M, N, K, 8)
        assert isinstance(r, StudentRun) and r.passed, r


def test_a_rejected_kernel_never_reaches_the_device():
    path = next(kernels_dir().glob("06_*.cu"))
    with pytest.raises(StudentKernelRefused) as e:
        run_student_kernel(path.read_text(), 35, 79, 19, 4, path=path)
    assert any(line.startswith("out_of_bounds") for line in e.value.lines)


def test_a_passing_kernel_is_timed_beside_its_rung_and_cublas():
    """time_it: the student's kernel (here kernel 03's source) is timed with CUDA events, beside the
    rung doing the same work and cuBLAS on the same inputs; the same code is about as fast."""
    path = kernels_dir() / "03_tiled.cu"
    r = run_student_kernel(path.read_text(), 1000, 600, 777, 16, path=path, time_it=True)
    assert isinstance(r, StudentRun) and r.passed, r
    assert r.rung == "tiled" and r.device == _STATUS.device
    assert r.ms > 0 and r.rung_ms > 0 and r.cublas_ms > 0
    assert 0.5 < r.ms / r.rung_ms < 2.0, (r.ms, r.rung_ms)  # the same source, the same geometry
    assert r.cublas_ms < r.rung_ms  # cuBLAS beats the tiled rung on any GPU this runs on
    assert run_student_kernel(NAIVE, 300, 100, 77, 8, time_it=True).rung == "naive"


def test_the_exercise_shows_the_gpu_run_and_the_times():
    from explainer.views.kernel_exercise import KernelExercise

    k = KernelExercise(("tiled",))
    k.editor.value = (kernels_dir() / "03_tiled.cu").read_text()
    assert k.check()["passed"] is True
    assert "C matches numpy" in k.result.value and "cuBLAS" in k.result.value and _STATUS.device in k.result.value
