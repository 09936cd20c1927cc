"""Responsive pages: on a phone (a 390 x 844 viewport) no page scrolls sideways. A figure wider
than the screen scrolls inside its own box (and stays reachable: no box clips it away), rows of
controls and side-by-side panels wrap, tables scroll inside themselves, and a plotly chart takes
the screen's width, so all its bar groups show. Every static page (``tiled-explainer export``)
and one live page (02, served by Voila). A desktop keeps the widths it had."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from explainer import resources
from explainer.app import export

PHONE = {"width": 390, "height": 844}
STEPPER = ".explainer-stepper"
LABEL = f"{STEPPER} .explainer-step-label"

# Every box the page draws that may be wider than a phone: it must fit the screen, or sit in a
# box that scrolls sideways (overflow-x auto / scroll) and fits the screen. A box that clips
# (overflow hidden) would hide part of a figure where no finger can reach it.
UNREACHABLE = """() => {
  const W = window.innerWidth, out = [];
  const name = (e) => `${e.tagName.toLowerCase()}.${String(e.className.baseVal ?? e.className).trim().replace(/\\s+/g, ".")}`;
  for (const e of document.querySelectorAll(".ex-fig, .js-plotly-plot, table, pre, select, canvas")) {
    const r = e.getBoundingClientRect();
    if (!r.width || r.right <= W + 0.5) continue;
    let p = e.parentElement, why = "nothing scrolls it";
    for (; p && p !== document.documentElement; p = p.parentElement) {
      const ox = getComputedStyle(p).overflowX;
      if (ox === "visible") continue;
      const box = p.getBoundingClientRect();
      why = (ox === "auto" || ox === "scroll") && box.right <= W + 0.5 ? null
        : `${name(p)} (overflow-x ${ox}, right ${Math.round(box.right)})`;
      break;
    }
    if (why) out.push(`${name(e)} right ${Math.round(r.right)}: ${why}`);
  }
  return out;
}"""

WIDTHS = "() => [document.documentElement.scrollWidth, window.innerWidth]"
CHARTS = """() => [...document.querySelectorAll('.js-plotly-plot')].map((e) => {
  const r = e.getBoundingClientRect();
  return { left: r.left, right: r.right, drawn: e._fullLayout ? e._fullLayout.width : null };
})"""


def _pages() -> list[str]:
    return [export.page_file(p.name) for p in sorted(resources.notebooks_dir().glob("[0-9][0-9]_*.ipynb"))]


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("narrow")
    export.export(out, log=lambda line: None)
    return out


def _context(browser, page_errors, viewport, allowed):
    context = browser.new_context(viewport=viewport)
    outside: list[str] = []

    def route(r):
        if allowed(r.request.url):
            r.continue_()
        else:
            outside.append(r.request.url)
            r.abort()

    context.route("**/*", route)
    page = context.new_page()
    page.on("pageerror", lambda exc: page_errors.append(f"pageerror: {exc}"))

    def on_console(m):
        refused = m.text.startswith("Failed to load resource") and not allowed(m.location.get("url", ""))
        if m.type == "error" and not refused:
            page_errors.append(f"console.error: {m.text} ({m.location.get('url')})")

    page.on("console", on_console)
    page.outside = outside
    return context, page


@pytest.fixture
def phone(browser, page_errors):
    """A phone-sized page that may load file:// URLs only."""
    context, page = _context(browser, page_errors, PHONE, lambda url: url.startswith("file://"))
    yield page
    context.close()


def _open_static(page, exported: Path, name: str) -> None:
    """The page, once its views and charts are drawn."""
    text = (exported / name).read_text(encoding="utf-8")
    page.goto((exported / name).as_uri())
    page.wait_for_load_state("load")
    if "plotly-graph-div" in text:
        page.wait_for_function("() => [...document.querySelectorAll('.js-plotly-plot')].every("
                               "(e) => e._fullLayout && e.querySelector('.main-svg'))", timeout=10_000)
    if 'data-explainer-view="' in text:
        page.wait_for_function("() => [...document.querySelectorAll('[data-explainer-view]')].every("
                               "(e) => e.querySelector('.explainer-view'))", timeout=10_000)
    if page.locator(STEPPER).count():
        page.locator(LABEL).filter(has_text="step 1 of").first.wait_for(timeout=10_000)
    page.evaluate("() => document.fonts.ready")
    page.wait_for_timeout(200)  # plotly's `responsive` resize and the last layout


def _assert_fits(page, where: str) -> None:
    scroll, inner = page.evaluate(WIDTHS)
    assert scroll <= inner, f"{where}: the page scrolls sideways ({scroll} px wide at {inner} px)"
    assert page.evaluate(UNREACHABLE) == [], where
    for chart in page.evaluate(CHARTS):
        assert chart["left"] >= 0 and chart["right"] <= inner + 0.5, (where, chart)
        assert chart["drawn"] <= inner, (where, chart)


@pytest.mark.browser
@pytest.mark.parametrize("name", _pages())
def test_static_page_fits_a_phone(exported, phone, page_errors, name):
    _open_static(phone, exported, name)
    _assert_fits(phone, name)
    assert phone.outside == [] and page_errors == []


@pytest.mark.browser
def test_static_chart_takes_the_phone_width_and_keeps_the_desktop_one(exported, browser, page_errors):
    """Page 07's roofline: on a phone as wide as its box (not a window onto one bar group); on a
    desktop as wide as its layout asks, as before."""
    name = "07_arithmetic_intensity_and_roofline.html"
    for viewport, check in ((PHONE, "phone"), ({"width": 1400, "height": 1000}, "desktop")):
        context, page = _context(browser, page_errors, viewport, lambda url: url.startswith("file://"))
        try:
            _open_static(page, exported, name)
            fig = page.locator(".ex-figure").first
            box = fig.evaluate("(e) => [e.clientWidth, parseFloat(e.style.maxWidth)]")
            chart = page.evaluate(CHARTS)[0]
            if check == "phone":
                assert box[0] < box[1] and abs(chart["drawn"] - box[0]) <= 1, (box, chart)
                assert chart["right"] <= viewport["width"], chart
            else:
                assert chart["drawn"] == box[1] == 780, (box, chart)
        finally:
            context.close()
    assert page_errors == []


@pytest.mark.browser
def test_static_stepper_picks_a_cell_after_scrolling_its_figure(exported, phone, page_errors):
    """Page 02 on a phone: C is past the screen's edge, inside the global-memory figure's own
    box; scrolled there, a tap on C[21][41] finds its thread as on a desktop."""
    from explainer.model import Launch
    from explainer.views import tiled as tv

    page = phone
    _open_static(page, exported, "02_tiled.html")
    L, block, thread = Launch("tiled", 1024, 1024, 1024, 16), (2, 1), (4, 3)
    page.locator(f"{STEPPER} select.explainer-preset").select_option(index=1)  # the walk-through's 1024^3
    page.locator(LABEL).filter(has_text=f"block (x={block[0]}, y={block[1]})").wait_for(timeout=5_000)
    box = page.locator(f"{STEPPER} .explainer-global")
    assert box.evaluate("(e) => e.scrollWidth > e.clientWidth")  # wider than a phone: it scrolls
    box.evaluate("(e) => { e.scrollLeft = e.scrollWidth; }")
    meta, _ = tv.tiled_data(L, block, thread)
    r, c = 21 - meta["mwin"][0], 41 - meta["nwin"][0]
    view = f"document.querySelector('{STEPPER}').explainerView"
    page.locator(f"{STEPPER} canvas[data-grid='C']").scroll_into_view_if_needed()
    at = page.evaluate(f"([r, c]) => {view}.centre('C', r, c)", [r, c])
    assert 0 <= at["x"] <= PHONE["width"]
    page.mouse.click(at["x"], at["y"])
    page.locator(f"{STEPPER} .explainer-sum").filter(has_text="thread (x=9, y=5)").wait_for(timeout=5_000)
    assert page.evaluate(WIDTHS)[0] <= PHONE["width"]
    assert page.outside == [] and page_errors == []


@pytest.mark.browser
def test_live_tiled_page_fits_a_phone(voila_server, browser, page_errors, record_property):
    """Page 02 served by Voila on a phone: the stepper's figures scroll in their own boxes (no
    box clips them away), and the timing chart is redrawn at the phone's width."""
    context, page = _context(browser, page_errors, PHONE,
                             lambda url: url.startswith(voila_server.url) or url.startswith(("data:", "blob:")))
    try:
        t0 = time.monotonic()
        page.goto(voila_server.page_url("02_tiled.ipynb"))
        try:
            page.locator(LABEL).filter(has_text="step 1 of").wait_for(timeout=120_000)
            page.wait_for_function(
                "() => { const c = [...document.querySelectorAll('.js-plotly-plot')];"
                " return c.length && c.every((e) => e._fullLayout && e._fullLayout.width <= window.innerWidth); }",
                timeout=60_000, polling=200)
        except Exception as e:
            raise AssertionError(f"02_tiled.ipynb did not fit a phone: {e}\n"
                                 f"charts: {page.evaluate(CHARTS)}\nServer log:\n{voila_server.log_tail()}") from None
        record_property("live_narrow_render_s", time.monotonic() - t0)
        page.wait_for_timeout(300)
        _assert_fits(page, "live 02_tiled.ipynb")
        shared = page.locator(f"{STEPPER} .explainer-shared")
        assert shared.evaluate("(e) => e.scrollWidth > e.clientWidth && getComputedStyle(e).overflowX === 'auto'")
        assert page.outside == [] and page_errors == []
    finally:
        context.close()
