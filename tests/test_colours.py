"""The steppers' colours say one thing each: threads waiting at a barrier are not painted "stored
to C", and what As / Bs hold from the previous phase is not painted "padding zero"; every colour a
grid uses has its legend entry."""

from __future__ import annotations

import pytest
from conftest import export_pages

from explainer.model import Launch, steps
from explainer.views import common
from explainer.views import tiled as tv


def test_every_meaning_has_its_own_colour_and_legend_entry():
    assert len(set(common.PALETTE)) == len(common.PALETTE)
    named = {c for c, _ in common.LEGEND}
    for c in (common.STORED, common.STALE, common.PADDING, common.WAITING):
        assert c in named
    meta, _ = tv.tiled_data(Launch("tiled", 8, 8, 8, 4), (0, 0))
    assert meta["colours"]["WAITING"] == common.WAITING and [common.WAITING, "waiting at the barrier"] in meta["legend"]


@pytest.fixture(scope="module")
def page02(tmp_path_factory):
    return export_pages(tmp_path_factory, "02_tiled.ipynb") / "02_tiled.html"


@pytest.mark.browser
def test_waiting_threads_are_not_painted_stored(page02, browser, page_errors):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file://") else r.abort())
    page.on("pageerror", lambda exc: page_errors.append(f"pageerror: {exc}"))
    try:
        page.goto(page02.as_uri())
        view = "document.querySelector('.explainer-stepper').explainerView"
        page.locator(".explainer-stepper .explainer-step-label").filter(has_text="step 1 of").wait_for(timeout=10_000)
        page.locator(".explainer-stepper select.explainer-preset").select_option("small: 8×8×8, T=4")
        small = Launch("tiled", 8, 8, 8, 4)
        st = steps(small)
        page.locator(".explainer-stepper .explainer-step-label").filter(
            has_text=f"step 1 of {len(st)}").wait_for(timeout=5_000)
        barrier = next(i for i, s in enumerate(st) if s.kind == "barrier1")
        for _ in range(barrier):
            page.locator(".explainer-stepper .explainer-next").click()
        page.locator(".explainer-stepper .explainer-step-label").filter(
            has_text=f"step {barrier + 1} of").wait_for(timeout=5_000)
        threads = page.evaluate(f"() => {view}.colours('threads')")
        flat = [c for row in threads for c in row]
        assert common.WAITING in flat and common.STORED not in flat
        assert page_errors == []
    finally:
        page.close()
