"""Pages 05-07 build without a GPU, and their figures come from the model, the presets or the
recorded files (checked against hand-worked values and against the recorded rows themselves)."""

import re

import ipywidgets as W
import pytest

from explainer.gpu import recorded

from explainer.pages import perf as pages_perf

from explainer.model import roofline
from explainer.views.perf import OccupancyCalculator
from explainer.views.warps import WarpExplorer


@pytest.fixture(autouse=True)
def no_gpu(monkeypatch):
    monkeypatch.setenv("EXPLAINER_NO_GPU", "1")


def text(w) -> str:
    if isinstance(w, W.HTML):
        return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", w.value))
    return " | ".join(text(c) for c in getattr(w, "children", ()))


PAGE_CALLS = {
    "05": ["warps", "coalescing_summary", "row_vs_column", "warps_timing", "bank_table"],
    "06": ["tile_table", "turing_correction", "kernel_resources", "tile_sweep", "tiles_timing",
           "lab_report_tables", "occupancy_calculator", "warp_scheduler", "scheduler_table"],
    "07": ["intensity_table", "pmpp_example", "device_roofs_html", "roofline_page"],
}


@pytest.mark.parametrize("name", [n for v in PAGE_CALLS.values() for n in v])
def test_page_calls_build_without_gpu(name):
    w = getattr(pages_perf, name)()
    assert isinstance(w, W.Widget)
    assert "⚠" not in text(w) and "No recorded" not in text(w)


def test_notebooks_call_only_these():
    from pathlib import Path
    src = "".join(p.read_text() for p in Path(__file__).resolve().parent.parent.glob("notebooks/0[567]_*.ipynb"))
    called = set(re.findall(r"\bperf\.(\w+)\(", src))
    assert called == {n for v in PAGE_CALLS.values() for n in v}


# ---- 05 ------------------------------------------------------------------------------------
def test_seed_001_warp_corrected():
    assert pages_perf.walkthrough_warp_check() == {"linear": 52, "warp": 1, "lane": 20, "seed_claim": 36}
    e = WarpExplorer()
    meta, a = e.data()
    assert meta["start"]["thread"] == [4, 3] and (a["warp_of"][3, 4], a["lane_of"][3, 4]) == (1, 20)
    tiled_b = e.requests["tiled"][1]
    assert tiled_b.access == "B tile load" and tiled_b.coalesced
    assert not e.requests["naive_col"][0].coalesced


def test_warp_explorer_updates_and_keeps_state_on_bad_input():
    e = WarpExplorer()
    sent = []
    e.view.send = lambda msg, buffers=None: sent.append(msg)
    assert e.select(T=32, thread=(5, 2))
    meta, a = e.data()
    assert meta["T"] == 32 and a["warp_of"][2, 5] == 2 and a["lane_of"][2, 5] == 5
    assert e.select(thread=(6, 2)) and sent[-1] == {"pin": [6, 2]}  # same arrays: the browser pins
    before = (e.view.rev, e.view.meta)
    for bad in ({"block": (999, 0)}, {"T": 12}, {"k": 10_000}, {"thread": (40, 0)}, {"T": "x"}):
        assert not e.select(**bad)
        assert sent[-1]["error"] and "\n" not in sent[-1]["error"]
        assert (e.view.rev, e.view.meta) == before
    errors = [m["error"] for m in sent if "error" in m]
    assert "outside the grid" in errors[0] and "one of 4, 8, 16, 32" in errors[1]


def test_coalescing_model_equals_ncu():
    dev = roofline.load_device_record()
    runs = {(r["kernel"], r["tile"]): r["metrics"] for r in dev["ncu"]["runs"]}
    out = text(pages_perf.coalescing_summary())
    for kernel, model in (("naive", 2.0), ("naive_col", 8.5), ("tiled", 4.0)):
        m = runs[(kernel, 16)]
        ratio = m["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] / m["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"]
        assert ratio == pytest.approx(model, rel=1e-3)
        assert f"{kernel} " in out and f"{model:.2f}" in out


def test_row_vs_column_from_recorded():
    data = recorded.load_recorded()
    a = recorded.recorded_rows(data, "naive", 2048, 32)[0]["median_ms"]
    b = recorded.recorded_rows(data, "naive_col", 2048, 32)[0]["median_ms"]
    assert b > a
    assert f"{b / a:.1f}×" in text(pages_perf.row_vs_column())


def test_bank_table():
    t = text(pages_perf.bank_table())
    assert "32-way" in t and "8-way" in t and "conflict-free" in t


# ---- 06 ------------------------------------------------------------------------------------
def test_notes_tile_table_computed():
    rows = {r["tile"]: r for r in pages_perf.notes_tile_table("fermi")}
    # 16 KB / (2*T*T*4 B): 32, 8, 2 blocks by shared memory alone (the course notes' column)
    assert [rows[T]["blocks_by_shared"] for T in (8, 16, 32)] == [32, 8, 2]
    assert [rows[T]["blocks_per_sm"] for T in (8, 16, 32)] == [8, 6, 1]
    assert [rows[T]["occupancy"] for T in (8, 16, 32)] == pytest.approx([1 / 3, 1, 2 / 3])
    assert [rows[T]["limiter"] for T in (8, 16, 32)] == ["blocks", "threads", "threads"]
    assert rows[64]["blocks_per_sm"] == 0 and "exceed" in rows[64]["error"]


def test_hopper_and_turing_tables():
    h = {r["tile"]: r for r in pages_perf.notes_tile_table("hopper", (8, 16, 32))}
    assert [h[T]["blocks_per_sm"] for T in (8, 16, 32)] == [32, 8, 2]  # 2048 threads every time
    assert all(h[T]["occupancy"] == 1 for T in (8, 16, 32))
    assert h[8]["limiter"] == "threads"  # 64 warps / 2 = 32 = the block cap: threads reported first
    c = pages_perf.walkthrough_turing()
    assert (c["max_threads_per_sm"], c["blocks_per_sm"], c["active_threads"]) == (1024, 4, 1024)
    assert c["gpu_threads"] == 68 * 1024
    assert "69,632" in text(pages_perf.turing_correction())


def test_kernel_resources_agree_with_calculator():
    t = text(pages_perf.kernel_resources())
    dev = roofline.load_device_record()
    for k in dev["kernels"]:
        assert k["registers"] > 0 and 0 < k["occupancy"] <= 1
    assert "tiled 32×32 32 8,192 2 100% 2 (threads)" in t


def test_seed_004_reproduced_from_recorded():
    data = recorded.load_recorded()
    rows = pages_perf.lab_report_rows("row", data)
    assert len(rows) == 9 and rows[0]["seed_ms"] == (2.651, 1.023, 1.023)
    r = next(r for r in rows if (r["N"], r["tile"]) == (1024, 16))
    for k, ms in zip(("naive", "tiled", "tiled_register_copy"), r["ms"]):
        assert ms == recorded.recorded_rows(data, k, 1024, 16)[0]["median_ms"]
    rc = pages_perf.register_copy_ratio(data)
    assert rc["n"] == 12 and 0.98 < rc["min"] <= rc["max"] < 1.02  # "register tiling" = tiled
    assert f"{rc['median']:.3f}×" in text(pages_perf.lab_report_tables())


def test_occupancy_calculator():
    c = OccupancyCalculator()
    c.w_arch.value, c.w_threads.value, c.w_smem.value, c.w_regs.value = "hopper", 1024, 0, 64
    # 64 regs x 32 lanes = 2048 per warp -> 32 warps of registers; a block has 32 warps -> 1 block
    assert c.result.blocks_per_sm == 1 and c.result.limiter == "registers"
    assert "1 block(s) per SM" in c.w_out.value and "50%" in c.w_out.value
    c.w_arch.value, c.w_regs.value = "fermi", 0
    c.w_threads.value = 64
    assert c.result.blocks_per_sm == 8 and "33%" in c.w_out.value
    good, table = c.result, c.w_out.value
    c.w_smem.value = 20000
    assert "exceed" in c.w_error.value and c.result is good and c.w_out.value == table  # the last good result stays
    c.w_smem.value = 0
    assert c.w_error.value == "" and c.result.blocks_per_sm == 8


@pytest.mark.parametrize("field, value, words", [("w_threads", 2048, "2048 threads per block exceed"),
                                                 ("w_threads", -5, "at least 1, got -5"),
                                                 ("w_regs", 300, "got 300"), ("w_regs", -1, "got -1"),
                                                 ("w_smem", -4, "got -4")])
def test_occupancy_calculator_says_what_it_refuses_instead_of_clamping(field, value, words):
    """2048 threads are not turned into 1024, nor -5 into 1, without a word: the value stays as
    typed, one line says why it is refused, and the last good result stays until an input works."""
    c = OccupancyCalculator()
    good = c.result
    getattr(c, field).value = value
    assert getattr(c, field).value == value and words in c.w_error.value and c.result is good
    getattr(c, field).value = {"w_threads": 256, "w_regs": 32, "w_smem": 2048}[field]
    assert c.w_error.value == "" and c.result == good


# ---- 07 ------------------------------------------------------------------------------------
def test_intensity_from_model():
    rows = {r["shape"]: r for r in pages_perf.intensity_rows()}
    r = rows[(4096, 4096, 4096)]
    assert r["naive"] == 0.25 and (r[8], r[16], r[32]) == (2.0, 4.0, 8.0)
    # 1000x700x300, T=16: grid 44 x 63; loads 44*1000*300 + 63*300*700 = 26,430,000;
    # 2*1000*700*300 / (4 * 26,430,000)
    assert rows[(1000, 700, 300)][16] == pytest.approx(420_000_000 / (4 * 26_430_000))


def test_pmpp_and_peak():
    p = roofline.pmpp_a100()
    assert p["tiled_gflops"] == 6220 and p["naive_gflops"] == pytest.approx(388.75)
    assert roofline.fp32_peak_gflops(1980, 132) == pytest.approx(66908.16)
    assert roofline.bound_gflops(0.25, 3000, 60000) == 750 and roofline.bound_gflops(100, 3000, 60000) == 60000


def test_recorded_device_roofs():
    dev = roofline.load_device_record()
    assert dev["schema"] == roofline.DEVICE_SCHEMA and "H100" in dev["device"]["name"]
    assert dev["date"] and dev["device"]["versions"]["cupy"]
    r = roofline.device_roofs(dev)
    assert r["peak_gflops"] == pytest.approx(132 * 128 * 2 * dev["clocks"]["sm_max_mhz"] / 1000)
    assert 1000 < r["bandwidth_gbs"] < r["theoretical_bandwidth_gbs"]
    assert r["fma_measured_gflops"] < r["peak_gflops"]
    t = text(pages_perf.device_roofs_html())
    assert f"{r['peak_gflops']:,.0f} GFLOP/s" in t and "Recorded, not measured here" in t


def test_roofline_points_and_figure():
    dev, data = roofline.load_device_record(), recorded.load_recorded()
    pts = {(p["kernel"], p["tile"]): p for p in pages_perf.roofline_points(data, 4096, dev)}
    naive = pts[("naive", 16)]
    assert naive["flop_per_byte"] == 0.25
    assert naive["gflops"] == recorded.recorded_rows(data, "naive", 4096, 16)[0]["gflops"]
    roofs = roofline.device_roofs(dev)
    # caches: the naive kernel beats its DRAM bound, and DRAM really moved far fewer bytes
    assert naive["gflops"] > roofline.bound_gflops(0.25, roofs["bandwidth_gbs"], roofs["peak_gflops"])
    assert naive["dram_bytes"] < naive["model_bytes"] / 10
    w = pages_perf.roofline_page()
    fig = w.children[0]
    assert max(fig.data[0].y) == pytest.approx(roofs["peak_gflops"])
    hovers = [h for tr in fig.data if isinstance(tr.hovertemplate, (list, tuple)) for h in tr.hovertemplate]
    assert any(h.startswith("naive T=16:") for h in hovers)  # one series per kernel, each point named
