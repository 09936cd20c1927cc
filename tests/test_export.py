"""``tiled-explainer export``: every page as static files, opened from ``file://`` in Chromium
with every other request refused. The steppers step with no kernel, on the payloads Python
embedded, and show what ``explainer.model`` answers; what is not embedded says it needs the
live app."""

from __future__ import annotations

import base64
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from explainer.app import export

from explainer import resources
from explainer.model import Launch, steps
from explainer.views import tiled as tv
from explainer.views.common import PINNED
from explainer.views.payload import unpack

STEPPER = ".explainer-stepper"
LABEL = f"{STEPPER} .explainer-step-label"
SUM = f"{STEPPER} .explainer-sum"
VIEW = f"document.querySelector('{STEPPER}').explainerView"


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("static")
    lines: list[str] = []
    export.export(out, log=lines.append)
    nb = resources.notebooks_dir()
    assert len(lines) == len(export.page_list(nb)) + len(export.page_list(nb / "zh-CN"))  # both languages
    return out


def _state(html: str, n: int = 0) -> dict:
    m = re.search(rf'<script type="application/json" id="ex-state-{n}">(.*?)</script>', html, re.S)
    return json.loads(m.group(1).replace("<\\/", "</"))


# ---- the files --------------------------------------------------------------------------------
def test_every_notebook_is_a_page_and_the_links_resolve(exported):
    notebooks = sorted(p.name for p in resources.notebooks_dir().glob("[0-9][0-9]_*.ipynb"))
    for nb in notebooks:
        page = exported / export.page_file(nb)
        assert page.is_file(), nb
        text = page.read_text(encoding="utf-8")
        for href in re.findall(r'href="([^"#]+)', text):
            if href.startswith(("http://", "https://", "mailto:")):
                continue  # a link a reader may follow, never loaded by the page
            assert (exported / href).is_file(), f"{nb}: broken link {href}"
        # Nothing the page loads comes from outside: scripts, styles, images, fonts.
        for url in re.findall(r'(?:src|href)="([^"]+)"', text):
            if url.startswith(("http://", "https://", "//")):
                assert not re.search(rf'<(?:script|link|img|iframe)[^>]*(?:src|href)="{re.escape(url)}"', text), (nb, url)
        assert ".ipynb\"" not in text, f"{nb} still links a notebook"
    index = (exported / "index.html").read_text(encoding="utf-8")
    assert 'href="02_tiled.html"' in index and "static pages" in index
    # plotly.js: each page with a chart loads one file of the assets, the basic bundle where its charts allow
    pages = [export.page_file(nb) for nb in notebooks]
    charted = [p for p in pages if "plotly-graph-div" in (exported / p).read_text(encoding="utf-8")]
    assert len(charted) >= 5, charted
    same = export.basic_bundle_matches()
    for nb in charted:
        src = re.findall(r'<script src="assets/(plotly[^"]*\.js)"', (exported / nb).read_text(encoding="utf-8"))
        assert src == (["plotly-basic.min.js"] if same else ["plotly.min.js"]), (nb, src)
        assert (exported / "assets" / src[0]).stat().st_size > 1_000_000
    assert "https://" not in (exported / "assets" / "page.css").read_text()


def test_the_tiled_page_embeds_the_models_payloads(exported):
    text = (exported / "02_tiled.html").read_text(encoding="utf-8")
    state = _state(text)
    store = state["store"]
    assert state["traits"]["live"] is False
    assert sum(len(base64.b64decode(p["b64"])) for p in store["payloads"]) <= tv.STATIC_BUDGET
    # Every preset is answered, by the payload the model gives for its launch and block.
    from explainer.views.stepper import TiledStepper

    for name, (M, N, K, T, block, thread) in TiledStepper.PRESETS.items():
        entry = store["presets"][f"tiled|{name}"]
        L = Launch("tiled", M, N, K, T)
        assert entry["key"] == tv.state_key("tiled", L, block)
        assert entry["thread"] == thread[0] + thread[1] * T
        p = store["payloads"][store["states"][entry["key"]]]
        meta, arrays = tv.tiled_data(L, block, thread, exercise=True)  # page 02 holds its "Your turn"
        got = unpack(p["meta"]["arrays"], base64.b64decode(p["b64"]))
        assert set(got) == set(arrays)
        for k in arrays:
            np.testing.assert_array_equal(got[k], arrays[k], err_msg=f"{name}: {k}")
    # A small launch is stored whole: every block of 8x8x8 T=4.
    small = [k for k in store["states"] if k.startswith("tiled|8|8|8|4|")]
    assert len(small) == 4


def test_barriers_page_stores_each_variant(exported):
    store = _state((exported / "04_barriers.html").read_text(encoding="utf-8"))["store"]
    from explainer.pages.edges import VARIANTS

    for k in VARIANTS:
        assert tv.state_key(k, Launch(k, 8, 8, 8, 4), (1, 0)) in store["states"], k


def test_export_command_line(tmp_path):
    target = tmp_path / "a-file"
    target.write_text("x")
    r = subprocess.run([sys.executable, "-m", "explainer.app.cli", "export", str(target)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "not a folder" in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    r = subprocess.run([sys.executable, "-m", "explainer.app.cli", "export", str(tmp_path / "o"), "--budget-mb", "0"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "--budget-mb" in r.stderr and not (tmp_path / "o").exists()


# ---- in the browser, from file:// -------------------------------------------------------------


def label(page) -> str:
    return " ".join(page.locator(LABEL).inner_text().split())


def colours(page, grid):
    return page.evaluate(f"() => {VIEW}.colours('{grid}')")


def _apply(page, **fields):
    """Type the fields (M, N, K, "tile T", "blockIdx.x", ...) and press Apply."""
    for name, value in fields.items():
        page.locator(f"{STEPPER} input[data-field='{name}']").fill(str(value))
    page.locator(f"{STEPPER} .explainer-edited").filter(has_text="Apply").wait_for(timeout=5_000)
    page.locator(f"{STEPPER} button.explainer-apply").click()


@pytest.mark.browser
def test_exported_tiled_page_steps_from_file(exported, file_page, page_errors):
    page = file_page
    page.goto((exported / "02_tiled.html").as_uri())
    page.locator(LABEL).filter(has_text="step 1 of").wait_for(timeout=10_000)
    # The page opens on the small launch, where every cell is readable.
    small, block, thread = Launch("tiled", 8, 8, 8, 4), (1, 0), (1, 2)
    st = steps(small)
    assert label(page) == f"{tv.step_label(small, block, st[0])} step 1 of {len(st)}"

    # Next: load B of phase 0; thread (1, 2) stores Bs[2][1].
    page.locator(f"{STEPPER} .explainer-next").click()
    page.locator(LABEL).filter(has_text="step 2 of").wait_for(timeout=5_000)
    assert label(page).startswith(tv.step_label(small, block, st[1]))
    assert colours(page, "Bs")[2][1] == PINNED

    # Click C[5][2], in another block of the small launch: the page holds it, the model's owner is pinned.
    (obx, oby), (otx, oty) = small.c_owner(5, 2)
    assert (obx, oby) != block
    meta, _ = tv.tiled_data(small, block, thread)
    at = page.evaluate(f"([r, c]) => {VIEW}.centre('C', r, c)", [5 - meta["mwin"][0], 2 - meta["nwin"][0]])
    page.mouse.click(at["x"], at["y"])
    page.locator(LABEL).filter(has_text=f"block (x={obx}, y={oby})").wait_for(timeout=5_000)
    page.locator(SUM).filter(has_text=f"thread (x={otx}, y={oty})").wait_for(timeout=5_000)

    # The gemm_tiled walk-through's 1024^3 is one choice away, answered from the page's store.
    page.locator(f"{STEPPER} select.explainer-preset").select_option(index=1)
    L, block = Launch("tiled", 1024, 1024, 1024, 16), (2, 1)
    page.locator(LABEL).filter(has_text=f"step 1 of {len(steps(L))}").wait_for(timeout=5_000)
    assert label(page).startswith(tv.step_label(L, block, steps(L)[0]))
    # Click C[21][41]: the model's owner is thread (9, 5) of this block.
    meta, arrays = tv.tiled_data(L, block, (4, 3))
    r, c = 21 - meta["mwin"][0], 41 - meta["nwin"][0]
    assert tuple(arrays["thread_xy"][arrays["c_owner"][r, c, 2]]) == (9, 5)
    at = page.evaluate(f"([r, c]) => {VIEW}.centre('C', r, c)", [r, c])
    page.mouse.click(at["x"], at["y"])
    page.locator(SUM).filter(has_text="thread (x=9, y=5)").wait_for(timeout=5_000)

    # The blocks the page holds for it, named from the model: a corner, an edge and the interior.
    menu = page.locator(f"{STEPPER} select.explainer-stored-blocks")
    options = [o.strip() for o in menu.locator("option").all_inner_texts()]
    held = [tuple(map(int, v.split(","))) for v in menu.locator("option").evaluate_all("os => os.map(o => o.value)")]
    assert options == [f"(x={x}, y={y}) · {L.block_place(x, y)}" for x, y in held]
    assert {L.block_place(x, y).split(",")[0] for x, y in held} >= {"corner", "edge", "interior"}
    corner = next(b for b in held if L.block_place(*b) == "corner")
    menu.select_option(f"{corner[0]},{corner[1]}")
    page.locator(LABEL).filter(has_text=f"block (x={corner[0]}, y={corner[1]})").wait_for(timeout=5_000)
    # A C cell of a block the page does not hold says so on hover, and a click says which it holds.
    meta, arrays = tv.tiled_data(L, corner, (0, 0))
    cell = next((r, c) for r in range(arrays["c_owner"].shape[0]) for c in range(arrays["c_owner"].shape[1])
                if tuple(arrays["c_owner"][r, c, :2]) not in held and arrays["c_owner"][r, c, 2] >= 0)
    at = page.evaluate(f"([r, c]) => {VIEW}.centre('C', r, c)", list(cell))
    page.mouse.move(at["x"], at["y"])
    page.locator(f"{STEPPER} .explainer-tip").filter(has_text="not held in this static page").wait_for(timeout=5_000)
    page.mouse.click(at["x"], at["y"])
    error = page.locator(f"{STEPPER} .explainer-error")
    error.filter(has_text="Blocks held for this launch").wait_for(timeout=5_000)
    assert all(f"({x}, {y})" in error.inner_text() for x, y in held)

    # Typing is committed as a whole launch: nothing is asked until Apply.
    before = label(page)
    for name, value in (("M", 8), ("N", 8), ("K", 8), ("tile T", 4), ("blockIdx.x", 0), ("blockIdx.y", 1)):
        page.locator(f"{STEPPER} input[data-field='{name}']").fill(str(value))
    assert label(page) == before
    page.locator(f"{STEPPER} input[data-field='blockIdx.y']").press("Enter")
    page.locator(LABEL).filter(has_text=f"step 1 of {len(steps(small))}").wait_for(timeout=5_000)
    assert label(page).startswith(tv.step_label(small, (0, 1), steps(small)[0]))
    assert error.inner_text().strip() == ""  # the earlier failure's line went with the success

    # A launch the page does not hold: one line that names those it holds; the last good state stays.
    before = label(page)
    _apply(page, M=37, N=8)
    error.filter(has_text="live app").wait_for(timeout=5_000)
    assert "Launches held here:" in error.inner_text() and "8×8×8, T=4" in error.inner_text()
    assert label(page) == before
    assert [page.locator(f"{STEPPER} input[data-field='{n}']").input_value() for n in ("M", "N")] == ["8", "8"]
    # then a block the page does store: it loads, and the "live app" line goes with the failure
    _apply(page, **{"blockIdx.x": 1})
    page.locator(LABEL).filter(has_text="block (x=1, y=1)").wait_for(timeout=5_000)
    assert error.inner_text().strip() == ""
    assert page.outside == [] and page_errors == []


@pytest.mark.browser
def test_exported_barriers_page_switches_kernel_offline(exported, file_page, page_errors):
    page = file_page
    page.goto((exported / "04_barriers.html").as_uri())
    page.locator(LABEL).filter(has_text="step 1 of").wait_for(timeout=10_000)
    page.locator(f"{STEPPER} select.explainer-kernel").select_option("tiled_no_barrier2")
    page.locator(f"{STEPPER} .explainer-code").filter(has_text="tiled_no_barrier2_gemm").wait_for(timeout=5_000)
    assert page.evaluate(f"() => {VIEW}.state().kernel") == "tiled_no_barrier2"
    assert page.outside == [] and page_errors == []


@pytest.mark.browser
def test_exported_naive_page_pins_and_switches_mapping_from_file(exported, file_page, page_errors):
    from explainer.views import naive as nv

    page = file_page
    page.goto((exported / "01_naive.html").as_uri())
    naive = ".explainer-naive"
    text = page.locator(f"{naive} .explainer-naive-text")
    text.filter(has_text="block (x=2, y=1), thread (x=4, y=3)").wait_for(timeout=10_000)
    L = Launch("naive", 1024, 1024, 1024, 16)
    meta, _ = nv.naive_data(L, (2, 1))
    view = f"document.querySelector('{naive}').explainerView"
    # Click C[40][37]: the model's owner is thread (5, 8) of block (2, 2).
    (block, thread) = L.c_owner(40, 37)
    page.locator(f"{naive} canvas[data-grid='C']").scroll_into_view_if_needed()
    at = page.evaluate(f"([r, c]) => {view}.centre('C', r, c)", [40 - meta["mwin"][0], 37 - meta["nwin"][0]])
    page.mouse.click(at["x"], at["y"])
    text.filter(has_text=f"block (x={block[0]}, y={block[1]}), thread (x={thread[0]}, y={thread[1]})").wait_for(timeout=5_000)
    assert "computes C[40][37]" in text.inner_text()
    # The other mapping comes from the page's store: the same thread computes another element.
    page.locator(f"{naive} .explainer-kernel button[data-value='naive_col']").click()
    col = Launch("naive_col", 1024, 1024, 1024, 16).thread(block, thread).c
    text.filter(has_text=f"computes C[{col[0]}][{col[1]}]").wait_for(timeout=5_000)
    assert page.evaluate(f"() => {view}.state()") == {"block": list(block), "thread": list(thread), "kernel": "naive_col"}
    # A far block is not stored: one line, the last good state stays.
    before = text.inner_text()
    for name, value in (("blockIdx.x", "60"), ("blockIdx.y", "60")):
        f = page.locator(f"{naive} input[data-field='{name}']")
        f.fill(value)
        f.dispatch_event("change")
    page.locator(f"{naive} .explainer-error").filter(has_text="live app").wait_for(timeout=5_000)
    assert text.inner_text() == before
    assert page.outside == [] and page_errors == []


@pytest.mark.browser
def test_exported_warps_page_pins_and_changes_block_size_from_file(exported, file_page, page_errors):
    page = file_page
    page.goto((exported / "05_warps_and_coalescing.html").as_uri())
    info = page.locator(".explainer-warps .explainer-warp-info")
    info.filter(has_text="warp 1, lane 20").wait_for(timeout=10_000)
    view = "document.querySelector('.explainer-warps').explainerView"
    page.locator(".explainer-warps .explainer-warp-map").scroll_into_view_if_needed()
    at = page.evaluate(f"() => {view}.centre(0, 2)")
    page.mouse.click(at["x"], at["y"])
    info.filter(has_text="warp 0, lane 2").wait_for(timeout=5_000)
    # Every block size is stored at the page's block.
    page.locator(".explainer-warps select.explainer-tile").select_option("8")
    info.filter(has_text="of a 8×8 block").wait_for(timeout=5_000)
    # Another loop step needs Python: one line, the state stays.
    k = page.locator(".explainer-warps input[data-field='k / phase t']")
    k.fill("3")
    k.dispatch_event("change")
    page.locator(".explainer-warps .explainer-error").filter(has_text="live app").wait_for(timeout=5_000)
    assert page.evaluate(f"() => {view}.state()")["k"] == 0 and k.input_value() == "0"
    assert page.outside == [] and page_errors == []


def _full_plotly(tmp_path, version: str) -> Path:
    """A stand-in for plotly's plotly.min.js that names ``version`` in its header."""
    path = tmp_path / "plotly.min.js"
    path.write_text(f"/**\n* plotly.js v{version}\n* Licensed under the MIT license\n*/\n")
    return path


def test_a_page_loads_the_basic_bundle_only_for_its_traces_and_its_version(tmp_path, monkeypatch):
    """The basic bundle draws scatter, bar and pie; any other trace, or a plotly whose plotly.js
    is another version than the bundle's, takes the whole plotly.min.js."""
    version = export.plotly_js_version(export.BASIC_BUNDLE)
    assert re.fullmatch(r"\d+\.\d+\.\d+", version or ""), version
    assert export.plotly_js_version(export.full_bundle_path())  # plotly's own names its version too
    monkeypatch.setattr(export, "full_bundle_path", lambda: _full_plotly(tmp_path, version))
    assert export.chart_bundle({"scatter", "bar"}) == export.chart_bundle({"pie"}) == "plotly-basic.min.js"
    assert export.chart_bundle({"scatter", "heatmap"}) == export.chart_bundle({"scatter3d"}) == "plotly.min.js"
    major, minor, patch = version.split(".")
    monkeypatch.setattr(export, "full_bundle_path", lambda: _full_plotly(tmp_path, f"{major}.{minor}.{int(patch) + 1}"))
    assert export.chart_bundle({"scatter"}) == "plotly.min.js"


def test_a_heatmap_page_gets_the_whole_plotly_and_a_bar_page_the_basic_one(tmp_path):
    """Each bundle is copied into the assets once, when a page loads it; a page without charts
    loads neither."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    src = tmp_path / "nb"
    src.mkdir()
    pages = {"00_index.ipynb": None, "01_bars.ipynb": "go.Bar(x=[1, 2], y=[3, 4])",
             "02_heat.ipynb": "go.Heatmap(z=[[1, 2], [3, 4]])", "03_more_bars.ipynb": "go.Bar(x=[1], y=[2])"}
    for name, trace in pages.items():
        cells = [new_markdown_cell(f"# {name[3:-6]}")]
        if trace:
            cells.append(new_code_cell(f"import plotly.graph_objects as go\ngo.Figure({trace})"))
        nbformat.write(new_notebook(cells=cells), src / name)
    out = tmp_path / "site"
    written = export.export(out, notebooks=src, log=lambda *_: None, langs=("en",))
    scripts = {p.name: re.findall(r'<script src="assets/([^"]+)"', p.read_text(encoding="utf-8"))
               for p in written if p.suffix == ".html"}
    same = export.basic_bundle_matches()
    basic = "plotly-basic.min.js" if same else "plotly.min.js"
    assert scripts == {"index.html": [], "01_bars.html": [basic], "02_heat.html": ["plotly.min.js"],
                       "03_more_bars.html": [basic]}
    assert sorted(p.name for p in (out / "assets").glob("*.js")) == sorted({basic, "plotly.min.js"})
    assert [p.name for p in written].count(basic) == 1


@pytest.mark.browser
def test_the_basic_bundle_draws_the_traces_said_and_the_pages_charts(exported, file_page, page_errors):
    """The vendored bundle, loaded as the pages load it, registers exactly BASIC_TRACES, and every
    exported page's charts draw with the file it loads."""
    page = file_page
    charted = [p for p in sorted(exported.glob("*.html")) + sorted(exported.glob("zh-CN/*.html"))
               if "plotly-graph-div" in p.read_text(encoding="utf-8")]
    page.goto(charted[0].as_uri())
    page.wait_for_load_state("load")
    if "plotly-basic.min.js" in charted[0].read_text(encoding="utf-8"):
        traces = page.evaluate("() => Object.keys(Plotly.PlotSchema.get().traces)")
        assert set(traces) == export.BASIC_TRACES, traces
    for p in charted:
        page.goto(p.as_uri())
        page.wait_for_function("() => [...document.querySelectorAll('.js-plotly-plot')].every("
                               "(e) => e._fullLayout && e.querySelector('.main-svg g.trace'))", timeout=15_000)
        kinds = page.evaluate("() => [...document.querySelectorAll('.js-plotly-plot')].flatMap("
                              "(e) => e._fullData.map((t) => t.type))")
        assert kinds and set(kinds) <= export.BASIC_TRACES | {"heatmap"}, (p.name, kinds)
    assert page.outside == [] and page_errors == []


@pytest.mark.browser
@pytest.mark.parametrize("name", ["index.html", "05_warps_and_coalescing.html",
                                  "07_arithmetic_intensity_and_roofline.html", "08_beyond_tiling.html"])
def test_exported_pages_open_without_errors(exported, file_page, page_errors, name):
    page = file_page
    page.goto((exported / name).as_uri())
    page.wait_for_load_state("load")
    if "plotly-graph-div" in (exported / name).read_text(encoding="utf-8"):
        page.locator(".js-plotly-plot .main-svg").first.wait_for(timeout=10_000)
    assert "Traceback" not in page.locator("body").inner_text()
    assert page.outside == [] and page_errors == []


# ---- contents / previous / next ------------------------------------------------------------------
NAV = "nav.explainer-nav"


def test_every_exported_page_has_the_bar_at_top_and_bottom(exported):
    from explainer.pages import navigation

    for nb, _ in navigation.sequence():
        text = (exported / export.page_file(nb)).read_text(encoding="utf-8")
        main = text[text.index("<main>"):text.index('<footer class="ex-footer">')]
        main = re.sub(r'<script type="application/json" id="ex-state-\d+">.*?</script>', "", main, flags=re.S)
        bar = f'<div class="ex-out"><div class="ex-html">{export._relink(navigation.nav_html(nb))}</div></div>'
        assert main.count("<nav ") == 2, nb
        assert main.startswith("<main>" + bar) and main.endswith(bar), nb  # first and last


@pytest.mark.browser
def test_exported_nav_goes_next_and_to_the_contents_from_file(exported, file_page, page_errors):
    page = file_page
    page.goto((exported / "02_tiled.html").as_uri())
    page.locator(f"{NAV} a.explainer-nav-next").first.click()  # the top bar
    page.wait_for_url("**/03_boundaries.html", timeout=10_000)
    assert page.locator(f"{NAV} .explainer-nav-here").first.inner_text().startswith("Page 3 of ")
    page.locator(f"{NAV} a.explainer-nav-contents").last.click()  # the bottom bar
    page.wait_for_url("**/index.html", timeout=10_000)
    page.locator(f"{NAV} a.explainer-nav-next").first.wait_for(timeout=10_000)
    assert page.locator(f"{NAV} a.explainer-nav-prev").count() == 0
    page.keyboard.press("ArrowRight")  # the arrows are the steppers': no page turns on them
    page.wait_for_timeout(300)
    assert page.url == (exported / "index.html").as_uri()
    assert page.outside == [] and page_errors == []


# ---- served by `tiled-explainer serve`: the static door and its live twin ---------------------
def _wait_static(server, page: str, timeout: float = 120.0) -> str:
    """The static page's URL once serve has exported every page (it builds them beside Voila's
    start and then says where they are)."""
    import time

    deadline = time.monotonic() + timeout
    while True:
        m = re.search(r"Static pages [^:]*: (\S+)/index\.html", server.log_tail(1_000_000))
        if m:
            assert m.group(1) == f"{server.url}/voila/files/site"
            return f"{m.group(1)}/{page}"
        if time.monotonic() > deadline:
            raise AssertionError(f"serve did not announce its static pages within {timeout:.0f} s\n{server.log_tail()}")
        time.sleep(0.5)


def test_serve_shows_static_pages_but_not_the_notebooks(voila_server):
    import urllib.error
    import urllib.request

    _wait_static(voila_server, "index.html")
    for path in ("02_tiled.ipynb", "site/../02_tiled.ipynb", "00_index.ipynb"):
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(f"{voila_server.url}/voila/files/{path}", timeout=10)
        assert e.value.code in (403, 404), path


@pytest.mark.browser
def test_served_static_page_steps_and_links_its_live_twin(voila_server, browser_page, page_errors):
    page = browser_page
    frames: list[str] = []
    page.on("websocket", lambda ws: frames.append(ws.url))
    page.goto(_wait_static(voila_server, "02_tiled.html"))
    page.locator(LABEL).filter(has_text="step 1 of").wait_for(timeout=20_000)
    page.locator(f"{STEPPER} .explainer-next").click()
    page.locator(LABEL).filter(has_text="step 2 of").wait_for(timeout=5_000)
    assert frames == []  # the static door starts no kernel
    link = page.locator("a.ex-live-link")
    assert link.get_attribute("href") == "../../render/02_tiled.ipynb"
    link.click()
    page.wait_for_url("**/voila/render/02_tiled.ipynb", timeout=20_000)
    page.locator(LABEL).filter(has_text="step 1 of").wait_for(timeout=120_000)
    assert page_errors == []


@pytest.mark.browser
def test_exported_ladder_page_picks_and_switches_rung_from_file(exported, file_page, page_errors):
    from explainer.model import ladder
    from explainer.views.ladder_maps import block_tile_z, reads_z

    page = file_page
    page.goto((exported / "08_beyond_tiling.html").as_uri())
    sel = ".explainer-ladder-view"
    view = f"document.querySelector('{sel}').explainerView"
    first, last = ladder.RUNGS[0], ladder.RUNGS[-1]
    page.locator(f"{sel} canvas[data-grid='C']").wait_for(timeout=10_000)
    assert page.evaluate(f"() => {view}.state()") == {"rung": first.name, "thread": 0, "k": 0, "mode": "reads"}
    # Click C(50, 9): the model's owner of that output.
    owner = int(ladder.owner_map(first)[50, 9])
    page.locator(f"{sel} canvas[data-grid='C']").scroll_into_view_if_needed()
    at = page.evaluate(f"([r, c]) => {view}.centre('C', r, c)", [50, 9])
    page.mouse.click(at["x"], at["y"])
    info = page.locator(f"{sel} .explainer-ladder-info")
    info.filter(has_text=f"thread {owner} = warp {owner // 32}, lane {owner % 32}").wait_for(timeout=5_000)
    assert page.evaluate(f"() => {view}.colours('C')") == block_tile_z(first, owner).tolist()
    # Another rung, answered from the page's store: thread 0 (the owner is past its 256 threads).
    assert owner >= last.threads
    page.locator(f"{sel} .explainer-ladder-rung button[data-value='{last.name}']").click()
    info.filter(has_text=last.title).wait_for(timeout=5_000)
    assert page.evaluate(f"() => {view}.state()") == {"rung": last.name, "thread": 0, "k": 0, "mode": "reads"}
    assert page.evaluate(f"() => {view}.colours('A')") == reads_z(last, 0, 0)[0].tolist()
    assert page.locator(f"{sel} .explainer-ladder-error").inner_text().strip() == ""
    assert page.outside == [] and page_errors == []


@pytest.mark.browser
def test_exported_tensor_page_steps_with_no_kernel(exported, file_page, page_errors):
    """Page 09 from file://: the fragment explorer pins a lane and steps k, the pipeline steps,
    and another warp comes from the payloads embedded in the page; kernel 17's mbarrier stepper steps."""
    from explainer.model import hopper, mma
    from explainer.views import handover as hv
    from explainer.views import mma as vm
    from explainer.views import pipeline as pv

    page = file_page
    page.goto((exported / "09_tensor_cores.html").as_uri())
    view = "document.querySelector('.explainer-mma').explainerView"
    page.locator(".explainer-mma canvas[data-grid='C']").wait_for(timeout=10_000)
    _, a = vm.mma_data(0)
    owner = int(a["lane_c"][5, 9])
    page.locator(".explainer-mma canvas[data-grid='C']").scroll_into_view_if_needed()
    at = page.evaluate(f"() => {view}.centre('C', 5, 9)")
    page.mouse.click(at["x"], at["y"])
    page.locator("body").press("ArrowRight")
    page.wait_for_function(f"() => {view}.state().lane === {owner} && {view}.state().step === 1", timeout=10_000)
    page.locator(".explainer-pipeline-next").click()
    assert page.evaluate("() => document.querySelector('.explainer-pipeline').explainerView.buffers()") == \
        list(mma.pipeline(pv.K_DEFAULT)[1].state)
    page.locator(".explainer-handover-next").click()
    assert page.evaluate("() => document.querySelector('.explainer-handover').explainerView.stages()") == \
        list(hopper.schedule(hv.K_DEFAULT)[1].state)
    page.locator("select.explainer-mma-warp").select_option("warp 2")
    page.wait_for_function(f"() => {view}.state().warp === 2", timeout=10_000)
    assert page.outside == [] and page_errors == []


@pytest.mark.browser
def test_served_static_nav_stays_among_the_static_pages(voila_server, browser_page, page_errors):
    page = browser_page
    page.goto(_wait_static(voila_server, "02_tiled.html"))
    page.locator(f"{NAV} a.explainer-nav-next").first.click()
    page.wait_for_url(f"{voila_server.url}/voila/files/site/03_boundaries.html", timeout=20_000)
    page.locator(f"{NAV} a.explainer-nav-contents").last.click()
    page.wait_for_url(f"{voila_server.url}/voila/files/site/index.html", timeout=20_000)
    assert page.outside == [] and page_errors == []


# ---- both languages (explainer.i18n) --------------------------------------------------------------
def test_export_writes_both_languages_within_the_budget(tmp_path):
    """English in DIR/, 简体中文 in DIR/zh-CN/ (the translated pages: index, page 01, glossary), each
    page within the static pages' size budget, its links resolving inside the export (an untranslated
    page's link goes up to its English twin) and nothing loaded from outside; --lang picks one."""
    nb = resources.notebooks_dir()
    src = tmp_path / "nb"
    (src / "zh-CN").mkdir(parents=True)
    for name in ("00_index.ipynb", "01_naive.ipynb", "glossary.ipynb"):
        (src / name).write_bytes((nb / name).read_bytes())
        (src / "zh-CN" / name).write_bytes((nb / "zh-CN" / name).read_bytes())
    out = tmp_path / "site"
    written = export.export(out, notebooks=src, log=lambda *_: None)
    pages = [p for p in written if p.suffix == ".html"]
    assert {p.relative_to(out).as_posix() for p in pages} == {
        "index.html", "01_naive.html", "glossary.html", "zh-CN/index.html", "zh-CN/01_naive.html", "zh-CN/glossary.html"}
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert len(text.encode()) <= 3 * 1024 * 1024 * 1.1, f"{page.name}: {len(text.encode()):,} bytes"
        zh = page.parent.name == "zh-CN"
        assert f'<html lang="{"zh-CN" if zh else "en"}">' in text
        assert ('href="../assets/page.css"' if zh else 'href="assets/page.css"') in text
        for href in re.findall(r'href="([^"#]+)', text):
            target = (page.parent / href).resolve()
            if target.name[:2] in ("00", "01") or target.name in ("index.html", "glossary.html") or "assets" in href:
                assert target.is_file(), f"{page}: broken link {href}"
        assert not re.search(r'<(?:script|link|img|iframe)[^>]*(?:src|href)="(?:https?:)?//', text), page
    zh01 = (out / "zh-CN" / "01_naive.html").read_text(encoding="utf-8")
    assert 'href="../01_naive.html" class="explainer-nav-lang"' in zh01
    assert 'href="02_tiled.html"' in zh01  # every page is translated: the bar's "next" stays in Chinese
    assert "朴素核函数" in zh01 and "这需要在线应用" not in zh01[:200]
    # --lang: one language only
    r = subprocess.run([sys.executable, "-m", "explainer.app.cli", "export", str(tmp_path / "o"), "--lang", "xx"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "--lang" in r.stderr
    only = export.export(tmp_path / "zh", notebooks=src, log=lambda *_: None, langs=("zh-CN",))
    assert {p.relative_to(tmp_path / "zh").as_posix() for p in only if p.suffix == ".html"} == {
        "zh-CN/index.html", "zh-CN/01_naive.html", "zh-CN/glossary.html"}
