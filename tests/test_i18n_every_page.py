"""Every page in 简体中文, exported and opened from ``file://`` in Chromium with every other request
refused: no English prose outside code, identifiers and names (the visible text's Latin words
against a list of common English words); each page's steppers step and its quiz answers in
Chinese; no page error. Page 01 and the index are checked in more detail by test_i18n_pages.py."""

from __future__ import annotations

import re

import pytest
from test_i18n_pages import ENGLISH_WORDS, _words_outside_code

from explainer import i18n, resources
from explainer.app import export

pytestmark = pytest.mark.browser
ZH = "zh-CN"
PAGES = sorted(p.name for p in (resources.notebooks_dir() / ZH).glob("[0-9][0-9]_*.ipynb")
               if p.name not in ("00_index.ipynb", "01_naive.ipynb"))
#: Common English words a Chinese page may show because they are names: the kernels' names
#: (naive, tiled ...), the rung names and the recorded devices' words.
NAMES = {"tiled", "naive", "strip", "warptile", "blocktile", "vectorized", "hopper", "ampere", "turing", "fermi"}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    export.export(out, log=lambda *_: None, langs=(ZH,))
    return out / ZH


def test_every_page_is_translated():
    english = sorted(p.name for p in resources.notebooks_dir().glob("[0-9][0-9]_*.ipynb"))
    assert sorted(p.name for p in (resources.notebooks_dir() / ZH).glob("[0-9][0-9]_*.ipynb")) == english


@pytest.mark.parametrize("name", PAGES)
def test_the_chinese_page_has_no_english_prose_and_its_views_work(site, name, file_page, page_errors):
    page = file_page
    page.goto((site / name.replace(".ipynb", ".html")).as_uri())
    page.wait_for_load_state("load")
    page.wait_for_function("() => [...document.querySelectorAll('.ex-view')].every((v) => v.querySelector('.explainer-view, .explainer-quiz, div'))",
                           timeout=60_000)
    page.wait_for_timeout(500)
    han = len(re.findall(r"[\u4e00-\u9fff]", page.inner_text("body")))
    words = _words_outside_code(page)
    stray = sorted({w for w in words if w.lower() in ENGLISH_WORDS and w.lower() not in NAMES})
    assert han > 600, han
    assert stray == [], f"English words on the Chinese {name}: {stray}"
    assert page.evaluate("document.documentElement.lang") == ZH
    # every stepper steps: its "next" control moves it (a view without one has nothing to step)
    for nxt in page.locator("button[class$='-next'], button.explainer-next").all():
        if nxt.is_visible() and nxt.is_enabled():
            nxt.click()
    # the quiz answers in Chinese: an empty answer is refused with a Chinese line
    q = page.locator(".explainer-quiz-q").first
    if q.count():
        q.locator(".explainer-quiz-input").fill("")
        q.locator(".explainer-quiz-check").click()
        assert re.search(r"[\u4e00-\u9fff]", q.locator(".explainer-quiz-error").inner_text())
    assert page.outside == [] and page_errors == []


@pytest.mark.parametrize("width,height,scale", [(1920, 1080, 1), (1280, 720, 1.5), (1366, 768, 1)],
                         ids=["1920x1080", "1920x1080-at-150pct", "1366x768"])
def test_the_chinese_presenter_layout_fits(site, screen_page, page_errors, width, height, scale):
    """Page 02 in Chinese presented on a projector's screens: the figures and the highlighted code
    line on screen, nothing scrolled, the clicker's keys step (the Chinese labels are no wider
    than the layout allows)."""
    from test_present import LABEL, STEPPER, assert_fits

    page = screen_page(width, height, scale)
    page.goto((site / "02_tiled.html").as_uri() + "?present")
    page.locator(LABEL).filter(has_text="第 1 步，共").wait_for(timeout=120_000)
    where = f"zh-CN {width}x{height} at {scale:g}x"
    page.wait_for_function(f"() => document.querySelector('{STEPPER}').classList.contains('ex-presenting')",
                           timeout=5_000)
    assert_fits(page, where)
    page.keyboard.press("PageDown")
    page.locator(LABEL).filter(has_text="第 2 步，共").wait_for(timeout=5_000)
    page.keyboard.press("End")
    assert_fits(page, f"{where}, last step")
    page.keyboard.press("Escape")
    page.locator(f"{STEPPER} select.explainer-preset").select_option(_small_preset())
    page.locator(LABEL).filter(has_text="第 1 步，共 17 步").wait_for(timeout=10_000)
    page.locator(f"{STEPPER} .explainer-present").click()
    for _ in range(2):
        page.locator(f"{STEPPER} .explainer-font-up").click()
    assert_fits(page, f"{where}, 8×8 preset, text 1.3×")
    assert page_errors == []


def _small_preset() -> str:
    """The 8×8×8 preset's entry as the Chinese menu names it."""
    with i18n.using(ZH):
        return i18n.gettext("small: 8×8×8, T=4")
