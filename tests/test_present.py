"""Presenter mode of the tiled stepper (issue "the lecture hall and the laptop", item 1).

A "Present" button, or ``?present`` in the URL, puts the step label, global memory (A, B, C),
As / Bs / threads and the code panel side by side on the whole screen. On a projector's usual
screens (1920x1080 at 100 % and at 150 % zoom, 1366x768) the two figures and the highlighted code
line are all on screen with nothing scrolled, for the page's own 1024^3 launch and for the 8x8
preset (the one that needs 954 CSS px of the page at 150 %). What a presentation clicker sends
steps it (Space / PageDown forward, Shift+Space / PageUp back, arrows, Home / End), at once and
never while the focus is in an input field; A- / A+ change the text size; Escape leaves.

Page 01's naive explorer (no steps, no code) presents its figure beside what the pinned thread
does. Exported pages 01 and 02 from ``file://`` (every other request refused), and once the live app.
"""

from __future__ import annotations

import re

import pytest
from conftest import export_pages


SCREENS = [  # (CSS viewport width, height, device scale factor)
    pytest.param(1920, 1080, 1, id="1920x1080"),
    pytest.param(1280, 720, 1.5, id="1920x1080-at-150pct"),
    pytest.param(1366, 768, 1, id="1366x768"),
]
SMALL = "small: 8×8×8, T=4"
STEPPER = ".explainer-stepper"
LABEL = f"{STEPPER} .explainer-step-label"
SUM = f"{STEPPER} .explainer-sum"
VIEW = f"document.querySelector('{STEPPER}').explainerView"
# What must be on screen while presenting.
SHOWN = {"global memory": ".explainer-global-fig", "As / Bs": ".explainer-shared-fig",
         "highlighted code line": ".explainer-code span.hl"}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """Pages 01 and 02 exported (only those: a whole export takes much longer)."""
    return export_pages(tmp_path_factory, "01_naive.ipynb", "02_tiled.ipynb")


@pytest.fixture(scope="module")
def page02(site):
    return site / "02_tiled.html"


@pytest.fixture
def open_page(browser, page_errors):
    """open_page(url, width, height, scale=1): a fresh context of that screen, the view drawn
    (``ready``: its selector and a text it shows then)."""
    contexts = []

    def open_(url: str, width: int, height: int, scale: float = 1, local=("file://",), ready=(LABEL, "step 1 of")):
        ctx = browser.new_context(viewport={"width": width, "height": height}, device_scale_factor=scale)
        contexts.append(ctx)
        ctx.route("**/*", lambda r: r.continue_() if r.request.url.startswith(local) else r.abort())
        page = ctx.new_page()
        page.on("pageerror", lambda exc: page_errors.append(f"pageerror: {exc}"))
        page.on("console", lambda m: page_errors.append(f"console.error: {m.text}")
                if m.type == "error" and "Failed to load resource" not in m.text else None)
        page.goto(url)
        page.locator(ready[0]).filter(has_text=ready[1]).wait_for(timeout=120_000)
        return page

    yield open_
    for ctx in contexts:
        ctx.close()


def presenting(page, wait_ms: int = 5_000) -> bool:
    """The tiled stepper is presenting (``?present`` chooses the page's first view a moment after
    the views have started: waited for up to ``wait_ms``)."""
    try:
        page.wait_for_function(f"""() => {{
            const root = document.querySelector('{STEPPER}'), stage = root.querySelector('.ex-present-stage');
            return root.classList.contains('ex-presenting') && !!stage && stage.getBoundingClientRect().height > 0; }}""",
                               timeout=wait_ms)
        return True
    except Exception:
        return False


def assert_fits(page, where: str) -> None:
    """The figures and the highlighted code line inside the viewport; the page not scrolled."""
    got = page.evaluate("""(shown) => {
        const out = {w: window.innerWidth, h: window.innerHeight, scroll: document.scrollingElement.scrollTop, boxes: {}};
        for (const [name, sel] of Object.entries(shown)) {
            const e = document.querySelector(sel);
            const b = e && e.getBoundingClientRect();
            out.boxes[name] = b && [b.left, b.top, b.right, b.bottom];
        }
        return out; }""", SHOWN)
    assert got["scroll"] == 0, f"{where}: the page is scrolled by {got['scroll']} px"
    for name, box in got["boxes"].items():
        assert box is not None, f"{where}: no {name}"
        left, top, right, bottom = box
        assert right - left > 20 and bottom - top > 5, f"{where}: {name} is not drawn: {box}"
        assert 0 <= top and bottom <= got["h"] and 0 <= left and right <= got["w"], (
            f"{where}: {name} {[round(v) for v in box]} leaves the {got['w']}x{got['h']} viewport")


def step_of(page) -> tuple[int, int]:
    """(N, total) of the label's "step N of total", read at once (no waiting)."""
    text = page.evaluate(f"() => document.querySelector('{LABEL}').innerText")
    m = re.search(r"step (\d+) of (\d+)", text)
    assert m, text
    return int(m.group(1)), int(m.group(2))


def label_px(page) -> float:
    return page.evaluate(f"() => parseFloat(getComputedStyle(document.querySelector('{LABEL}')).fontSize)")


def present(page) -> None:
    page.locator(f"{STEPPER} .explainer-present").click()
    assert presenting(page)


def leave(page) -> None:
    page.keyboard.press("Escape")
    page.wait_for_function(f"() => !document.querySelector('{STEPPER}').classList.contains('ex-presenting')",
                           timeout=5_000)
    # back in its place on the page (presenting, it sits in <body>, out of every ancestor's way)
    assert page.evaluate(f"() => document.querySelector('{STEPPER}').parentElement !== document.body")


@pytest.mark.browser
@pytest.mark.parametrize("width,height,scale", SCREENS)
def test_presenter_fits_the_screen(page02, open_page, page_errors, width, height, scale):
    page = open_page(page02.as_uri(), width, height, scale)
    where = f"{width}x{height} at {scale:g}x"
    present(page)
    assert_fits(page, f"{where}, 1024^3 T=16")
    page.keyboard.press("End")  # the store: C's line, the last of the code
    assert_fits(page, f"{where}, 1024^3 T=16, last step")
    leave(page)
    page.locator(f"{STEPPER} select.explainer-preset").select_option(SMALL)
    page.locator(LABEL).filter(has_text="step 1 of 17").wait_for(timeout=5_000)
    present(page)
    assert_fits(page, f"{where}, 8x8 preset")
    for _ in range(4):
        page.keyboard.press("PageDown")
    assert_fits(page, f"{where}, 8x8 preset, step 5")
    for _ in range(2):  # larger text: the figures make room, the code line stays in view
        page.locator(f"{STEPPER} .explainer-font-up").click()
    assert_fits(page, f"{where}, 8x8 preset, text 1.3x")
    leave(page)
    assert page_errors == []


@pytest.mark.browser
def test_presenter_keys_step_at_once_and_escape_leaves(page02, open_page, page_errors):
    page = open_page(page02.as_uri() + "?present", 1366, 768)
    assert presenting(page), "?present did not open presenter mode"
    assert_fits(page, "?present at 1366x768")
    n, total = step_of(page)
    assert n == 1 and total > 10
    # each key's step is on screen as soon as the key is handled (read with no waiting)
    for key, want in [("Space", 2), ("PageDown", 3), ("ArrowRight", 4), ("Shift+Space", 3), ("PageUp", 2),
                      ("ArrowLeft", 1), ("End", total), ("Shift+Space", total - 1), ("Home", 1)]:
        page.keyboard.press(key)
        assert step_of(page) == (want, total), f"after {key}"
    # not while typing: the focus in an input field keeps the keys for the field
    page.locator(f"{STEPPER} .explainer-speed").focus()
    for key in ("Space", "PageDown", "End"):
        page.keyboard.press(key)
        assert step_of(page) == (1, total), f"{key} in an input field stepped the view"
    page.evaluate("() => document.activeElement.blur()")
    # a click on a thread pins it in the scaled figure too (cell = the box / the grid's columns)
    at = page.evaluate(f"() => {VIEW}.centre('threads', 1, 2)")
    page.mouse.click(at["x"], at["y"])
    assert "thread (x=2, y=1)" in page.locator(SUM).inner_text()
    page.keyboard.press("PageDown")
    assert step_of(page) == (2, total)
    leave(page)
    assert page.evaluate("() => !document.documentElement.classList.contains('ex-presenting-doc')")
    page.keyboard.press("Space")  # no longer the presenter's: the page scrolls, the view stays
    assert step_of(page) == (2, total)
    page.keyboard.press("ArrowRight")  # the page's own arrow keys still step
    assert step_of(page) == (3, total)
    assert page_errors == []


@pytest.mark.browser
def test_font_size_control_changes_the_label(page02, open_page, page_errors):
    page = open_page(page02.as_uri() + "?present", 1920, 1080)
    assert presenting(page)
    px0 = label_px(page)
    page.locator(f"{STEPPER} .explainer-font-up").click()
    px1 = label_px(page)
    assert px1 > px0 * 1.1, (px0, px1)
    for _ in range(3):
        page.locator(f"{STEPPER} .explainer-font-down").click()
    px2 = label_px(page)
    assert px2 < px0 * 0.9, (px0, px2)
    assert_fits(page, "1920x1080, smaller text")
    # the choice is the lecturer's for the next page too
    page.reload()
    page.locator(LABEL).filter(has_text="step 1 of").wait_for(timeout=10_000)
    assert presenting(page)
    assert abs(label_px(page) - px2) < 0.5
    assert page_errors == []


@pytest.mark.browser
def test_presenter_in_the_live_app(voila_server, open_page, page_errors, record_property):
    """?present on the page Voila renders (its kernel answers nothing here: the steps are the browser's)."""
    page = open_page(voila_server.page_url("02_tiled.ipynb") + "?present", 1366, 768,
                     local=("http://localhost", "http://127.0.0.1", "ws://localhost", "ws://127.0.0.1", "data:", "blob:"))
    assert presenting(page), "?present did not open presenter mode in the live app"
    assert_fits(page, "live app, 1366x768")
    n, total = step_of(page)
    page.keyboard.press("Space")
    assert step_of(page) == (n + 1, total)
    page.keyboard.press("End")
    assert step_of(page) == (total, total)
    assert_fits(page, "live app, 1366x768, last step")
    leave(page)
    assert page_errors == [], page_errors


@pytest.mark.browser
@pytest.mark.parametrize("width,height,scale", SCREENS)
def test_naive_view_presents_too(site, open_page, page_errors, width, height, scale):
    naive = ".explainer-naive"
    page = open_page((site / "01_naive.html").as_uri() + "?present", width, height, scale,
                     ready=(f"{naive} .explainer-naive-text", "thread"))
    page.wait_for_function(f"() => document.querySelector('{naive}').classList.contains('ex-presenting')", timeout=5_000)
    got = page.evaluate(f"""() => {{
        const root = document.querySelector('{naive}'), fig = root.querySelector('.explainer-naive-fig');
        const text = root.querySelector('.explainer-naive-text');
        const box = (e) => {{ const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; }};
        return {{on: root.classList.contains('ex-presenting'), fig: box(fig), text: box(text),
                 w: innerWidth, h: innerHeight, scroll: document.scrollingElement.scrollTop}}; }}""")
    assert got["on"] and got["scroll"] == 0
    for name in ("fig", "text"):
        left, top, right, bottom = got[name]
        assert right - left > 100 and 0 <= left and right <= got["w"] and 0 <= top and bottom <= got["h"], (name, got)
    fig_w = got["fig"][2] - got["fig"][0]
    assert fig_w > 0.4 * got["w"], f"the figure is not scaled up to the screen: {fig_w} of {got['w']} px"
    # a click on C pins that element's thread in the scaled figure too
    at = page.evaluate(f"() => document.querySelector('{naive}').explainerView.centre('C', 3, 5)")
    page.mouse.click(at["x"], at["y"])
    hover = page.evaluate(f"() => document.querySelector('{naive}').explainerView.hover('C', 3, 5)")
    thread = re.search(r"thread \(x=\d+, y=\d+\)", hover).group(0)
    assert thread in page.locator(f"{naive} .explainer-naive-text").inner_text()
    page.keyboard.press("Escape")
    assert not page.evaluate(f"() => document.querySelector('{naive}').classList.contains('ex-presenting')")
    assert page_errors == []
