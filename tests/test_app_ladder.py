"""Page 08 served by Voila, in headless Chromium: the ladder chart and the mapping view render;
clicking a C cell picks the thread that owns it, and moving the step k or switching the mode
redraws, all in the browser with no message to the kernel (the websocket is watched); another
rung asks Python and redraws; a bad thread id shows one line and keeps the state. What the
view paints is compared with explainer.views.ladder_maps's pictures of the same thread."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import settle, view_frames

from explainer.model import ladder
from explainer.views.ladder_maps import block_tile_z, copies_z, reads_z

PAGE = "08_beyond_tiling.ipynb"
RENDER_TIMEOUT_MS = 120_000
UPDATE_TIMEOUT_MS = 30_000

VIEW_SEL = ".explainer-ladder-view"
VIEW = f"document.querySelector('{VIEW_SEL}').explainerView"
JS_CHART_READY = """() => {
  const el = document.querySelector('.explainer-ladder-chart .js-plotly-plot');
  return !!(el && el.data && el.data.length >= 3 && el.data[0].x && el.data[0].x.length >= 7 && el._fullLayout);
}"""


def colours(page, grid: str) -> np.ndarray:
    return np.array(page.evaluate(f"() => {VIEW}.colours('{grid}')"))


def state(page) -> dict:
    return page.evaluate(f"() => {VIEW}.state()")


def click_c(page, m: int, n: int) -> None:
    page.locator(f"{VIEW_SEL} canvas[data-grid='C']").scroll_into_view_if_needed()
    at = page.evaluate(f"([r, c]) => {VIEW}.centre('C', r, c)", [m, n])
    page.mouse.click(at["x"], at["y"])


def expect_drawn(page, r, tid, k, mode) -> None:
    """The state, the text and the three grids are the model's for thread ``tid``."""
    page.wait_for_function(f"() => {{ const s = {VIEW} && {VIEW}.state(); return s && s.rung === '{r.name}' && "
                           f"s.thread === {tid} && s.k === {k} && s.mode === '{mode}'; }}",
                           timeout=UPDATE_TIMEOUT_MS, polling=100)
    info = " ".join(page.locator(f"{VIEW_SEL} .explainer-ladder-info").inner_text().split())
    assert r.title in info and f"thread {tid} = warp {tid // 32}, lane {tid % 32}:" in info, info
    np.testing.assert_array_equal(colours(page, "C"), block_tile_z(r, tid))
    za, zb = reads_z(r, tid, k) if mode == "reads" else copies_z(r, tid)
    np.testing.assert_array_equal(colours(page, "A"), za)
    np.testing.assert_array_equal(colours(page, "B"), zb)


@pytest.mark.browser
def test_ladder_page_steps_in_the_browser_and_asks_python_for_a_rung(voila_server, browser_page, page_errors):
    page = browser_page
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: frames.append(str(payload))))
    page.goto(voila_server.page_url(PAGE))
    first, last = ladder.RUNGS[0], ladder.RUNGS[-1]
    try:
        page.wait_for_function(JS_CHART_READY, timeout=RENDER_TIMEOUT_MS, polling=200)
        page.locator(f"{VIEW_SEL} canvas[data-grid='C']").wait_for(timeout=RENDER_TIMEOUT_MS)
        page.locator(".explainer-roofline .js-plotly-plot").first.wait_for(timeout=RENDER_TIMEOUT_MS)
    except Exception as e:
        raise AssertionError(f"{PAGE} did not render: {e}\nServer log:\n{voila_server.log_tail()}") from None
    body = page.locator("body").inner_text()
    assert "There was an error when executing cell" not in body, body[-3000:]
    assert "Traceback" not in body and "pages_ladder." not in body  # code cells are stripped
    assert "% of cuBLAS" in body and "Recorded, not measured here" in body
    assert page.locator(".explainer-rung-card").count() == len(ladder.RUNGS)
    expect_drawn(page, first, 0, 0, "reads")
    legend = page.locator(f"{VIEW_SEL} .explainer-ladder-legend").inner_text()
    assert "its reads at the other k" in legend and "Click a cell of the C tile" in legend
    settle(page)
    frames.clear()

    # A click on C(37, 21): the model's owner of that output.
    owner = int(ladder.owner_map(first)[37, 21])
    assert owner != 0
    click_c(page, 37, 21)
    expect_drawn(page, first, owner, 0, "reads")
    assert page.locator(f"{VIEW_SEL} .explainer-ladder-thread").input_value() == str(owner)
    assert f"Registers of thread {owner}" in page.locator(f"{VIEW_SEL} .explainer-ladder-registers").inner_text()

    # Step k and the mode: redrawn from the arrays already here.
    page.locator(f"{VIEW_SEL} .explainer-ladder-k").fill("5")
    expect_drawn(page, first, owner, 5, "reads")
    page.locator(f"{VIEW_SEL} .explainer-ladder-mode button[data-value='copies']").click()
    expect_drawn(page, first, owner, 5, "copies")
    assert "LDG.32" in page.locator(f"{VIEW_SEL} .explainer-ladder-copies").inner_text()
    assert view_frames(frames) == [], f"picking sent {len(frames)} messages to the kernel: {[f[:200] for f in frames[:3]]}"

    # Another rung: Python sends its arrays; thread 277 does not exist there (256 threads) -> 0.
    page.locator(f"{VIEW_SEL} .explainer-ladder-rung button", has_text=last.title).click()
    expect_drawn(page, last, 0 if owner >= last.threads else owner, 5, "copies")
    assert any('"cmd":"kernel"' in f.replace(" ", "") for f in frames), [f[:200] for f in frames[:3]]
    w = last.warp_dims
    dotted = page.evaluate(f"() => {VIEW}.frames().map((f) => f.dotted)")
    assert dotted == [False] + [True] * (w["WMITER"] * w["WNITER"])
    assert "LDG.128" in page.locator(f"{VIEW_SEL} .explainer-ladder-copies").inner_text()

    # A thread id out of range: one line, the view keeps its state.
    before = (state(page), colours(page, "C").tolist())
    box = page.locator(f"{VIEW_SEL} .explainer-ladder-thread")
    box.fill("9999")
    box.press("Enter")
    err = page.locator(f"{VIEW_SEL} .explainer-ladder-error")
    err.filter(has_text="⚠ thread must be 0..255").wait_for(timeout=UPDATE_TIMEOUT_MS)
    assert "\n" not in err.inner_text().strip()
    assert (state(page), colours(page, "C").tolist()) == before and box.input_value() == str(before[0]["thread"])
    assert page_errors == []
