"""The arrays the fragment explorer (page 09) sends equal explainer.model.mma's: every cell's lane
and register from the PTX fragment tables, the global A / B element of each register at every
k-step from the predicted trace (which the GPU test proves equal to the kernel's own), and the C
element each register is stored to; bad input keeps the last good state."""

from __future__ import annotations

import html

import numpy as np
import pytest

from explainer.model import mma
from explainer.views import mma as vm


@pytest.mark.parametrize("warp", range(mma.KERNEL.warps))
def test_arrays_are_the_models(warp):
    meta, a = vm.mma_data(warp)
    k = mma.KERNEL
    tr = mma.predict_trace(vm.M, vm.N, vm.K)
    fa, fb, fc = mma.fragment("a"), mma.fragment("b"), mma.fragment("c")
    row0, col0 = k.warp_origin(warp)
    assert meta["origin"] == [row0, col0] and len(meta["steps"]) == k.phases(vm.K) * k.ksteps
    for mi in range(k.miter):
        for lane in range(32):
            for i, (r, kk) in enumerate(fa[lane]):
                assert (a["lane_a"][mi * 16 + r, kk], a["reg_a"][mi * 16 + r, kk]) == (lane, i)
                for p in range(k.phases(vm.K)):
                    for s in range(k.ksteps):
                        src = tr.a[0, 0, p, s, warp, mi, lane, i]
                        step = p * k.ksteps + s
                        assert (a["a_row"][step, mi * 16 + r, kk], a["a_col"][step, mi * 16 + r, kk]) == divmod(src, vm.K)
                        assert divmod(src, vm.K) == (row0 + mi * 16 + r, step * 8 + kk)
    for ni in range(k.niter):
        for lane in range(32):
            for i, (kk, c) in enumerate(fb[lane]):
                assert (a["lane_b"][kk, ni * 8 + c], a["reg_b"][kk, ni * 8 + c]) == (lane, i)
                src = tr.b[0, 0, 1, 0, warp, ni, lane, i]
                assert (a["b_row"][2, kk, ni * 8 + c], a["b_col"][2, kk, ni * 8 + c]) == divmod(src, vm.N)
    for mi in range(k.miter):
        for ni in range(k.niter):
            for lane in range(32):
                for i, (r, c) in enumerate(fc[lane]):
                    rr, cc = mi * 16 + r, ni * 8 + c
                    assert (a["lane_c"][rr, cc], a["reg_c"][rr, cc], a["mi_c"][rr, cc], a["ni_c"][rr, cc]) == (lane, i, mi, ni)
                    assert (a["c_row"][rr, cc], a["c_col"][rr, cc]) == (row0 + rr, col0 + cc)
    assert np.array_equal(a["g"], np.arange(32) // 4) and np.array_equal(a["t"], np.arange(32) % 4)
    # each lane holds 4 A elements per m16 tile, 2 B per n8 tile, 4 C per m16n8 tile
    assert np.array_equal(np.bincount(a["lane_a"].ravel(), minlength=32), np.full(32, 4 * k.miter))
    assert np.array_equal(np.bincount(a["lane_c"].ravel(), minlength=32), np.full(32, 4 * k.miter * k.niter))


def test_palette_has_a_colour_per_lane_and_the_dimmed_one():
    p = vm.lane_palette()
    assert len(p) == 33 and len(set(p)) == 33 and vm.DIM == 32


def test_bad_input_keeps_the_last_good_state():
    ex = vm.MmaExplorer(warp=1, lane=5, step=2)
    meta, _ = ex.data()
    assert meta["warp"] == 1 and meta["start"] == {"lane": 5, "step": 2}
    assert ex.select(lane=40) is False and "lane must be a whole number 0..31" in ex.view.error
    assert ex.select(step=-1) is False and "k-step must be" in ex.view.error
    assert ex.select(warp=9) is False and "warp must be 0..3" in ex.view.error
    assert (ex.warp, ex.lane, ex.step) == (1, 5, 2) and ex.view.meta["warp"] == 1
    assert ex.select(lane=7, step=3) is True and (ex.lane, ex.step) == (7, 3) and ex.view.error == ""
    assert ex.select(warp=3) is True and ex.view.meta["warp"] == 3


def test_static_store_holds_every_warp():
    ex = vm.MmaExplorer()
    store = ex.static_store()
    assert sorted(store["states"]) == [f"warp {w}" for w in range(mma.KERNEL.warps)]
    assert store["payloads"][store["initial"]]["meta"]["warp"] == 0


def test_pipeline_view_sends_the_models_steps_and_the_kernels_own_lines():
    from explainer import resources
    from explainer.views import pipeline as pv

    meta = pv.pipeline_data(pv.K_DEFAULT)
    steps = mma.pipeline(pv.K_DEFAULT)
    assert [(s["line"], s["phase"], tuple(s["holds"]), tuple(s["state"]), tuple(s["in_flight"]), s["text"])
            for s in meta["steps"]] == [(s.line, s.phase, s.holds, s.state, s.in_flight, s.text) for s in steps]
    assert [tuple(s["ksteps"]) for s in meta["steps"]] == [s.ksteps for s in steps]
    source = (resources.kernels_dir() / mma.STAGED.file).read_text().splitlines()
    assert [c["line"] for c in meta["code"]] == sorted(c["line"] for c in meta["code"])
    for c in meta["code"]:
        assert c["text"].split("//")[0].strip() in source[c["line"] - 1]
    by_text = {c["text"].split("//")[0].strip(): j for j, c in enumerate(meta["code"])}
    wait = by_text['asm volatile("cp.async.wait_group %0;" :: "n"(SG_STAGES - 2));']
    assert all(s["code"] == [wait] for s in meta["steps"] if s["line"] == "wait" and s["phase"] >= 0)
    first_wait = [s["code"] for s in meta["steps"] if s["line"] == "wait" and s["phase"] < 0]
    assert len(first_wait) == 1 and meta["code"][first_wait[0][0]]["line"] < meta["code"][wait]["line"]
    assert len(meta["palette"]) == len(meta["states"]) == 4


def test_tensor_timings_table_reads_the_recorded_rows():
    from explainer.pages import tensor

    def row(kernel, ms, n=1024, **kw):
        return {"kernel": kernel, "M": n, "N": n, "K": n, "tile": None, "median_ms": ms,
                "gflops": 2 * n ** 3 / ms / 1e6, **kw}

    data = {"cublas": [row("cublas", 2.0)], "cublas_tf32": [row("cublas_tf32", 0.5, math="tf32")],
            "results": [row("mma_tf32", 2.5, math="tf32"), row("mma_tf32_staged", 1.0, math="tf32"),
                        row("warptile", 2.1)]}
    rows = tensor.timing_rows(data, sizes=(1024, 2048))
    assert [r[1] for r in rows] == ["cuBLAS FP32", "cuBLAS TF32", "15 · mma_tf32", "16 · mma_tf32_staged"]
    assert [r[4] for r in rows] == ["25.0", "100.0", "20.0", "50.0"]  # % of cuBLAS TF32
    assert tensor.timing_rows({"cublas": data["cublas"], "results": data["results"]}) == []  # no TF32 reference


def test_feeding_table_reads_the_recorded_rows():
    """Page 09's feeding table: every row of a benchmarks/mma_feed.py file, kernel 16 itself last,
    figures formatted from the file; nothing without a file."""
    from explainer.pages import tensor

    data = {"rows": [{"what": "loop", "indent": False, "median_ms": 0.5, "tflops": 275.0, "pct_cublas_tf32": 70.0},
                     {"what": "no cvt", "indent": True, "median_ms": 0.45, "tflops": 305.4, "pct_cublas_tf32": 77.78}],
            "kernel16": {"what": "kernel 16 itself", "median_ms": 0.7, "tflops": 196.3, "pct_cublas_tf32": 50.0}}
    rows = tensor.feeding_rows(data)
    assert [r[1:] for r in rows] == [("0.500", "275", "70.0"), ("0.450", "305", "77.8"), ("0.700", "196", "50.0")]
    labels = [r[0][1] for r in rows]  # ("html", a left-aligned span)
    assert [lab.split(">", 1)[1].split("<")[0] for lab in labels] == ["loop", "· no cvt", "kernel 16 itself"]
    assert "bold" in labels[2] and "bold" not in labels[0]
    assert tensor.feeding_rows(None) == [] and tensor.feeding_rows({"rows": []}) == []
    assert "No recorded feeding" in tensor.feeding().value or "Recorded on" in tensor.feeding().value


def test_the_shipped_feeding_record_is_measured_and_consistent():
    """The file page 09 shows: device, versions and date recorded; every % of cuBLAS TF32 is that
    row's rate over cuBLAS TF32's in the same rounds (4096^3's work per launch), and the page's
    table shows the file's rows."""
    from explainer.gpu import recorded
    from explainer.pages import tensor

    data = recorded.load_feeding()
    assert data is not None and data["schema"] == recorded.FEEDING_SCHEMA
    assert data["device"]["name"] and data["device"]["versions"]["cupy"] and data["date"][:4] == "2026"
    cub_ms = data["cublas_tf32"]["median_ms"]
    work = data["settings"]["work_flop"]
    assert work == 2 * 4096 ** 3
    for r in data["rows"] + [data["kernel16"]]:
        assert r["median_ms"] > 0 and len(r["rounds_ms"]) == data["settings"]["rounds"]
        assert abs(r["pct_cublas_tf32"] - 100 * r["tflops"] / (work / cub_ms / 1e9)) < 0.5, r["what"]
    assert data["kernel16"]["rel_error"] < 2e-3
    html_ = tensor.feeding().value
    assert data["source"] in html_ and data["kernel16"]["what"] in html_
    assert all(html.escape(r["what"], quote=True) in html_ for r in data["rows"])
