"""Pages 05-07 served by Voila render in headless Chromium: their widgets and plotly figures
appear, no cell fails, and the page raises no errors."""

import pytest
from conftest import settle, view_frames

RENDER_TIMEOUT_MS = 120_000

PAGES = {
    # notebook: (a widget class the page must show, a text it must contain, plotly figures at least)
    "05_warps_and_coalescing.ipynb": (".explainer-warps", "warp 1, lane 20", 1),
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


@pytest.mark.browser
def test_warps_page_pins_in_the_browser(voila_server, browser_page, page_errors):
    """Page 05: clicking a thread of the warp map pins it and redraws its warp's sector table
    from the arrays Python sent, with no message to the kernel; the block size asks Python."""
    from explainer.model import memory
    from explainer.model import Launch

    page = browser_page
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: frames.append(str(payload))))
    page.goto(voila_server.page_url("05_warps_and_coalescing.ipynb"))
    info = page.locator(".explainer-warps .explainer-warp-info")
    info.filter(has_text="warp 1, lane 20").wait_for(timeout=RENDER_TIMEOUT_MS)
    settle(page)
    frames.clear()
    view = "document.querySelector('.explainer-warps').explainerView"
    page.locator(".explainer-warps .explainer-warp-map").scroll_into_view_if_needed()
    at = page.evaluate(f"() => {view}.centre(14, 9)")  # row ty=14, column tx=9
    page.mouse.click(at["x"], at["y"])
    L = Launch("naive_col", 1024, 1024, 1024, 16)
    w, lane = L.warp_lane(9, 14)
    info.filter(has_text=f"warp {w}, lane {lane}").wait_for(timeout=5_000)
    req = memory.warp_requests(L, (2, 1), int(w))[0]
    row = page.locator(".explainer-sector-table tr[data-kernel='naive_col'][data-access='A load'] td")
    assert [row.nth(i).inner_text() for i in (2, 3, 4, 5)] == [str(req.active), str(req.distinct_addresses),
                                                               str(req.sectors), str(req.ideal)]
    colours = page.evaluate(f"() => {view}.colours()")
    assert colours[14][9] == 3 and sum(r.count(3) for r in colours) == 1  # PINNED: the one thread
    assert view_frames(frames) == [], [f[:200] for f in frames[:3]]
    page.locator(".explainer-warps select.explainer-tile").select_option("32")
    info.filter(has_text="of a 32×32 block").wait_for(timeout=30_000)
    assert any('"cmd":"launch"' in f.replace(" ", "") for f in frames)
    assert page_errors == []


@pytest.mark.browser
def test_live_page_fetches_plotly_once_as_a_file_not_through_its_kernel(voila_server, browser_page, page_errors):
    """Under `serve`, a live page's plotly figures come up from the server's copy of plotly's
    widget bundle (an HTTP file the browser caches), not from 5 MB of widget state sent through
    the page's kernel and websocket."""
    page = browser_page
    received: list[int] = []
    fetched: dict[str, int] = {}
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: received.append(len(payload))))
    page.on("response", lambda r: fetched.__setitem__(r.url.rsplit("/", 1)[-1], r.status))
    page.goto(voila_server.page_url("07_arithmetic_intensity_and_roofline.ipynb"))
    page.wait_for_function("() => [...document.querySelectorAll('.js-plotly-plot')].some((e) => e._fullLayout)",
                           timeout=RENDER_TIMEOUT_MS)
    assert fetched.get("plotly-widget.js") == 200, fetched
    assert sum(received) < 1_000_000, f"{sum(received) / 1e6:.2f} MB came through the websocket"
    assert page_errors == []
