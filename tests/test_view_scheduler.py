"""The warp scheduler stepper in the exported page 06, opened from file:// (every other request
refused): it steps by buttons, keys and stride, draws the model's states in its window, switches
preset and latency from the page's store, and presents full screen for a projector (clicker keys
step it; Escape leaves)."""

from __future__ import annotations

import re

import pytest
from conftest import export_pages

from explainer.views import scheduler as sv

VIEW = ".explainer-scheduler"
LABEL = f"{VIEW} .explainer-step-label"
JS = f"document.querySelector('{VIEW}').explainerView"


@pytest.fixture(scope="module")
def page06(tmp_path_factory):
    return export_pages(tmp_path_factory, "06_tile_size_and_occupancy.ipynb") / "06_tile_size_and_occupancy.html"


def cycle(page) -> int:
    text = page.evaluate(f"() => document.querySelector('{LABEL}').innerText")
    m = re.search(r"cycle = (\d+) of 0\.\.(\d+)", text)
    assert m, text
    return int(m.group(1))


def window_is_the_model(page, key: str) -> None:
    st = page.evaluate(f"() => {JS}.state()")
    _, A = sv.scheduler_data(key)
    got = page.evaluate(f"() => {JS}.colours('window')")
    first = st["first"]
    want = A["state"][:, first:first + sv.WINDOW].tolist()
    assert got == want, (key, first)
    texts = page.evaluate(f"() => {JS}.texts()")
    for i in range(sv.WINDOW):  # the issuing cell carries its instruction's letter, no other cell any
        r = int(A["issued_row"][first + i])
        for row in range(len(texts)):
            assert texts[row][i] == (sv.LETTERS[int(A["issued_kind"][first + i])] if row == r else "")


@pytest.mark.browser
def test_steps_and_switches_from_file(page06, file_page, page_errors):
    page = file_page
    page.goto(page06.as_uri())
    page.locator(LABEL).filter(has_text="cycle = 0 of").wait_for(timeout=30_000)
    view = page.locator(VIEW)
    view.scroll_into_view_if_needed()
    opening = f"{sv.OPENING}|{sv.LATENCIES[0]}"
    meta, A = sv.scheduler_data(opening)
    assert f"of 0..{meta['cycles'] - 1}" in page.locator(LABEL).inner_text()
    for _ in range(3):
        page.locator(f"{VIEW} .explainer-next").click()
    assert cycle(page) == 3
    page.keyboard.press("ArrowRight")  # the last stepper clicked takes the arrow keys
    assert cycle(page) == 4
    # what the side panel says is the payload's: who issued, who is stalled
    r = int(A["issued_row"][4])
    side = page.locator(f"{VIEW} .explainer-scheduler-text").inner_text()
    assert ("nothing: an idle cycle" in side) if r < 0 else (meta["rows"][r] in side)
    page.locator(f"{VIEW} .explainer-stride", has_text="100").click()
    page.locator(f"{VIEW} .explainer-next").click()
    page.keyboard.press("ArrowRight")
    assert cycle(page) == 204
    window_is_the_model(page, opening)
    util = page.locator(f"{VIEW} .explainer-scheduler-util").inner_text()
    assert f"scheduler 0 {A['running'][204]:.1f}%" in util
    # another preset and the other latency come from the page's store
    page.locator(f"{VIEW} select.explainer-scheduler-preset").select_option("T16")
    page.locator(LABEL).filter(has_text=f"of 0..{sv.scheduler_data('T16|' + sv.LATENCIES[0])[0]['cycles'] - 1}").wait_for(timeout=5_000)
    page.locator(f"{VIEW} .explainer-latency").nth(1).click()
    key = f"T16|{sv.LATENCIES[1]}"
    meta2, _ = sv.scheduler_data(key)
    page.locator(LABEL).filter(has_text=f"of 0..{meta2['cycles'] - 1}").wait_for(timeout=5_000)
    assert page.evaluate(f"() => {JS}.state()")["latency"] == sv.LATENCIES[1]
    page.evaluate(f"() => {JS}.go(700)")
    window_is_the_model(page, key)
    assert page.outside == [] and page_errors == []


@pytest.mark.browser
@pytest.mark.parametrize("width,height", [(1366, 768), (1920, 1080)])
def test_presenter_layout(page06, screen_page, page_errors, width, height):
    page = screen_page(width, height)
    page.goto(page06.as_uri() + "?present")
    page.locator(LABEL).filter(has_text="cycle = 0 of").wait_for(timeout=30_000)
    page.wait_for_function(f"() => document.querySelector('{VIEW}').classList.contains('ex-presenting')",
                           timeout=5_000)
    box = page.evaluate(f"""() => {{ const b = document.querySelector('{VIEW} .explainer-scheduler-fig').getBoundingClientRect();
        return [b.left, b.top, b.right, b.bottom, innerWidth, innerHeight]; }}""")
    left, top, right, bottom, w, h = box
    assert 0 <= left and right <= w and 0 <= top and bottom <= h, box
    assert right - left > 0.4 * w  # scaled up to the screen
    for key, want in [("Space", 1), ("PageDown", 2), ("ArrowRight", 3), ("PageUp", 2), ("Shift+Space", 1), ("Home", 0)]:
        page.keyboard.press(key)
        assert cycle(page) == want, key
    page.keyboard.press("End")
    assert cycle(page) == sv.scheduler_data()[0]["cycles"] - 1
    page.keyboard.press("Escape")
    assert not page.evaluate(f"() => document.querySelector('{VIEW}').classList.contains('ex-presenting')")
    assert page_errors == []
