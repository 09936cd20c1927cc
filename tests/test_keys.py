"""A page with several steppers (page 09: mma.sync, the cp.async pipeline, the mbarrier hand-over)
steps the one the student last clicked with the arrow keys, else the one most in view: never all
of them at once, and not always the first."""

from __future__ import annotations

import pytest
from conftest import export_pages


VIEWS = {"mma": ".explainer-mma", "pipeline": ".explainer-pipeline", "handover": ".explainer-handover"}


@pytest.fixture(scope="module")
def page09(tmp_path_factory):
    return export_pages(tmp_path_factory, "09_tensor_cores.ipynb") / "09_tensor_cores.html"


def _labels(page) -> dict[str, str]:
    return {name: " ".join(page.locator(f"{sel} .explainer-step-label").first.inner_text().split())
            for name, sel in VIEWS.items()}


@pytest.mark.browser
def test_arrow_keys_step_the_stepper_last_clicked(page09, browser, page_errors):
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file://") else r.abort())
    page.on("pageerror", lambda exc: page_errors.append(f"pageerror: {exc}"))
    try:
        page.goto(page09.as_uri())
        for sel in VIEWS.values():
            page.locator(f"{sel} .explainer-step-label").first.wait_for(timeout=20_000)
        for name in ("pipeline", "handover", "mma"):
            before = _labels(page)
            box = page.locator(VIEWS[name]).first
            box.scroll_into_view_if_needed()
            box.locator(".explainer-step-label").first.click()  # a click in the stepper makes it the keys' target
            page.keyboard.press("ArrowRight")
            page.wait_for_timeout(100)
            after = _labels(page)
            assert after[name] != before[name], (name, before, after)
            assert {n: v for n, v in after.items() if n != name} == {n: v for n, v in before.items() if n != name}
        assert page_errors == []
    finally:
        page.close()
