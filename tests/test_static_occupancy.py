"""Page 06's occupancy calculator works in the exported static page: the page embeds a table the
model computed (:func:`explainer.views.perf.occupancy_table`, within the export's byte budget),
the browser only looks answers up, and what it shows for a set of inputs is what the live
calculator shows for them. A refused input says why in one line, which goes with the next input
that works."""

from __future__ import annotations

import base64
import json
import re

import pytest
from conftest import export_pages

from explainer.model import hardware
from explainer.views import perf
from explainer.views.payload import unpack
from explainer.views.store import STATIC_BUDGET

NB = "06_tile_size_and_occupancy.ipynb"
OCC = ".explainer-occupancy"


@pytest.fixture(scope="module")
def page06(tmp_path_factory):
    return export_pages(tmp_path_factory, NB) / "06_tile_size_and_occupancy.html"


def _occupancy_state(html: str) -> dict:
    m = re.search(r'data-explainer-view="occupancy" data-state="(ex-state-\d+)"', html)
    assert m, "page 06 exports its calculator as a browser view"
    s = re.search(rf'<script type="application/json" id="{m.group(1)}">(.*?)</script>', html, re.S)
    return json.loads(s.group(1).replace("<\\/", "</"))


def _lookup(meta, arrays, arch, threads, smem, regs):
    """What the browser looks up for these inputs (occupancy.js does the same indexing)."""
    a = [k for k, _ in meta["arches"]].index(arch)
    t, s, r = meta["threads"].index(threads), meta["smem"].index(smem), meta["regs"].index(regs)
    return meta["outcomes"][a][arrays["cell"][a, t, s, r]], (a, t, s, r)


def test_the_embedded_table_is_the_models_answer_for_every_offered_input(page06):
    state = _occupancy_state(page06.read_text(encoding="utf-8"))
    (payload,) = state["store"]["payloads"]
    meta, raw = payload["meta"], base64.b64decode(payload["b64"])
    assert len(raw) <= STATIC_BUDGET and len(raw) < 256 << 10, len(raw)  # small next to the budget
    arrays = unpack(meta["arrays"], raw)
    assert meta["threads"] == list(range(32, 1025, 32))
    assert {0, 512, 2048, 8192, 16384, 49152, 232448} <= set(meta["smem"])
    assert {0, 8, 16, 32, 63, 64, 248, 255} <= set(meta["regs"]) and len(meta["regs"]) <= 40
    checked = refused = 0
    for arch in hardware.arches():
        for threads in meta["threads"]:
            for smem in meta["smem"]:
                for regs in meta["regs"]:
                    got, (a, t, s, r) = _lookup(meta, arrays, arch, threads, smem, regs)
                    try:
                        o = hardware.occupancy(arch, threads, smem, regs or None)
                    except hardware.OccupancyError as e:
                        assert got == str(e), (arch, threads, smem, regs)
                        refused += 1
                        continue
                    assert got == [o.blocks_per_sm, o.limiter], (arch, threads, smem, regs)
                    b = o.blocks_per_sm
                    assert (arrays["warps"][a, t, b], arrays["active"][a, t, b]) == (o.active_warps, o.active_threads)
                    assert f"{arrays['percent'][a, t, b]}%" == f"{o.occupancy:.0%}"
                    shown = {"threads": arrays["lim_threads"][a, t], "blocks": arrays["lim_blocks"][a],
                             "shared": arrays["lim_shared"][a, s], "registers": arrays["lim_regs"][a, t, r]}
                    assert {k: int(v) for k, v in shown.items() if v >= 0} == o.limits, (arch, threads, smem, regs)
                    checked += 1
    assert checked > 50_000 and refused > 1_000


def test_the_table_check_can_fail():
    meta, arrays = perf.occupancy_table()
    cell = arrays["cell"].copy()
    got, (a, t, s, r) = _lookup(meta, {"cell": cell}, "hopper", 256, 2048, 32)
    cell[a, t, s, r] = (cell[a, t, s, r] + 1) % len(meta["outcomes"][a])
    o = hardware.occupancy("hopper", 256, 2048, 32)
    assert got == [o.blocks_per_sm, o.limiter]
    assert _lookup(meta, {"cell": cell}, "hopper", 256, 2048, 32)[0] != got


def test_the_page_starts_at_the_live_calculators_values(page06):
    state = _occupancy_state(page06.read_text(encoding="utf-8"))
    c = perf.OccupancyCalculator()
    assert state["traits"]["meta"]["initial"] == {"arch": c.w_arch.value, "threads": c.w_threads.value,
                                                  "smem": c.w_smem.value, "regs": c.w_regs.value}
    assert "These controls need Python" not in page06.read_text(encoding="utf-8").split("Occupancy calculator")[-1]


# ---- in the browser, from file:// with every other request refused -------------------------------


def _rendered(page, html: str) -> str:
    """The text Chromium shows for ``html`` (the live calculator's output) on this page."""
    return page.evaluate("""(h) => { const d = document.createElement('div'); d.innerHTML = h;
        document.body.appendChild(d); const t = d.innerText; d.remove(); return t; }""", html)


def _set(page, **values):
    for k, v in values.items():
        page.locator(f"{OCC} select.explainer-occ-{k}").select_option(str(v))


@pytest.mark.browser
def test_static_calculator_answers_as_the_live_one_and_the_model(page06, file_page, page_errors):
    page = file_page
    page.goto(page06.as_uri())
    out, error = page.locator(f"{OCC} .explainer-occupancy-out"), page.locator(f"{OCC} .explainer-error")
    out.filter(has_text="block(s) per SM").wait_for(timeout=10_000)
    live = perf.OccupancyCalculator()

    def same_as_live(arch, threads, smem, regs):
        live.w_arch.value, live.w_threads.value, live.w_smem.value, live.w_regs.value = arch, threads, smem, regs
        assert live.w_error.value == "", (arch, threads, smem, regs)
        assert out.inner_text() == _rendered(page, live.w_out.value), (arch, threads, smem, regs)
        o = hardware.occupancy(arch, threads, smem, regs or None)
        t = " ".join(out.inner_text().split())
        assert (f"{o.blocks_per_sm} block(s) per SM = {o.active_warps} warps = {o.active_threads} threads; "
                f"occupancy {o.occupancy:.0%}; limited by {perf.RESOURCE_NAMES[o.limiter]}.") in t
        assert error.inner_text().strip() == ""

    same_as_live("hopper", 256, 2048, 32)  # the page's own values
    for arch, threads, smem, regs in (("hopper", 1024, 0, 64), ("fermi", 64, 0, 0), ("fermi", 256, 8192, 16),
                                      ("turing", 256, 2048, 32), ("ampere", 96, 49152, 128), ("hopper", 640, 232448, 255)):
        _set(page, arch=arch, threads=threads, smem=smem, regs=regs)
        same_as_live(arch, threads, smem, regs)
    shown = out.inner_text()

    # Refused by the model (more shared memory than Fermi allows): the live calculator's line, the
    # last good result stays; it goes as soon as an input works again.
    _set(page, arch="fermi", threads=256, smem=8192, regs=16)
    shown = out.inner_text()
    _set(page, smem=32768)
    live.w_arch.value, live.w_threads.value, live.w_regs.value = "fermi", 256, 16
    live.w_smem.value = 8192
    live.w_smem.value = 32768
    assert error.inner_text() == _rendered(page, live.w_error.value)
    assert "exceed fermi's limit of 16384" in error.inner_text() and "last values that worked" in error.inner_text()
    assert out.inner_text() == shown
    _set(page, smem=4096)
    assert error.inner_text().strip() == ""
    same_as_live("fermi", 256, 4096, 16)

    # A value the table does not hold (no menu offers one; a page edited by hand could): one line
    # naming what the static page holds, and the next good input clears it.
    page.locator(f"{OCC} select.explainer-occ-threads").evaluate(
        "(s) => { const o = document.createElement('option'); o.value = o.textContent = '100'; s.appendChild(o); }")
    _set(page, threads=100)
    line = error.inner_text()
    assert line.startswith("⚠ threads / block 100 is not in this static page's table") and "32, 64, 96" in line, line
    assert "live app" in line and line.count("\n") == 0
    _set(page, threads=128)
    assert error.inner_text().strip() == ""
    same_as_live("fermi", 128, 4096, 16)
    assert page.outside == [] and page_errors == []


@pytest.mark.browser
def test_static_calculator_fits_a_phone(page06, browser, page_errors):
    context = browser.new_context(viewport={"width": 390, "height": 844})
    context.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file://") else r.abort())
    page = context.new_page()
    page.on("pageerror", lambda exc: page_errors.append(f"pageerror: {exc}"))
    try:
        page.goto(page06.as_uri())
        page.locator(f"{OCC} .explainer-occupancy-out").filter(has_text="block(s) per SM").wait_for(timeout=10_000)
        box = page.locator(OCC).evaluate("(e) => [e.scrollWidth, e.getBoundingClientRect().right]")
        assert box[0] <= 390 and box[1] <= 390, box
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
        assert page_errors == []
    finally:
        context.close()


def test_a_page_with_a_live_twin_sends_the_student_there(tmp_path):
    """Exported with a live twin (what serve does), the calculator's lines name the live page,
    not a command the student cannot run from a browser."""
    import shutil

    from explainer import resources
    from explainer.app import export

    src = tmp_path / "nb"
    src.mkdir()
    shutil.copy(resources.notebooks_dir() / NB, src)
    export.export(tmp_path / "site", notebooks=src, log=lambda *_: None, live_prefix="/voila/render/")
    state = _occupancy_state((tmp_path / "site" / "06_tile_size_and_occupancy.html").read_text(encoding="utf-8"))
    for m in (state["traits"]["meta"], state["store"]["payloads"][0]["meta"]):  # what the view shows first, and after
        assert perf.ELSEWHERE_SERVED in m["offer"] and perf.ELSEWHERE_SERVED in m["refuse"]
        assert "tiled-explainer serve" not in m["offer"] + m["refuse"]
