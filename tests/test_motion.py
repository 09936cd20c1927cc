"""Motion that shows the copy: in a load step of the tiled stepper (page 02) the value the pinned
thread copies flies, as a small token, from its cell of A to its cell of As. Nothing moves under
`prefers-reduced-motion: reduce` or with the "motion" box unticked, and a new step never waits
for the last one's flight: it replaces it."""

from __future__ import annotations

import math

import pytest
from conftest import export_pages

from explainer.model import Launch, steps
from explainer.views import common

VIEW = "document.querySelector('.explainer-stepper').explainerView"
SMALL = Launch("tiled", 8, 8, 8, 4)


@pytest.fixture(scope="module")
def page02(tmp_path_factory):
    return export_pages(tmp_path_factory, "02_tiled.ipynb") / "02_tiled.html"


def _open_small(browser, page02, page_errors, reduced=False):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    if reduced:
        page.emulate_media(reduced_motion="reduce")
    page.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file://") else r.abort())
    page.on("pageerror", lambda exc: page_errors.append(f"pageerror: {exc}"))
    page.goto(page02.as_uri())
    label = page.locator(".explainer-stepper .explainer-step-label")
    label.filter(has_text="step 1 of").wait_for(timeout=10_000)
    page.locator(".explainer-stepper select.explainer-preset").select_option("small: 8×8×8, T=4")
    label.filter(has_text=f"step 1 of {len(steps(SMALL))}").wait_for(timeout=5_000)
    return page


def _before_load_a() -> int:
    """The step (0-based) just before the second phase's load_a: Next lands on a load_a."""
    st = steps(SMALL)
    loads = [i for i, s in enumerate(st) if s.kind == "load_a"]
    assert loads and loads[-1] > 0
    return loads[-1] - 1


def _go(page, step: int) -> None:
    page.locator(".explainer-stepper .explainer-slider").evaluate(
        "(s, v) => { s.value = String(v); s.dispatchEvent(new Event('input')); }", step)
    page.locator(".explainer-stepper .explainer-step-label").filter(
        has_text=f"step {step + 1} of").wait_for(timeout=5_000)
    page.wait_for_timeout(700)  # any flight of that step is over


# Click Next, then read the token's centre at ~50 ms and ~250 ms (inside the page: no round trips).
SAMPLE = f"""async () => {{
  const root = document.querySelector('.explainer-stepper');
  const wait = (ms) => new Promise((r) => setTimeout(r, ms));
  const at = () => {{
    const t = root.querySelector('.explainer-token');
    if (!t) return null;
    const b = t.getBoundingClientRect();
    return {{ x: b.left + b.width / 2, y: b.top + b.height / 2, text: t.textContent }};
  }};
  const t0 = performance.now();
  root.querySelector('.explainer-next').click();
  await wait(50);
  const first = at(), t1 = performance.now() - t0;
  await wait(200);
  const second = at(), t2 = performance.now() - t0;
  return {{ first, second, t1, t2 }};
}}"""


def _dist(p, q) -> float:
    return math.hypot(p["x"] - q["x"], p["y"] - q["y"])


@pytest.mark.browser
def test_load_a_token_flies_from_a_to_as(page02, browser, page_errors):
    page = _open_small(browser, page02, page_errors)
    try:
        before = _before_load_a()
        _go(page, before)
        assert page.locator(".explainer-stepper .explainer-motion").is_checked()
        got = page.evaluate(SAMPLE)
        state = page.evaluate(f"() => {VIEW}.state()")
        assert state["step"] == before + 1
        assert steps(SMALL)[before + 1].kind == "load_a"
        first, second = got["first"], got["second"]
        assert first is not None and second is not None, got
        # where the pinned thread's copy comes from and goes to: its PINNED cells of A and As
        pinned = {name: page.evaluate(f"() => {VIEW}.colours('{name}')") for name in ("A", "As")}
        def only_pinned(grid):
            cells = [(r, c) for r, row in enumerate(grid) for c, v in enumerate(row) if v == common.PINNED]
            assert len(cells) == 1, grid
            return cells[0]

        a = page.evaluate(f"([r, c]) => {VIEW}.centre('A', r, c)", list(only_pinned(pinned["A"])))
        s = page.evaluate(f"([r, c]) => {VIEW}.centre('As', r, c)", list(only_pinned(pinned["As"])))
        span = _dist(a, s)
        assert span > 50
        assert got["t2"] < 400, got  # the second sample is still inside the flight
        # early: near A's cell; later: clearly closer to As's cell than it was
        assert _dist(first, a) < 0.45 * span, (first, a, s)
        assert _dist(second, s) < _dist(first, s) - 0.3 * span, (first, second, a, s)
        assert "A[" in first["text"]
        # the flight ends: no token lingers
        page.wait_for_timeout(900)
        assert page.locator(".explainer-stepper .explainer-token").count() == 0
        assert page_errors == []
    finally:
        page.close()


@pytest.mark.browser
def test_no_token_with_motion_off(page02, browser, page_errors):
    page = _open_small(browser, page02, page_errors)
    try:
        _go(page, _before_load_a())
        page.locator(".explainer-stepper .explainer-motion").uncheck()
        got = page.evaluate(SAMPLE)
        assert got["first"] is None and got["second"] is None, got
        assert page_errors == []
    finally:
        page.close()


@pytest.mark.browser
def test_no_token_under_reduced_motion(page02, browser, page_errors):
    page = _open_small(browser, page02, page_errors, reduced=True)
    try:
        _go(page, _before_load_a())
        assert page.locator(".explainer-stepper .explainer-motion").is_checked()
        got = page.evaluate(SAMPLE)
        assert got["first"] is None and got["second"] is None, got
        assert page_errors == []
    finally:
        page.close()


@pytest.mark.browser
def test_quick_steps_leave_at_most_one_token(page02, browser, page_errors):
    page = _open_small(browser, page02, page_errors)
    try:
        st = steps(SMALL)
        # Next twice quickly: load_a then load_b, each flies; the second replaces the first
        start = _before_load_a()
        assert start >= 0 and st[start + 2].kind == "load_b"
        _go(page, start)
        counts = page.evaluate("""async () => {
          const root = document.querySelector('.explainer-stepper');
          const next = root.querySelector('.explainer-next');
          const n = () => root.querySelectorAll('.explainer-token').length;
          const out = [];
          next.click(); next.click();
          for (let j = 0; j < 12; j++) { await new Promise((r) => requestAnimationFrame(r)); out.push(n()); }
          out.push(root.querySelector('.explainer-token') ? root.querySelector('.explainer-token').textContent : null);
          return out;
        }""")
        assert max(counts[:-1]) <= 1, counts
        assert counts[-1] is not None and counts[-1].startswith("B["), counts
        assert page.evaluate(f"() => {VIEW}.state().step") == start + 2
        # keys too: two arrow presses, one token
        page.keyboard.press("ArrowLeft")
        page.keyboard.press("ArrowRight")
        page.wait_for_timeout(30)
        assert page.locator(".explainer-stepper .explainer-token").count() <= 1
        assert page_errors == []
    finally:
        page.close()
