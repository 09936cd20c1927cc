"""The live app in 简体中文: Voila serving the Chinese notebooks (``notebooks/zh-CN/``), in headless
Chromium. What the browser draws and what Python answers on request (another mapping, a bad
launch's one line) are both in Chinese; the tiled stepper's labels too; no English prose outside
code, identifiers and names."""

from __future__ import annotations

import re

import pytest
from conftest import settle
from test_i18n_pages import ENGLISH_WORDS, _words_outside_code

pytestmark = pytest.mark.browser
TIMEOUT_MS = 120_000
NAIVE = ".explainer-naive"
NAIVE_TEXT = f"{NAIVE} .explainer-naive-text"


def han(text: str) -> int:
    return len(re.findall(r"[\u4e00-\u9fff]", text))


def english_prose(page) -> list[str]:
    return sorted({w for w in _words_outside_code(page) if w.lower() in ENGLISH_WORDS and w.lower() != "naive"})


def test_the_live_chinese_explorer_answers_in_chinese(voila_server, browser_page, page_errors):
    page = browser_page
    page.goto(voila_server.page_url("zh-CN/01_naive.ipynb"))
    page.locator(NAIVE_TEXT).filter(has_text="线性编号").wait_for(timeout=TIMEOUT_MS)
    settle(page)
    assert "There was an error when executing cell" not in page.inner_text("body")
    assert han(page.inner_text("body")) > 800
    assert english_prose(page) == []
    # Python's answer (the other mapping) comes back in Chinese
    page.locator(f"{NAIVE} .explainer-kernel button[data-value='naive_col']").click()
    page.locator(NAIVE_TEXT).filter(has_text="非合并访问").filter(has_not_text="正在计算").wait_for(timeout=30_000)
    # a launch CUDA refuses: one Chinese line, the last good state kept
    before = page.locator(NAIVE_TEXT).inner_text()
    field = lambda name: page.locator(f"{NAIVE} input[data-field='{name}']")  # noqa: E731
    field("blockDim.x").fill("64")
    field("blockDim.y").fill("32")
    field("blockDim.y").press("Enter")
    error = page.locator(f"{NAIVE} .explainer-error").filter(has_text="⚠")
    error.wait_for(timeout=30_000)
    line = error.inner_text().strip()
    assert "\n" not in line and "2048" in line and han(line) > 3, line
    assert not re.search(r"\b(threads|allows|block has)\b", line), line
    assert page.locator(NAIVE_TEXT).inner_text() == before
    assert page_errors == []


def test_the_live_chinese_tiled_page_steps_in_chinese(voila_server, browser_page, page_errors):
    page = browser_page
    page.goto(voila_server.page_url("zh-CN/02_tiled.ipynb"))
    label = page.locator(".explainer-stepper .explainer-step-label")
    label.filter(has_text="第 1 步，共").wait_for(timeout=TIMEOUT_MS)
    settle(page)
    page.locator(".explainer-stepper .explainer-next").first.click()
    label.filter(has_text="第 2 步，共").wait_for(timeout=10_000)
    assert han(page.inner_text("body")) > 600
    assert english_prose(page) == []
    assert page_errors == []


@pytest.mark.parametrize("name", ["03_boundaries.ipynb", "04_barriers.ipynb", "05_warps_and_coalescing.ipynb",
                                  "06_tile_size_and_occupancy.ipynb", "07_arithmetic_intensity_and_roofline.ipynb",
                                  "08_beyond_tiling.ipynb", "09_tensor_cores.ipynb"])
def test_the_live_chinese_pages_drawn_in_the_browser_speak_chinese(voila_server, browser_page, page_errors, name):
    """Pages 03-09 live: every view learns its page's words (the warps, the ladder, mma fragments,
    the pipeline and the hand-over too), as in the static pages."""
    page = browser_page
    page.goto(voila_server.page_url(f"zh-CN/{name}"))
    page.wait_for_function("() => document.querySelectorAll('.explainer-view').length > 0 && "
                           "[...document.querySelectorAll('.explainer-view')].every((v) => v.innerText.trim())",
                           timeout=TIMEOUT_MS)
    settle(page)
    assert "There was an error when executing cell" not in page.inner_text("body")
    assert han(page.inner_text("body")) > 600
    assert english_prose(page) == []
    assert page_errors == []
