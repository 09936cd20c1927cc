"""Pages 05-07 served by Voila render in headless Chromium: their widgets and plotly figures
appear, no cell fails, and the page raises no errors."""

import pytest

RENDER_TIMEOUT_MS = 120_000

PAGES = {
    # notebook: (a widget class the page must show, a text it must contain, plotly figures at least)
    "05_warps_and_coalescing.ipynb": (".explainer-warps", "warp 1, lane 20", 2),
    "06_tile_size_and_occupancy.ipynb": (".explainer-occupancy", "block(s) per SM", 1),
    "07_arithmetic_intensity_and_roofline.ipynb": (".explainer-roofline", "FLOP/B", 1),
}


@pytest.mark.browser
@pytest.mark.parametrize("notebook", list(PAGES))
def test_perf_page_renders(notebook, voila_server, browser_page, page_errors):
    selector, needle, figures = PAGES[notebook]
    page = browser_page
    page.goto(voila_server.page_url(notebook))
    try:
        page.locator(selector).first.wait_for(timeout=RENDER_TIMEOUT_MS)
        page.wait_for_function(
            "([n]) => [...document.querySelectorAll('.js-plotly-plot')].filter("
            "(el) => el.data && el.data.length && el._fullLayout).length >= n",
            arg=[figures], timeout=RENDER_TIMEOUT_MS, polling=200)
    except Exception as e:
        raise AssertionError(f"{notebook} did not render: {e}\nServer log:\n{voila_server.log_tail()}") from None
    body = page.locator("body").inner_text()
    assert "There was an error when executing cell" not in body, body[-3000:]
    assert needle in body
    assert page.locator(".jp-CodeCell .jp-InputArea").count() == 0
    assert page_errors == []
