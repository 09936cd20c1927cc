"""The pages' live path on a real GPU: the timing panel's "Measure on this GPU" runs the
kernels and cuBLAS, checks them against numpy, and draws what it measured."""

import pytest

from explainer import gpu

pytestmark = pytest.mark.gpu

if not gpu.status().available:
    pytest.skip(f"needs a CUDA GPU: {gpu.status().reason}", allow_module_level=True)


def test_timing_panel_measures_live():
    from explainer.views.timing import TimingPanel

    p = TimingPanel(kernels=("naive", "tiled"), tiles=(16,), sizes=(64,))
    assert not p.w_button.disabled
    p.w_sizes.value = "100 257"
    p._on_measure(None)
    assert "Measured on this GPU" in p.w_status.value, p.w_status.value
    kernels = {(r["kernel"], r["M"]) for r in p.rows}
    assert kernels == {(k, n) for k in ("cublas", "naive", "tiled") for n in (100, 257)}
    for r in p.rows:
        assert r["median_ms"] > 0 and r["min_ms"] <= r["median_ms"] <= r["max_ms"]
        if r["kernel"] != "cublas":
            assert r["passed"] and r["rel_error"] < 1e-5
    assert {tr.name for tr in p.fig.data} == {"cuBLAS", "naive T=16", "tiled T=16"}
    assert p.w_progress.value == p.w_progress.max == 2 * 3


def test_timing_panel_bad_sizes_keep_state():
    from explainer.views.timing import TimingPanel

    p = TimingPanel(kernels=("tiled",), tiles=(16,), sizes=(64,))
    p.w_sizes.value = "64 banana"
    p._on_measure(None)
    assert "sizes must be whole numbers" in p.w_status.value and p.rows == []


def test_tensor_page_runs_kernel_15_here():
    from explainer.pages import tensor

    html = tensor.check_on_gpu(M=333, N=200, K=150).value
    assert "every element written: True" in html and "<b>passed</b>" in html, html


def test_tensor_page_runs_kernel_17_on_hopper_or_says_why_not():
    from explainer.pages import tensor

    html = tensor.check_on_gpu(M=333, N=200, K=152, kernel="wgmma_tma").value
    if str(gpu.device_info().compute_capability) == "9.0":
        assert "Kernel 17 on" in html and "every element written: True" in html and "<b>passed</b>" in html, html
    else:
        assert "did not run" in html and "Hopper" in html and html.count("<div") == 1, html
