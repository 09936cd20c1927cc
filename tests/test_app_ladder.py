"""Page 08 served by Voila, in headless Chromium: the ladder chart and the mapping view render,
choosing another rung redraws the view in the browser, and the page raises no errors."""

import pytest

from explainer import ladder

PAGE = "08_beyond_tiling.ipynb"
RENDER_TIMEOUT_MS = 120_000
UPDATE_TIMEOUT_MS = 30_000

VIEW = ".explainer-ladder-view"
# The mapping view's figure: traces As, Bs, C tile; the C tile's rows x columns as the browser has them.
JS_C_SHAPE = """() => {
  const el = document.querySelector('%s .js-plotly-plot');
  const d = el && el.data && el.data[2];
  return d && d.z && d.z.length > 1 ? [d.z.length, d.z[0].length] : null;
}""" % VIEW
JS_CHART_READY = """() => {
  const el = document.querySelector('.explainer-ladder-chart .js-plotly-plot');
  return !!(el && el.data && el.data.length >= 3 && el.data[0].x && el.data[0].x.length >= 7 && el._fullLayout);
}"""


@pytest.mark.browser
def test_ladder_page_renders_and_the_rung_selector_redraws(voila_server, browser_page, page_errors):
    page = browser_page
    page.goto(voila_server.page_url(PAGE))
    first, last = ladder.RUNGS[0], ladder.RUNGS[-1]
    try:
        page.wait_for_function(JS_CHART_READY, timeout=RENDER_TIMEOUT_MS, polling=200)
        page.wait_for_function(f"() => JSON.stringify(({JS_C_SHAPE})()) === '[{first.BM},{first.BN}]'",
                               timeout=RENDER_TIMEOUT_MS, polling=200)
        page.locator(".explainer-roofline .js-plotly-plot").first.wait_for(timeout=RENDER_TIMEOUT_MS)
    except Exception as e:
        raise AssertionError(f"{PAGE} did not render: {e}\nServer log:\n{voila_server.log_tail()}") from None
    body = page.locator("body").inner_text()
    assert "There was an error when executing cell" not in body, body[-3000:]
    assert "Traceback" not in body and "pages_ladder." not in body  # code cells are stripped
    assert "% of cuBLAS" in body and "Recorded, not measured here" in body
    assert page.locator(".explainer-rung-card").count() == len(ladder.RUNGS)

    # the rung selector: the C tile, the info line and the warp-tile frames follow
    info = page.locator(".explainer-ladder-info")
    assert first.title in info.inner_text()
    page.locator(".explainer-ladder-rung button", has_text=last.title).click()
    page.wait_for_function(f"() => JSON.stringify(({JS_C_SHAPE})()) === '[{last.BM},{last.BN}]'",
                           timeout=UPDATE_TIMEOUT_MS, polling=100)
    info.filter(has_text=last.title).wait_for(timeout=UPDATE_TIMEOUT_MS)
    shapes = page.evaluate(f"() => document.querySelector('{VIEW} .js-plotly-plot').layout.shapes.length")
    w = last.warp_dims
    assert shapes == 1 + w["WMITER"] * w["WNITER"]

    # a thread id out of range: one line, the view keeps its state
    box = page.locator(f"{VIEW} .widget-inline-hbox", has=page.locator("label", has_text="thread")).locator("input")
    box.fill("9999")
    box.press("Enter")
    page.locator(".explainer-ladder-error", has_text="thread must be 0..").wait_for(timeout=UPDATE_TIMEOUT_MS)
    assert page.evaluate(JS_C_SHAPE) == [last.BM, last.BN]
    assert page_errors == []
