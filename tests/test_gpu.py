"""The real kernels on a real GPU (marked ``gpu``; skipped cleanly without one).

* every kernel and tile against numpy float64 on odd shapes, C poisoned with NaN first;
* the kernels' own trace (-DEXPLAINER_TRACE) against the model, element by element;
* the timing harness, cuBLAS with TF32 off, refusals, out-of-memory and compile errors.
"""

from __future__ import annotations

import numpy as np
import pytest

from explainer import gpu
from explainer.model import Launch, schedule

pytestmark = pytest.mark.gpu

_STATUS = gpu.status()
if not _STATUS.available:
    pytest.skip(f"needs a CUDA GPU: {_STATUS.reason}", allow_module_level=True)

ALL = tuple(k for k in gpu.KERNEL_NAMES if not gpu.KERNELS[k].rung)  # T x T blocks
LADDER = tuple(k for k in gpu.KERNEL_NAMES if gpu.KERNELS[k].rung)  # tests/test_gpu_ladder.py
TILES = (8, 16, 32)


def _seed(*parts) -> int:
    return abs(hash(parts)) % (2**31)  # fresh inputs per test case


def test_status_and_device():
    assert _STATUS.ok and _STATUS.device
    d = gpu.device_info()
    assert isinstance(d, gpu.DeviceInfo), d
    assert d.sm_count > 0 and d.l2_bytes > 0 and d.limits["max_threads_per_block"] >= 1024
    assert d.versions["cupy"] and d.versions["cuda_runtime"]


@pytest.mark.parametrize("trace", [False, True], ids=["timed", "trace"])
def test_every_file_compiles(trace):
    r = gpu.compile_kernels(trace=trace)
    assert r == {k: "ok" for k in gpu.KERNEL_NAMES}, r


# ---- correctness ------------------------------------------------------------------------
def _shapes(T):
    return [(1, 1, 1), (35, 79, 19), (T + 1, T + 1, T + 1), (1000, 300, 77), (T - 1, 2 * T + 3, 3 * T + 1)]


@pytest.mark.parametrize("kernel", ALL)
@pytest.mark.parametrize("tile", TILES)
def test_kernel_matches_numpy(kernel, tile):
    for M, N, K in _shapes(tile):
        r = gpu.check(kernel, M, N, K, tile, seed=_seed(kernel, tile, M, N, K))
        assert isinstance(r, gpu.CheckResult), r
        assert r.all_written, f"{kernel} T={tile} {M}x{N}x{K}: {r.unwritten} elements unwritten"
        assert r.rel_error < 1e-5, f"{kernel} T={tile} {M}x{N}x{K}: rel. error {r.rel_error:.2e}"
        assert r.passed


@pytest.mark.parametrize("kernel", ["tiled", "tiled_register_copy", "tiled_dynamic", "naive"])
@pytest.mark.parametrize("tile", [2, 4])
def test_small_tiles_of_the_seed_examples(kernel, tile):
    for M, N, K in [(3, 3, 3), (4, 4, 8), (5, 7, 3)]:
        r = gpu.check(kernel, M, N, K, tile, seed=_seed(kernel, tile, M, N, K))
        assert r.passed, r


def test_check_catches_a_wrong_answer(monkeypatch):
    """The check can fail: a reference of the transposed product is rejected."""
    real = gpu.verify._compare
    monkeypatch.setattr(gpu.verify, "_compare", lambda out, ref, **kw: real(out, ref.T.copy(), **kw))
    r = gpu.check("tiled", 48, 48, 48, 16, seed=3)
    assert not r.passed and r.rel_error > 0.1


def test_the_device_check_gives_numpy_figures():
    """A check compares C with the float64 reference on the device (no copy of C to the host):
    the same relative and largest errors as numpy's, and the unwritten (NaN) elements counted."""
    from explainer.gpu.runtime import _runtime
    rt = _runtime()
    prob = gpu.verify._Problem(rt, 37, 53, 29, seed=11)
    try:
        prob.C[...] = rt.cp.asarray(prob.reference.astype(np.float32))
        prob.C[3, 5] += 0.25
        dev, host = prob.check_C(rt), gpu.verify._compare(prob.C.get(), prob.reference)
        assert dev["all_written"] and host["all_written"] and dev["unwritten"] == 0
        assert dev["rel_error"] == pytest.approx(host["rel_error"], rel=1e-9) and dev["rel_error"] > 1e-4
        assert dev["max_abs_error"] == pytest.approx(host["max_abs_error"], rel=1e-9)
        prob.C[7, :4] = np.nan  # four elements no thread stored
        dev, host = prob.check_C(rt), gpu.verify._compare(prob.C.get(), prob.reference)
        assert dev["unwritten"] == host["unwritten"] == 4 and not dev["all_written"]
        assert np.isnan(dev["rel_error"]) and np.isnan(host["rel_error"])
    finally:
        prob.release(rt)


@pytest.mark.parametrize("kernel", ALL)
def test_exact_on_small_integers(kernel):
    """Small integers: every product and partial sum is exact in float32, so the GPU must
    agree with numpy to the last bit (what the pages show on screen)."""
    rng = np.random.default_rng(7)
    A = rng.integers(-4, 5, size=(7, 5)).astype(np.float32)
    B = rng.integers(-4, 5, size=(5, 9)).astype(np.float32)
    for tile in (2, 8):
        C = gpu.matmul(kernel, A, B, tile)
        assert isinstance(C, np.ndarray), C
        np.testing.assert_array_equal(C, A.astype(np.float64) @ B.astype(np.float64))


# ---- the trace against the model ----------------------------------------------------------
def _expected_loads(row, col, width):
    return np.where((row < 0) | (col < 0), -1, row.astype(np.int64) * width + col).astype(np.int32)


def _expected_c(c_row, c_col, writes, N):
    return np.where(writes, c_row.astype(np.int64) * N + c_col, -2).astype(np.int32)


TRACE_CASES = [(35, 79, 19, 8), (3, 3, 3, 2), (4, 4, 8, 2), (17, 33, 40, 16), (40, 40, 70, 32)]


@pytest.mark.parametrize("kernel", ALL)
@pytest.mark.parametrize("case", TRACE_CASES, ids=lambda c: "x".join(map(str, c)))
def test_trace_matches_model(kernel, case):
    M, N, K, T = case
    tr = gpu.trace(kernel, M, N, K, T, seed=_seed("trace", kernel, case))
    assert isinstance(tr, gpu.KernelTrace), tr
    assert tr.all_written and tr.rel_error < 1e-5  # the trace build computes C too
    S = schedule(Launch(gpu.KERNELS[kernel].model, M, N, K, T))
    np.testing.assert_array_equal(tr.c, _expected_c(S.c_row, S.c_col, S.writes_c, N))
    if gpu.KERNELS[kernel].traces_tiles:
        assert tr.a.shape == S.a_row.shape and tr.b.shape == S.b_row.shape
        assert (tr.a != -2).all() and (tr.b != -2).all()  # every slot stored in every phase
        np.testing.assert_array_equal(tr.a, _expected_loads(S.a_row, S.a_col, K))
        np.testing.assert_array_equal(tr.b, _expected_loads(S.b_row, S.b_col, N))
    else:
        assert tr.a is None and tr.b is None


BIG_BLOCKS = [(0, 0), (2, 1), (63, 63), (17, 40), (63, 0)]  # (blockIdx.x, blockIdx.y)


@pytest.mark.parametrize("kernel", ALL)
def test_trace_matches_model_1024_cubed(kernel):
    """A few blocks of the 1024^3 launch with T = 16 (the gemm_tiled walk-through's example), element by
    element. The model answers per thread (Launch), without materialising the launch."""
    M = N = K = 1024
    T = 16
    tr = gpu.trace(kernel, M, N, K, T, blocks=BIG_BLOCKS, seed=11)
    assert isinstance(tr, gpu.KernelTrace), tr
    assert tr.all_written and tr.rel_error < 1e-5
    L = Launch(gpu.KERNELS[kernel].model, M, N, K, T)
    bx = np.array([b[0] for b in BIG_BLOCKS]).reshape(-1, 1, 1)
    by = np.array([b[1] for b in BIG_BLOCKS]).reshape(-1, 1, 1)
    ty = np.arange(T).reshape(1, T, 1)
    tx = np.arange(T).reshape(1, 1, T)
    c_row, c_col = L.c_index(bx, by, tx, ty)
    want_c = _expected_c(*np.broadcast_arrays(c_row, c_col, L.writes_c(bx, by, tx, ty)), N)
    np.testing.assert_array_equal(tr.c, want_c)
    # the gemm_tiled walk-through: blockIdx (x=2, y=1), threadIdx (x=4, y=3) owns C[19][36] in the row mapping
    if kernel != "naive_col":
        assert tr.c[BIG_BLOCKS.index((2, 1)), 3, 4] == 19 * N + 36
    else:
        assert tr.c[BIG_BLOCKS.index((2, 1)), 3, 4] == (1 * T + 4) * N + (2 * T + 3)
    if gpu.KERNELS[kernel].traces_tiles:
        P = L.phases
        t = np.arange(P).reshape(1, P, 1, 1)
        b4 = lambda a: a.reshape(-1, 1, 1, 1)  # noqa: E731
        ar, ac = L.a_load(b4(by), t, ty.reshape(1, 1, T, 1), tx.reshape(1, 1, 1, T))
        br, bc = L.b_load(b4(bx), t, ty.reshape(1, 1, T, 1), tx.reshape(1, 1, 1, T))
        shape = (len(BIG_BLOCKS), P, T, T)
        np.testing.assert_array_equal(
            tr.a, np.broadcast_to(_expected_loads(ar, ac, K), shape))
        np.testing.assert_array_equal(
            tr.b, np.broadcast_to(_expected_loads(br, bc, N), shape))


# ---- timing -------------------------------------------------------------------------------
def test_timing_harness():
    t = gpu.time_kernel("tiled", 1024, 1024, 1024, 16, repeats=15, warmup=2, budget_s=10.0)
    assert isinstance(t, gpu.Timing), t
    assert t.repeats == 15 and not t.cut_by_budget
    assert all(x > 0 for x in t.times_ms)
    assert t.min_ms <= t.median_ms <= t.max_ms
    assert 0 <= t.cv < 1 and t.spread >= 0
    assert t.cublas_ms and t.cublas_ms > 0 and t.pct_cublas > 0
    assert t.gflops == pytest.approx(2 * 1024**3 / (t.median_ms * 1e-3) / 1e9)
    # a tiled SGEMM is slower than cuBLAS, and far faster than nothing at all
    assert 0.5 < t.pct_cublas < 100 and t.gflops > 100


def test_timing_budget_cuts_repeats_of_a_slow_launch():
    t = gpu.time_kernel("naive_col", 2048, 2048, 2048, 16, repeats=200, warmup=1,
                        budget_s=0.05, compare_cublas=False)
    assert isinstance(t, gpu.Timing), t
    assert t.cut_by_budget and gpu.timing.MIN_REPEATS <= t.repeats < 200


def test_l2_flush_option():
    a = gpu.time_kernel("naive", 256, 256, 256, 16, repeats=5, flush_l2=True, compare_cublas=False)
    b = gpu.time_kernel("naive", 256, 256, 256, 16, repeats=5, flush_l2=False, compare_cublas=False)
    assert a.flush_l2 and not b.flush_l2 and a.repeats == b.repeats == 5


def test_cublas_is_fp32_not_tf32():
    t = gpu.time_cublas(1024, 1024, 1024, repeats=5)
    assert isinstance(t, gpu.Timing), t
    assert t.median_ms > 0 and t.extra["tf32"] is False
    # TF32 rounds inputs to 10 mantissa bits: ~3e-4 here. FP32 lands near 1e-7.
    assert t.extra["all_written"] and t.extra["rel_error"] < 1e-5


def test_kernel_info():
    for kernel in ALL:
        for tile in TILES:
            i = gpu.kernel_info(kernel, tile)
            assert isinstance(i, gpu.KernelInfo), i
            assert 0 < i.registers <= 255 and i.local_bytes == 0
            smem = 2 * tile * tile * 4
            spec = gpu.KERNELS[kernel]
            assert i.static_shared_bytes == (smem if spec.shared == "static" else 0)
            assert i.dynamic_shared_bytes == (smem if spec.shared == "dynamic" else 0)
            assert i.blocks_per_sm >= 1 and 0 < i.occupancy <= 1


# ---- refusals and failures keep their messages ---------------------------------------------
def test_dynamic_tile_too_large_is_refused():
    d = gpu.device_info()
    r = gpu.check("tiled_dynamic", 256, 256, 256, tile=128)
    assert isinstance(r, gpu.GpuStatus) and r.available and r.kind == "refused"
    assert "131072 bytes of shared memory" in r.reason
    assert str(d.limits["shared_per_block"]) in r.reason
    r = gpu.time_kernel("tiled_dynamic", 256, 256, 256, tile=64)
    assert r.kind == "refused" and "4096 threads" in r.reason
    assert gpu.kernel_info("tiled", 12).kind == "refused"
    # and the runner still works afterwards
    assert gpu.check("tiled_dynamic", 64, 64, 64, tile=32).passed


def test_out_of_memory_keeps_measured_results(monkeypatch):
    rt = gpu.runtime._runtime()
    total = rt.free_bytes()[1]
    monkeypatch.setattr(rt, "free_bytes", lambda: (64 * 2**20, total))  # as if 64 MiB were free
    r = gpu.check("naive", 8192, 8192, 8192, 16)
    assert r.kind == "out_of_memory" and "MiB" in r.reason
    rep = gpu.benchmark(["naive", "tiled"], [64, 8192], [16], repeats=3, budget_s=0.5)
    assert isinstance(rep, gpu.BenchReport), rep
    assert {(x["kernel"], x["M"]) for x in rep.results} == {("naive", 64), ("tiled", 64)}
    assert [(e["kernel"], e["M"], e["kind"]) for e in rep.errors] == [("cublas", 8192, "out_of_memory")]


def test_compile_error_carries_the_log(monkeypatch, tmp_path):
    for f in gpu.KERNELS_DIR.iterdir():  # the lesson's kernels (kernels/tuned/, a folder, not needed here)
        if f.is_file():
            (tmp_path / f.name).write_text(f.read_text())
    src = (tmp_path / "01_naive.cu").read_text()
    (tmp_path / "01_naive.cu").write_text(src.replace("float sum = 0.0f;", "float sum = 0.0f"))
    monkeypatch.setattr(gpu.runtime, "KERNELS_DIR", tmp_path)
    gpu.runtime._reset()
    try:
        r = gpu.check("naive", 8, 8, 8, 8)
        assert r.kind == "compile_error" and "01_naive.cu" in r.reason
        assert "error" in r.reason.lower() and "expected" in r.reason.lower()
    finally:
        gpu.runtime._reset()


def test_benchmark_small():
    rep = gpu.benchmark(None, [100, "64x80x96"], [8, 16], repeats=5, budget_s=0.5)
    assert isinstance(rep, gpu.BenchReport), rep
    assert rep.errors == []
    # the ladder kernels run once per size: they have no tile
    assert len(rep.cublas) == 2 and len(rep.results) == len(ALL) * 2 * 2 + len(LADDER) * 2
    for r in rep.results:
        assert r["passed"], r
        assert r["min_ms"] <= r["median_ms"] <= r["max_ms"] and r["pct_cublas"] > 0
    assert rep.settings["tf32"]["tf32"] is False


def test_time_launches_checks_and_times_a_shortlist_at_one_shape():
    labels = ["warptile_64x64_bk16", "warptile_32x128@2", "warptile_32x128+pad", "warptile_256x128@40"]
    seen = []
    got = gpu.time_launches(labels, "129x257x37", repeats=3, progress=lambda kind, row: seen.append((kind, row)))
    assert isinstance(got, dict) and list(got) == labels, got
    for lab in labels[:3]:  # checked against float64 first, then timed
        assert got[lab] is not None and 0 < got[lab] < 100, (lab, got)
    # 40 slices of K = 37 (2 phases) is refused by the launch geometry: no time, and the reason
    assert got["warptile_256x128@40"] is None
    assert [r["kernel"] for k, r in seen if k == "error"] == ["warptile_256x128@40"]
    assert {r["label"] for k, r in seen if k == "result"} == set(labels[:3])
    # what was not built yet is compiled first, several at once, and said so before any check
    kinds = [k for k, _ in seen]
    assert "status" not in kinds[kinds.index("error"):] and all("compiling" in r["message"] for k, r in seen if k == "status")


def test_time_launches_reports_a_wrong_result(monkeypatch):
    from explainer.gpu import sweep

    def wrong(rt, cfg, prob, **kw):
        return {"rel_error": 1.0, "all_written": True}

    monkeypatch.setattr(sweep, "_check_on", wrong)
    seen = []
    got = gpu.time_launches(["warptile_32x128"], 100, progress=lambda kind, row: seen.append((kind, row)))
    errors = [row for kind, row in seen if kind == "error"]
    assert got == {"warptile_32x128": None} and len(errors) == 1 and "wrong result" in errors[0]["message"]
