"""Page 08 without a GPU: the ladder chart's numbers are the recorded file's (or "not recorded"),
the speed-ups and shares are computed from them, the mapping views draw what explainer.model.ladder
says, bad input keeps the last good state, and the notebook is thin and up to date.

The chart is tested on the recorded file as it is, on rows filtered from it (the ladder kernels
removed: the state before they were recorded) and on rows built from it (ladder rows made from
the tiled kernel's, with known times), so the tests hold whichever rows the file carries."""

import copy
import importlib.util
import json
import re
from pathlib import Path

import ipywidgets as W
import numpy as np
import pytest

from explainer.gpu import recorded as records

from explainer import gpu, pages

from explainer.model import ladder, roofline

from explainer.pages import ladder as pages_ladder, perf as pages_perf
from explainer.views.ladder import LadderExplorer
from explainer.views.ladder_maps import (NOW_C, THREAD_C, WARP_C, as_store_conflict, check_thread,
                                   copies, copies_z, ranges, reads_z, register_counts, shared_loads_per_k,
                                   thread_reads, warp_region, warp_subtiles)
from explainer.views.ladder import painted

REPO = Path(__file__).resolve().parent.parent
NOTEBOOK = REPO / "notebooks" / "08_beyond_tiling.ipynb"


@pytest.fixture(autouse=True)
def no_gpu(monkeypatch):
    monkeypatch.setenv("EXPLAINER_NO_GPU", "1")
    monkeypatch.setattr(pages_ladder, "LIVE", pages_ladder._Live())


def text(w) -> str:
    if isinstance(w, W.HTML):
        return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", w.value))
    return " | ".join(text(c) for c in getattr(w, "children", ()))


def recorded():
    data = records.load_recorded()
    assert data, "the package ships a recorded-timings file"
    return data


def without_ladder(data):
    d = copy.deepcopy(data)
    d["results"] = [r for r in d["results"] if r["kernel"] not in ladder.NAMES]
    return d


def with_made_up_ladder(data, factors=(2.0, 1.5, 0.5, 4.0, 1.25)):
    """The tiled T=32 rows, renamed to each ladder kernel in turn, each rung ``factor`` times
    faster than the one before (0.5: slower); pct_cublas left out, to be computed."""
    d = without_ladder(data)
    base = {r["M"]: r for r in d["results"] if r["kernel"] == "tiled" and r["tile"] == 32 and r["M"] == r["N"] == r["K"]}
    ms = {n: r["median_ms"] for n, r in base.items()}
    for name, f in zip(ladder.NAMES, factors):
        for n, r in base.items():
            ms[n] /= f
            row = {k: v for k, v in r.items() if k != "pct_cublas"}
            row.update(kernel=name, tile=None, median_ms=ms[n], min_ms=ms[n], max_ms=ms[n],
                       gflops=gpu.gflops(n, n, n, ms[n]))
            d["results"].append(row)
    return d


# ---- the chart's numbers ------------------------------------------------------------------
def test_cells_are_the_recorded_rows():
    data = recorded()
    rows = records.recorded_rows(data)
    cells = pages_ladder.ladder_cells(rows)
    assert [c["kernel"] for c in cells] == ["tiled", *ladder.NAMES, "cublas"]
    for i, rung in enumerate(cells):
        for n in pages_ladder.SIZES:
            row = pages_ladder.find_row(rows, rung["kernel"], rung["tile"], n)
            c = rung["cells"][n]
            if row is None:
                assert c is None
                continue
            assert c["gflops"] == row["gflops"] and c["median_ms"] == row["median_ms"]
            if rung["kernel"] == "cublas":
                assert c["pct_cublas"] == 100.0
            else:
                assert c["pct_cublas"] == pytest.approx(row.get("pct_cublas") or
                                                        100 * records.recorded_rows(data, "cublas", n)[0]["median_ms"] / row["median_ms"])
            prev = cells[i - 1]["cells"][n] if i else None
            assert c["speedup"] == (pytest.approx(prev["median_ms"] / c["median_ms"]) if prev else None)
    # the course material's tiled kernel at T=32 is recorded at every size the chart shows
    assert all(cells[0]["cells"][n] for n in pages_ladder.SIZES)


def test_missing_ladder_rows_show_not_recorded():
    data = without_ladder(recorded())
    cells = pages_ladder.ladder_cells(records.recorded_rows(data))
    for rung in cells[1:-1]:
        assert all(c is None for c in rung["cells"].values())
    assert all(c["speedup"] is None for c in cells[-1]["cells"].values())  # cuBLAS: the rung above is missing
    chart = pages_ladder.LadderChart(data=data)
    t = text(chart.widget)
    assert chart.w_table.value.count(">not recorded<") == 5 * len(pages_ladder.SIZES)
    assert "⚠" not in t and "Recorded, not measured here" in t
    for tr in chart.fig.data:
        assert list(tr.y[1:6]) == [None] * 5 and tr.y[0] is not None


def test_speedups_and_shares_from_made_up_rows():
    factors = (2.0, 1.5, 0.5, 4.0, 1.25)
    data = with_made_up_ladder(recorded(), factors)
    rows = records.recorded_rows(data)
    cells = pages_ladder.ladder_cells(rows)
    for n in pages_ladder.SIZES:
        cub = records.recorded_rows(data, "cublas", n)[0]["median_ms"]
        for rung, f in zip(cells[1:6], factors):
            c = rung["cells"][n]
            assert c["speedup"] == pytest.approx(f)
            assert c["pct_cublas"] == pytest.approx(100 * cub / c["median_ms"])  # computed: the rows have none
    t = pages_ladder.ladder_table_html(cells)
    assert "×2.00" in t and "×0.50</b> (slower)" in t and "not recorded" not in t


def test_chart_without_gpu_shows_the_file():
    data = recorded()
    chart = pages_ladder.LadderChart()
    assert chart.w_button.disabled
    st = chart.w_status.value
    assert "Recorded, not measured here" in st and data["label"] in st and data["source"] in st
    assert [tr.name for tr in chart.fig.data] == [f"{n}³" for n in pages_ladder.SIZES]
    fig_before = chart.fig
    labels = [c["label"] for c in pages_ladder.ladder_rungs()]
    for tr, n in zip(chart.fig.data, pages_ladder.SIZES):
        assert list(tr.x) == labels
        for label, y in zip(labels, tr.y):
            rung = next(r for r in pages_ladder.ladder_rungs() if r["label"] == label)
            row = pages_ladder.find_row(records.recorded_rows(data), rung["kernel"], rung["tile"], n)
            assert y == (row["gflops"] if row else None)
    chart.w_metric.value = "% of cuBLAS"  # updated in place, cuBLAS (100%) left out
    assert chart.fig is fig_before and "cuBLAS" not in chart.fig.data[0].x
    tiled = records.recorded_rows(data, "tiled", 4096, 32)[0]
    assert chart.fig.data[-1].y[0] == pytest.approx(tiled["pct_cublas"])
    assert f"{tiled['gflops']:,.0f}" in text(chart.widget)
    for r in ladder.RUNGS:  # the reason for each rung, in a sentence
        assert r.idea.split(",")[0] in chart.w_table.value.replace("&#x27;", "'")


class FakeReport:
    def __init__(self, rows, date="2026-11-22T07:00:00+00:00"):
        self.cublas = [r for r in rows if r["kernel"] == "cublas"]
        self.results = [r for r in rows if r["kernel"] != "cublas"]
        self.errors, self.date, self.device = [], date, {"name": "Fake GPU", "sm_count": 7}


def test_live_measurement_updates_chart_and_roofline(monkeypatch):
    data = with_made_up_ladder(recorded())
    rows = [r for r in records.recorded_rows(data) if r["M"] == r["N"] == r["K"] and r["M"] in (1024, 4096)
            and (r["kernel"] != "tiled" or r["tile"] == 32) and r["kernel"] in ("cublas", "tiled", *ladder.NAMES)]
    calls = {}

    def benchmark(kernels, sizes, tiles, progress):
        calls.update(kernels=kernels, sizes=sizes, tiles=tiles)
        for r in rows:
            progress("cublas" if r["kernel"] == "cublas" else "result", r)
        return FakeReport(rows)

    monkeypatch.setattr(gpu, "status", lambda: gpu.GpuStatus(True, "GPU: Fake", None, "Fake GPU"))
    monkeypatch.setattr(gpu, "benchmark", benchmark)
    chart = pages_ladder.LadderChart()
    roof = pages_ladder.roofline()
    assert not chart.w_button.disabled
    chart.w_sizes.value = "1024 4096"
    chart.w_button.click()
    assert calls == {"kernels": ["tiled", *ladder.NAMES], "sizes": [1024, 4096], "tiles": [32]}
    assert "Measured on this GPU" in chart.w_status.value and chart.w_progress.value == len(rows)
    assert [tr.name for tr in chart.fig.data] == ["1024³", "4096³"]
    warptile = next(r for r in rows if r["kernel"] == "warptile" and r["M"] == 4096)
    assert chart.fig.data[1].y[5] == warptile["gflops"]
    assert "7 SMs" in chart.w_table.value
    # the roofline of page 08 follows the live rows
    fig = roof.children[0]
    ladder_tr = next(tr for tr in fig.data if tr.name.startswith("ladder kernels"))
    assert warptile["gflops"] in ladder_tr.y and "measured just now" in text(roof)


def test_bad_sizes_and_failing_benchmark_give_one_line(monkeypatch):
    monkeypatch.setattr(gpu, "status", lambda: gpu.GpuStatus(True, "GPU: Fake", None, "Fake GPU"))

    def boom(**kw):
        raise RuntimeError("driver went away\nsecond line")

    monkeypatch.setattr(gpu, "benchmark", boom)
    chart = pages_ladder.LadderChart()
    before = [tuple(tr.y) for tr in chart.fig.data]
    chart.w_sizes.value = "1024 x"
    chart.w_button.click()
    assert "⚠ sizes must be whole numbers" in chart.w_status.value
    chart.w_sizes.value = "1024"
    chart.w_button.click()
    assert "⚠ RuntimeError: driver went away" in chart.w_status.value and "second line" not in chart.w_status.value
    assert [tuple(tr.y) for tr in chart.fig.data] == before and not chart.w_button.disabled


def test_rung_cards_and_table():
    data = recorded()
    for r in ladder.RUNGS:
        t = text(pages_ladder.rung_card(r.name))
        assert f"{r.fma_per_lds:.2f} FMAs per shared load" in t and f"{r.shared_bytes:,} B" in t
        assert r.expression(False).replace("<", "&lt;").replace(">", "&gt;") in t
        row = records.recorded_rows(data, r.name, 4096)
        assert (f"{row[0]['gflops']:,.0f} GFLOP/s" in t) if row else ("not recorded" in t)
    t = text(pages_ladder.rung_table())
    for r in ladder.RUNGS:
        tm, tn = r.thread_tile
        assert f"{tm}×{tn} = {r.outputs_per_thread}" in t and f"{r.intensity():.1f}" in t


def test_rung_card_without_ladder_rows(monkeypatch):
    data = without_ladder(recorded())
    monkeypatch.setattr(records, "load_recorded", lambda *a, **k: data)
    assert "not recorded" in text(pages_ladder.rung_card("warptile"))


def test_a_recordings_label_is_shown_in_the_pages_language():
    """Pages 05-08 show a recording's label translated (explainer.gpu.recorded.label_text), never
    the file's English one inside a Chinese sentence."""
    from explainer import i18n
    from explainer.tuning.view import table_html

    data, dev = recorded(), roofline.load_device_record()
    files = [records.load_recorded(p) for p in records.recorded_files()
             if re.fullmatch(r"nvidia-[\w-]+_\d{4}-\d\d-\d\d\.json", p.name)]
    with i18n.using("zh-CN"):
        shown = {
            "rung card": text(pages_ladder.rung_card("warptile")),
            "devices": pages_ladder.devices_html(files[:2]),
            "planner": table_html(1024, 1024, 1024, data),
            "banks": text(pages_perf.bank_table()),
            "roofline": pages_perf.roofline_chart().fig.layout.title.text,
        }
        zh = {d["label"]: records.label_text(d) for d in (data, dev, *files)}
    for english, chinese in zh.items():
        assert chinese != english and re.search(r"[\u4e00-\u9fff]", chinese), english
    for where, t in shown.items():
        assert not any(english in t for english in zh), (where, t)
        assert any(chinese in t for chinese in zh.values()), (where, t)


# ---- the roofline (pages 07 and 08) ----------------------------------------------------------
def test_ladder_points_on_the_roofline():
    data = recorded()
    rows = records.recorded_rows(data)
    pts = roofline.ladder_points(rows, 4096)
    assert [p["kernel"] for p in pts] == list(ladder.NAMES)
    for p, r in zip(pts, ladder.RUNGS):
        assert p["flop_per_byte"] == r.intensity() == r.BM * r.BN / (2 * (r.BM + r.BN))
        row = records.recorded_rows(data, r.name, 4096)
        assert p["gflops"] == (row[0]["gflops"] if row else None)
        # a block loads BM*BK + BK*BN floats per phase for 2*BM*BN*BK FLOP
        blocks, phases = (4096 // r.BM) * (4096 // r.BN), 4096 // r.BK
        assert p["model_bytes"] == pytest.approx(4 * blocks * phases * (r.BM * r.BK + r.BK * r.BN))
    assert all(p["gflops"] is None for p in roofline.ladder_points(records.recorded_rows(without_ladder(data)), 4096))


@pytest.mark.parametrize("state", ["as recorded", "without ladder rows"])
def test_roofline_chart_has_the_ladder(state):
    data = recorded() if state == "as recorded" else without_ladder(recorded())
    chart = pages_perf.RooflineChart(4096, roofline.load_device_record(), data)
    tr = chart.fig.data[chart.ladder_trace]
    have = [p for p in roofline.ladder_points(records.recorded_rows(data), 4096) if p["gflops"] is not None]
    assert list(tr.x) == [p["flop_per_byte"] for p in have] and list(tr.y) == [p["gflops"] for p in have]
    t = text(chart.widget)
    for name in ladder.NAMES:
        assert name in t
    if not have:
        assert "not recorded" in t
    w = pages_perf.roofline_page()  # page 07 draws the same chart
    assert any(t.name.startswith("ladder kernels") for t in w.children[0].data)


# ---- the mapping views ------------------------------------------------------------------------
@pytest.mark.parametrize("r", ladder.RUNGS, ids=lambda r: r.name)
def test_reads_and_copies_from_the_model(r):
    own = ladder.owner_map(r)
    la, lb = ladder.loader_a(r), ladder.loader_b(r)
    for tid in (0, 1, 31, 32, r.threads - 1):
        rows, cols = thread_reads(r, tid)
        mine = np.argwhere(own == tid)
        assert sorted(set(rows)) == sorted(set(mine[:, 0])) and sorted(set(cols)) == sorted(set(mine[:, 1]))
        assert len(rows) * len(cols) == r.outputs_per_thread
        cp = copies(r, tid)
        got_a = {(m, k + c) for m, k in cp["a"] for c in range(r.vector)}
        got_b = {(k, n + c) for k, n in cp["b"] for c in range(r.vector)}
        assert got_a == {tuple(x) for x in np.argwhere(la == tid)}
        assert got_b == {tuple(x) for x in np.argwhere(lb == tid)}
        assert all(k % r.vector == 0 for _, k in cp["a"]) and all(n % r.vector == 0 for _, n in cp["b"])
        za, zb = reads_z(r, tid, 3)
        assert {tuple(x) for x in np.argwhere(za == NOW_C)} == {(m, 3) for m in rows}
        assert {tuple(x) for x in np.argwhere(zb == NOW_C)} == {(3, n) for n in cols}
        assert (za == THREAD_C).sum() == len(rows) * (r.BK - 1)
        za, zb = copies_z(r, tid)
        assert {tuple(x) for x in np.argwhere(za == NOW_C)} == got_a
    lds = shared_loads_per_k(r)
    assert lds["fma_per_lds"] == pytest.approx(r.fma_per_lds) and lds["fmas"] == r.outputs_per_thread
    reg = register_counts(r)
    assert reg["acc"] == r.outputs_per_thread


def test_warp_regions():
    two_d, warp = ladder.rung("blocktile_2d"), ladder.rung("warptile")
    box = warp_region(two_d, 0)
    assert (box["rows"], box["cols"], box["compact"]) == (2 * two_d["TM"], two_d.BN, True)
    w = warp.warp_dims
    for k in range(warp.threads // 32):
        box = warp_region(warp, k)
        assert (box["rows"], box["cols"], box["compact"]) == (w["WM"], w["WN"], True)
        subs = warp_subtiles(warp, k)
        assert len(subs) == w["WMITER"] * w["WNITER"]
        assert sum(s["rows"] * s["cols"] for s in subs) == w["WM"] * w["WN"]
    assert warp_subtiles(two_d, 0) == []


def test_as_store_bank_conflicts():
    # transposed As with rows of 128 floats: the two lanes that copy one row of A store 4*128
    # words apart, the same bank; kernel 14's padding (rows of BM + 4) separates them
    assert [as_store_conflict(r) for r in ladder.RUNGS] == [1, 1, 2, 2, 1]


def test_check_thread_and_ranges():
    r = ladder.rung("warptile")
    assert check_thread(r, "5") == 5
    for bad in (-1, 256, "x", None):
        with pytest.raises(ValueError):
            check_thread(r, bad)
    assert ranges([0, 1, 2, 3, 32, 33, 7]) == "0–3, 7, 32–33"


def test_explorer_updates_in_place_and_keeps_state_on_bad_input():
    e = LadderExplorer()
    view = e.widget
    sent = []
    view.send = lambda msg, buffers=None: sent.append(msg)
    r = ladder.rung("blocktile_1d")
    meta, a = e.data()
    assert a["owner"].shape == (r.BM, r.BN) and meta["start"] == {"thread": 0, "k": 0, "mode": "reads"}
    z = painted(a, 0, 0, "reads")["C"]  # what ladder.js paints for thread 0
    assert {tuple(x) for x in np.argwhere(z == NOW_C)} == set(zip(*ladder.thread_outputs(r, 0)))
    assert (z == WARP_C).sum() == 31 * r.outputs_per_thread
    rev = view.rev
    assert e.select(rung="warptile")
    w = ladder.rung("warptile")
    meta, a = e.data()
    assert e.widget is view and view.rev == rev + 1 and a["owner"].shape == (w.BM, w.BN)
    assert a["warp_sub"].shape[1] == w.warp_dims["WMITER"] * w.warp_dims["WNITER"]  # the dotted frames
    assert "warp tiling" in meta["info_rung"] and w.BM > w.BN  # drawn taller than wide
    assert e.select(thread=37) and sent[-1] == {"select": {"thread": 37, "k": 0, "mode": "reads"}}
    assert (a["thr_warp"][37], a["thr_lane"][37]) == (1, 5) and view.rev == rev + 1  # no new payload
    assert a["thr_rows"].shape[1] * a["thr_cols"].shape[1] == w.outputs_per_thread  # the registers table
    good = (view.rev, view.meta)
    assert not e.select(thread=999)
    assert "thread must be 0..255" in sent[-1]["error"] and "thread must be 0..255" in view.error
    assert e.tid == 37 and (view.rev, view.meta) == good  # the last good state stays
    assert not e.select(k=99) and "step k must be 0..7" in view.error
    assert e.select(k=2) and view.error == ""
    assert e.select(mode="copies") and sent[-1]["select"]["mode"] == "copies"
    assert "LDG.128" in meta["copies_head"]
    assert e.select(rung="blocktile_1d")  # 512 threads: thread 37 exists there too
    meta, _ = e.data()
    assert e.tid == 37 and meta["start"] == {"thread": 37, "k": 2, "mode": "copies"} and "LDG.32" in meta["copies_head"]


def test_click_on_c_picks_the_owner():
    # The browser picks the thread at owner[m][n] of the arrays it was sent: the model's owner.
    e = LadderExplorer(rung="blocktile_2d")
    r = ladder.rung("blocktile_2d")
    _, a = e.data()
    assert a["owner"][100, 37] == ladder.owner_map(r)[100, 37]
    assert e.select(thread=int(a["owner"][100, 37])) and e.tid == ladder.owner_map(r)[100, 37]


def test_rung_switch_resets_a_thread_that_does_not_exist():
    e = LadderExplorer(rung="blocktile_1d", thread=400)
    assert e.select(rung="blocktile_2d")  # 256 threads
    assert e.tid == 0 and e.data()[0]["start"]["thread"] == 0 and e.widget.error == ""
    e._on_msg(None, {"cmd": "kernel", "name": "blocktile_1d", "thread": 400, "k": 0, "mode": "reads"}, [])
    assert e.tid == 400 and e.data()[0]["start"]["thread"] == 400


# ---- the notebook -------------------------------------------------------------------------------
def test_notebook_is_generated_from_the_model_and_up_to_date():
    spec = importlib.util.spec_from_file_location("nb_ladder", REPO / "tools" / "nb_ladder.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    spec = importlib.util.spec_from_file_location("make_notebooks", REPO / "tools" / "make_notebooks.py")
    make = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make)
    want = make.with_nav("08_beyond_tiling.ipynb", make.prose_pages("en")["08_beyond_tiling.ipynb"])  # between its nav bars
    nb = json.loads(NOTEBOOK.read_text())
    got = [("md" if c["cell_type"] == "markdown" else "code", "".join(c["source"])) for c in nb["cells"]]
    assert got == want, "run python tools/make_notebooks.py"
    src = "\n".join(s for _, s in want)
    for r in ladder.RUNGS:  # the prose quotes the model
        assert f"rung_card(\"{r.name}\")" in src
        assert f"{r.shared_bytes:,} B" in src or f"{r.shared_bytes:,}" in src
    # kernel 14 the rung: its tiles on the SMs are the model's (the waves paragraph counts them);
    # it puts K's padding zeros in its last phase, so the page quotes no lead (K's partial phase
    # first, tiles moved back inside C: the tuning engine's kernel, tests/test_tuned_model.py)
    w = ladder.BY_NAME["warptile"]
    for n in (4096, 1024):
        gx, gy = w.grid(n, n)
        assert f"{gx * gy} blocks" in src, n
    assert w.lead(1100) == 0 and not w.splits_k
    assert "lead = " not in src


def test_notebook_calls_exist():
    src = NOTEBOOK.read_text()
    called = set(re.findall(r"\bladder\.(\w+)\(", src))
    assert called == {"ladder_chart", "rung_table", "mapping", "planner", "devices", "rung_card", "roofline"}
    for name in called:
        assert callable(getattr(pages_ladder, name))


def test_page_is_listed_and_not_preheated():
    from explainer.app import serve

    assert ("08_beyond_tiling.ipynb" in [p[0] for p in pages.PAGES])
    assert 'href="08_beyond_tiling.ipynb"' in pages.index().value
    assert re.match(serve.NOT_PREHEATED, "notebooks/08_beyond_tiling.ipynb")


def test_two_devices_side_by_side_from_their_own_files():
    """The pages describe the device of the device record (H100); the H200's recording is shipped
    too, and page 08's table shows both: each cell equal to that device's own row, the ratio of
    their medians, each device's facts from its file; with one device it says how to add one."""
    files = records.recorded_by_device()
    assert files[0] is not None and files[0]["device"]["name"] == records.pages_device()
    assert records.load_recorded()["source"] == files[0]["source"]
    names = [d["device"]["name"] for d in files]
    assert len(names) >= 2 and len(set(names)) == len(names) and any("H200" in n for n in names)
    out = pages_ladder.devices_html(files[:2], (1024, 4096))
    cells = pages_ladder.device_cells(files[:2], (1024, 4096))
    warp = next(c for c in cells if c["kernel"] == "warptile")
    for dev, data in zip(warp["devices"], files[:2]):
        row = next(r for r in records.recorded_rows(data, kernel="warptile", size=4096))
        assert dev[4096]["median_ms"] == row["median_ms"]
        assert f"<b>{row['gflops']:,.0f}</b> GFLOP/s" in out
    ratio = warp["devices"][1][4096]["median_ms"] / warp["devices"][0][4096]["median_ms"]
    assert f"{ratio:.2f}" in out
    for d in files[:2]:
        assert f"{d['device']['sm_count']} SMs" in out and d["source"] in out
    one = pages_ladder.devices_html(files[:1])
    assert "Only one device is recorded" in one and "bench --save" in one


def test_a_comment_edit_keeps_a_kernels_fingerprint_and_a_code_edit_changes_it():
    """Recordings fingerprint the kernels' code, not their comments: rewording a header comment
    does not mark a measurement stale; changing one token of code does."""
    src = (REPO / "kernels" / "03_tiled.cu").read_text()
    code = records.code_only(src)
    assert "Run it" not in code and "__global__" in code
    assert records.code_only(src.replace("// ", "//   ") + "\n/* a note\n   over lines */\n\n") == code
    assert records.code_only(src.replace("const int b_row = t * TILE + ty;", "const int b_row = t * TILE + tx;")) != code
    assert records.code_only('printf("a // b");  // c\n') == 'printf("a // b");'


def test_each_device_says_whether_it_measured_the_kernels_shipped_now():
    """A recording keeps the kernel sources' fingerprint; page 08 says per device whether they are
    the ones shipped now, names the files changed since, and says so where a file keeps none."""
    import copy
    import html

    files = [copy.deepcopy(d) for d in records.recorded_by_device()[:2]]
    files[0]["kernels"] = records.kernel_fingerprint()
    files[1]["kernels"] = {**records.kernel_fingerprint(), "14_warptile.cu": "0" * 16}
    out = html.unescape(pages_ladder.devices_html(files, (1024, 4096)))
    assert "measured with the kernel sources shipped now" in out
    assert "measured before a change to 14_warptile.cu" in out
    files[1].pop("kernels")
    out = html.unescape(pages_ladder.devices_html(files, (1024, 4096)))
    assert "kernel sources not fingerprinted" in out and "change to" not in out


def test_the_ladders_labels_follow_the_language_whatever_was_imported_first():
    """Labels are built when a page asks, in its language (built once at import, the first
    language would have stayed: a Chinese page showed "10 · 1D block tiling")."""
    from explainer import i18n

    with i18n.using("zh-CN"):
        zh = [r["label"] for r in pages_ladder.ladder_rungs()]
    en = [r["label"] for r in pages_ladder.ladder_rungs()]
    assert zh != en and en[1].endswith("1D block tiling")
    assert re.search(r"[\u4e00-\u9fff]", zh[1]) and zh[0] == en[0] and zh[-1] == en[-1] == "cuBLAS"
