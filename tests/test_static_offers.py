"""Static pages offer only what they hold: every preset in a stepper's menu is embedded for every
kernel the page can switch to, and page 04 holds its several-warp launches (64³ with T = 16:
8 warps a block), where the races it is about show."""

from __future__ import annotations

import json
import re

import pytest
from conftest import export_pages


PAGES = ("02_tiled.ipynb", "03_boundaries.ipynb", "04_barriers.ipynb")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    return export_pages(tmp_path_factory, *PAGES)


def _states(html: str) -> list[dict]:
    return [json.loads(m) for m in re.findall(r'<script type="application/json" id="ex-state-\d+">(.*?)</script>', html, re.S)]


def _steppers(site):
    for nb in PAGES:
        for state in _states((site / nb.replace(".ipynb", ".html")).read_text(encoding="utf-8")):
            if state["traits"].get("presets"):
                yield nb, state


def test_every_offered_preset_is_embedded_for_every_kernel(site):
    seen = 0
    for nb, state in _steppers(site):
        kernels = state["traits"]["kernels"] or [state["traits"]["meta"]["kernel"]]
        for name in state["traits"]["presets"]:
            for k in kernels:
                assert f"{k}|{name}" in state["store"]["presets"], (nb, k, name)
            seen += 1
    assert seen >= 3


def test_page_04_holds_a_several_warp_launch_in_every_variant(site):
    (state,) = list(s for nb, s in _steppers(site) if nb == "04_barriers.ipynb")
    offered = state["traits"]["presets"]
    several = [p for p in offered if "64³, T=16" in p]
    assert several, offered  # 256 threads a block: 8 warps
    for k in state["traits"]["kernels"]:
        assert f"{k}|{several[0]}" in state["store"]["presets"]


@pytest.mark.browser
def test_every_offered_preset_loads_in_the_browser(site, browser, page_errors):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file://") else r.abort())
    page.on("pageerror", lambda exc: page_errors.append(f"pageerror: {exc}"))
    try:
        page.goto((site / "04_barriers.html").as_uri())
        stepper = page.locator(".explainer-stepper").first
        stepper.locator(".explainer-step-label").filter(has_text="step 1 of").wait_for(timeout=10_000)
        options = [o for o in stepper.locator("select.explainer-preset option").all_inner_texts() if o != "(custom)"]
        assert options
        for kernel in stepper.locator("select.explainer-kernel option").all_inner_texts():
            stepper.locator("select.explainer-kernel").select_option(kernel)
            for name in options:
                stepper.locator("select.explainer-preset").select_option(name)
                page.wait_for_timeout(50)
                assert stepper.locator(".explainer-error").inner_text().strip() == "", (kernel, name)
                assert stepper.locator("select.explainer-preset").input_value() == name, (kernel, name)
        assert page_errors == []
    finally:
        page.close()


def test_page_03_holds_the_edge_blocks_of_its_presets(site):
    """Page 03 is about the blocks at C's edge: its rectangular preset holds the last column of
    blocks (the ghost threads) and the last row, not only the blocks around the preset's own."""
    (state,) = list(s for nb, s in _steppers(site) if nb == "03_boundaries.ipynb")
    M, N, K, T = 35, 79, 19, 8
    gx, gy = -(-N // T), -(-M // T)
    blocks = {tuple(map(int, k.split("|")[5:7])) for k in state["store"]["states"]
              if k.split("|")[:5] == ["tiled", str(M), str(N), str(K), str(T)]}
    assert any(x == gx - 1 for x, _ in blocks) and any(y == gy - 1 for _, y in blocks), sorted(blocks)
    assert (gx - 1, gy - 1) in blocks


def test_page_02_opens_small_and_holds_a_corner_an_edge_and_the_interior_of_each_launch(site):
    """Page 02 opens on a launch whose blocks it holds all of; of each preset big enough to have
    an interior it holds a corner, an edge and an interior block, named by the model in the
    block menu's data."""
    from explainer.model import Launch

    (state,) = list(s for nb, s in _steppers(site) if nb == "02_tiled.ipynb")
    meta = state["traits"]["meta"]
    opening = Launch("tiled", meta["M"], meta["N"], meta["K"], meta["T"])
    assert max(opening.M, opening.N, opening.K) <= 16  # every cell readable
    blocks = state["store"]["blocks"]
    held = blocks[f"tiled|{opening.M}|{opening.N}|{opening.K}|{opening.T}"]
    assert len(held["blocks"]) == held["all"] == opening.num_blocks
    interior = 0
    for key, entry in blocks.items():
        kernel, M, N, K, T = key.split("|")
        L = Launch(kernel, int(M), int(N), int(K), int(T))
        for bx, by, place in entry["blocks"]:
            assert place == L.block_place(bx, by)
            assert f"{key}|{bx}|{by}" in state["store"]["states"]  # a block the menu names is stored
        gx, gy = L.grid
        if gx >= 3 and gy >= 3:
            interior += 1
            kinds = {place.split(",")[0] for _, _, place in entry["blocks"]}
            assert kinds >= {"corner", "edge", "interior"}, (key, entry["blocks"])
    assert interior >= 2  # the 1024^3 walk-through and at least one smaller launch


def test_page_03_draws_the_tiles_past_the_edges_of_a_b_and_c(site, browser, page_errors):
    """Page 03 draws each tile whole: past C's edge the ghost thread's own element (pinned, with
    its owner on hover), past A's edge the element a padding zero stands in for, a dark line
    where each matrix ends, and a legend entry for what lies outside."""
    from explainer.model import Launch, steps_per_phase
    from explainer.views import tiled as tv
    from explainer.views.common import OUTSIDE, PADDING, PINNED

    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file://") else r.abort())
    page.on("pageerror", lambda exc: page_errors.append(f"pageerror: {exc}"))
    view = "document.querySelector('.explainer-stepper').explainerView"
    try:
        page.goto((site / "03_boundaries.html").as_uri())
        stepper = page.locator(".explainer-stepper").first
        label = stepper.locator(".explainer-step-label")
        label.filter(has_text="step 1 of").wait_for(timeout=10_000)
        state = next(s for nb, s in _steppers(site) if nb == "03_boundaries.ipynb")
        m = state["traits"]["meta"]
        L = Launch(m["kernel"], m["M"], m["N"], m["K"], m["T"])
        block, p = tuple(m["block"]), m["start"]["thread"]
        meta, a = tv.tiled_data(L, block, mark_ghosts=True)
        (r, c), ghost = (int(x) for x in a["c_rc"][p]), not a["writes"][p]
        assert ghost and (r >= L.M or c >= L.N)  # the page opens on a ghost thread
        C = page.evaluate(f"() => {view}.colours('C')")
        assert len(C) == meta["mwin"][1] - meta["mwin"][0] and len(C[0]) == meta["nwin"][1] - meta["nwin"][0]
        assert C[r - meta["mwin"][0]][c - meta["nwin"][0]] == PINNED  # its element, past C's edge
        outside = [(i, j) for i in range(len(C)) for j in range(len(C[0]))
                   if meta["mwin"][0] + i >= L.M or meta["nwin"][0] + j >= L.N]
        assert outside and all(C[i][j] in (OUTSIDE, PADDING, PINNED) for i, j in outside)
        hover = page.evaluate(f"([r, c]) => {view}.hover('C', r, c)", [r - meta["mwin"][0], c - meta["nwin"][0]])
        assert "outside C" in hover and "ghost" in hover
        assert stepper.locator(".explainer-edge").count() >= 2
        assert "outside A, B or C" in stepper.locator(".explainer-legend, .ex-legend-line").first.inner_text() or \
            "outside A, B or C" in stepper.inner_text()
        # The load of A in the last phase: the pinned thread stores a padding zero where its index
        # arithmetic points past A's edge, and that cell of A is drawn pinned.
        t = L.phases - 1
        i = t * steps_per_phase(L)
        page.evaluate(f"""(i) => {{ const s = document.querySelector('.explainer-stepper .explainer-slider');
                                    s.value = String(i); s.dispatchEvent(new Event('input')); }}""", i)
        label.filter(has_text=f"step {i + 1} of").wait_for(timeout=5_000)
        cell = int(a["store_cell"][p])
        assert a["a_src"][t, cell][0] < 0  # a padding zero
        wr, wc = (int(x) for x in a["a_want"][t, cell])
        kw0 = int(a["kwin"][t, 0])
        Agrid = page.evaluate(f"() => {view}.colours('A')")
        assert Agrid[wr - meta["mwin"][0]][wc - kw0] == PINNED
        assert "outside A" in page.evaluate(f"([r, c]) => {view}.hover('A', r, c)", [wr - meta["mwin"][0], wc - kw0])
        assert page_errors == []
    finally:
        page.close()
