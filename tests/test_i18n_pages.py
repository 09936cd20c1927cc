"""The exported pages in 简体中文, opened from ``file://`` in Chromium with every other request
refused: page 01 shows no English prose outside code, identifiers and names; its explorer pins a
thread and says so in Chinese; a quiz answer is checked; the language menu switches both ways;
``?lang=`` is honoured; the index follows the browser's language and the remembered choice."""

from __future__ import annotations

import re
import shutil

import pytest

from explainer import i18n, resources
from explainer.app import export

pytestmark = pytest.mark.browser
ZH = "zh-CN"
PAGES = ("00_index.ipynb", "01_naive.ipynb", "glossary.ipynb")

#: Latin words a Chinese page may show outside <code>: names, units, identifiers the prose quotes
#: as they are (kernel names, CUDA built-ins, matrix names, the document and product names).
ALLOWED = set("""A B C M N K T k x y id lane naive naive_col row col sum float GPU CUDA DRAM SM FLOP GFLOP GB
B/s FLOP/B cuBLAS NVIDIA CuPy numpy Python JupyterLab tiled-explainer serve explainer gemm_tiled PMPP A100 RTX
Ti Fermi Width TILE_WIDTH BLOCK_SIZE float4 mbarrier mma sync TF32 tile Tile Tensor Core Warp bank pad ms
GEMM blockIdx threadIdx blockDim gridDim As Bs TODO Esc Home End PageDown PageUp Shift English MB H100 H200 HBM3
NVIDIA SXM PCIe nvidia hbm3 json recorded data explainer/data gb h100 h200 cupy cuda rc v""".split())
ALLOWED |= {"driver", "runtime", "nvrtc"}  # the recorded timings' version labels, shown as recorded


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    nb = resources.notebooks_dir()
    src = tmp_path_factory.mktemp("nb")
    (src / ZH).mkdir()
    for name in PAGES:
        shutil.copy(nb / name, src / name)
        shutil.copy(nb / ZH / name, src / ZH / name)
    out = tmp_path_factory.mktemp("site")
    export.export(out, notebooks=src, log=lambda *_: None)
    return out


def _words_outside_code(page) -> list[str]:
    """The Latin words of the visible text, outside code, figures and inputs."""
    text = page.evaluate("""() => {
      const skip = new Set(["CODE", "PRE", "SCRIPT", "STYLE", "SVG", "CANVAS", "INPUT", "TEXTAREA", "OPTION"]);
      const out = [];
      const walk = (n) => {
        if (n.nodeType === 3) { out.push(n.textContent); return; }
        if (n.nodeType !== 1 || skip.has(n.tagName.toUpperCase())) return;
        const s = getComputedStyle(n);
        if (s.display === "none" || s.visibility === "hidden") return;
        if (n.matches(".explainer-tip, .ex-footer *, .explainer-yourturn-line")) return;  // (those lines are code)
        if (n.matches("span[lang]")) return;  // a source document quoted in its own words
        for (const c of n.childNodes) walk(c);
      };
      walk(document.body);
      return out.join(" ");
    }""")
    text = re.sub(r"\d(?:\.\d+)?e[-+]\d+", " ", text)  # numbers such as 1.2e-07
    text = re.sub(r"\w+<<<[^>]*>>>", " ", text)  # a launch written as code: kernel<<<grid, block, bytes>>>
    return [w for w in re.findall(r"[A-Za-z][A-Za-z0-9_/-]*(?:\.[A-Za-z_]+)*", text) if w not in ALLOWED]


#: Common English words: any of these on a Chinese page is untranslated prose.
ENGLISH_WORDS = set("""the and of to in is for with that this each thread threads block blocks grid kernel page
pages step check answer type reads read element elements warp computes outside whole launch global loads
question another reveal show working right wrong measured recorded static live app needs contents glossary
previous next apply present hint start over exercise write naive from your what which""".split())


def test_exported_page_01_in_chinese_has_no_english_prose(site, file_page, page_errors):
    page = file_page
    page.goto((site / ZH / "01_naive.html").as_uri())
    page.wait_for_selector(".explainer-naive .explainer-naive-text b")
    page.wait_for_selector(".explainer-quiz-q")
    han = len(re.findall(r"[\u4e00-\u9fff]", page.inner_text("body")))
    words = _words_outside_code(page)
    stray = [w for w in words if w.lower() in ENGLISH_WORDS or len(w) > 3 and w.islower() and "_" not in w
             and "." not in w and "/" not in w]
    print("Latin words outside code (names, identifiers):", sorted(set(words)))
    assert han > 800, han
    assert stray == [], f"English words on the Chinese page 01: {sorted(set(stray))}"
    assert page.evaluate("document.documentElement.lang") == ZH
    assert page.outside == [] and page_errors == []


def test_exported_chinese_explorer_pins_a_thread_and_a_quiz_answer_is_checked(site, file_page, page_errors):
    page = file_page
    page.goto((site / ZH / "01_naive.html").as_uri())
    page.wait_for_selector(".explainer-naive .explainer-naive-text b")
    view = "document.querySelector('.explainer-naive').explainerView"
    before = page.evaluate(f"{view}.state()")
    c = page.evaluate(f"{view}.centre('C', 0, 0)")
    page.mouse.click(c["x"], c["y"])
    after = page.evaluate(f"{view}.state()")
    assert after != before
    (bx, by), (tx, ty) = after["block"], after["thread"]
    text = page.inner_text(".explainer-naive-text")
    assert f"线程块 (x={bx}, y={by})，线程 (x={tx}, y={ty})" in text and "线程束" in text
    assert "点击选中" in page.evaluate(f"{view}.hover('C', 0, 0)")
    assert page.inner_text(".explainer-naive .explainer-kernel") and "核函数" in page.inner_text(".explainer-naive")
    # a typed thread outside the block: the one-line message, in Chinese
    page.fill(".explainer-naive input[data-field='threadIdx.x']", "999")
    page.dispatch_event(".explainer-naive input[data-field='threadIdx.x']", "change")
    assert "在" in page.inner_text(".explainer-naive .explainer-error") and "之外" in page.inner_text(".explainer-naive .explainer-error")
    # the quiz: the right answer of the first question, then a wrong one, checked in Chinese
    q = page.evaluate("document.querySelector('.explainer-quiz').explainerView.state()")
    assert q["keys"]
    first = page.locator(".explainer-quiz-q").first
    first.locator(".explainer-quiz-input").fill("")
    first.locator(".explainer-quiz-check").click()
    assert "请先输入答案" in first.locator(".explainer-quiz-error").inner_text()
    key = q["keys"][0]
    from explainer.model import questions as Q

    with i18n.using(ZH):
        qq = next(x for x in Q.questions("01_naive", q["seed"], _pool()) if x.key == key)
    answer = {"cells": lambda: "无" if qq.answer == [None] else f"C[{qq.answer[0][0]}][{qq.answer[0][1]}]",
              "ints": lambda: ", ".join(map(str, qq.answer))}[qq.form["kind"]]()
    first.locator(".explainer-quiz-input").fill(answer)
    first.locator(".explainer-quiz-check").click()
    verdict = first.locator(".explainer-quiz-verdict")
    assert verdict.get_attribute("data-status") == "right" and "正确" in verdict.inner_text()
    assert first.locator(".explainer-quiz-check").inner_text() == "核对"
    assert page.outside == [] and page_errors == []


def _pool():
    from explainer.pages.exercises import STEPPER_PAGES, stepper_pool

    return stepper_pool() if "01_naive" in STEPPER_PAGES else None


def test_the_language_menu_switches_both_ways(site, file_page, page_errors):
    page = file_page
    page.goto((site / "01_naive.html").as_uri())
    page.locator("nav.explainer-nav a.explainer-nav-lang").first.click()
    page.wait_for_url("**/zh-CN/01_naive.html")
    assert "朴素核函数" in page.inner_text("h1")
    assert page.evaluate("localStorage.getItem('explainer-lang')") == ZH
    page.locator("nav.explainer-nav a.explainer-nav-lang").first.click()
    page.wait_for_url(re.compile(r".*/site\d*/01_naive\.html$"))
    assert "naive kernel" in page.inner_text("h1")
    assert page.evaluate("localStorage.getItem('explainer-lang')") == "en"
    # the glossary is linked from the bar, in the same language
    page.goto((site / ZH / "01_naive.html").as_uri())
    page.locator("nav.explainer-nav a.explainer-nav-glossary").first.click()
    page.wait_for_url("**/zh-CN/glossary.html")
    assert page.locator("table.explainer-glossary tr.explainer-glossary-term").count() >= 17
    assert page.outside == [] and page_errors == []


def test_lang_in_the_url_is_honoured(site, file_page, page_errors):
    page = file_page
    page.goto((site / "01_naive.html").as_uri() + "?lang=zh-CN")
    page.wait_for_url("**/zh-CN/01_naive.html")
    page.goto((site / ZH / "01_naive.html").as_uri() + "?lang=en")
    page.wait_for_url(re.compile(r".*/site\d*/01_naive\.html$"))
    assert page.outside == [] and page_errors == []


def test_the_index_follows_the_browsers_language(site, browser):
    for locale, stored, lands in (("zh-CN", None, "zh-CN/index.html"), ("en-US", None, "index.html"),
                                  ("zh-CN", "en", "index.html")):
        context = browser.new_context(locale=locale)
        outside = []
        context.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file://")
                      else (outside.append(r.request.url), r.abort()))
        page = context.new_page()
        if stored:
            page.goto((site / "glossary.html").as_uri())
            page.evaluate(f"localStorage.setItem('explainer-lang', '{stored}')")
        page.goto((site / "index.html").as_uri())
        page.wait_for_load_state("load")
        page.wait_for_timeout(300)
        assert page.url.endswith("/" + lands) and (lands.startswith("zh") or "/zh-CN/" not in page.url), (locale, page.url)
        assert outside == []
        context.close()


def test_the_tiled_stepper_and_the_tables_of_pages_02_to_04_speak_chinese():
    """What Python sends pages 02-04's stepper and the tables it writes there, in 简体中文: Chinese in
    each, and no common English word outside the model's own sentences (hazards' reports and the
    unguarded kernel's addresses, written by explainer.model, are only checked for Chinese around them).
    No browser: the stepper's own controls are tr() strings, checked by tests/test_i18n.py."""
    from explainer.model import Launch
    from explainer.pages import edges, reuse_table, strip
    from explainer.views import tiled
    from explainer.views.common import LEGEND, STEP_WORDS

    # the stepper's words defined in views/common.py (marked there with N_()) are all in the catalogue
    cat = i18n.catalogue(ZH)
    assert all(cat.get(t) for t in set(STEP_WORDS.values()) | {t for _, t in LEGEND})
    with i18n.using(ZH):
        meta, _ = tiled.tiled_data(Launch("tiled", 3, 3, 3, 2), (1, 0), mark_ghosts=True, exercise=True)
        clean = [*meta["words"].values(), *(t for _, t in meta["legend"]), meta["where"], meta["title_global"],
                 meta["title_shared"], *meta["title_k"], meta["title_m"], meta["summary"], meta["loop_text"],
                 meta["store_text"], meta["thread_range"], meta["block_range"], meta["exercise"]["title"],
                 meta["exercise"]["intro"], reuse_table().value, strip.strip_vs_window_html(), edges.counts_table().value]
        model_said = [edges.hazard_table().value, edges.unguarded_panel().value]
    for text in clean + model_said:
        assert re.search(r"[\u4e00-\u9fff]", text), text
    for text in clean:
        words = re.findall(r"[A-Za-z][A-Za-z0-9_/-]*(?:\.[A-Za-z_]+)*(?:\(\))?", re.sub(r"<[^>]+>", " ", text))
        prose = [w for w in words if not re.search(r"[._/()]", w)]  # (names such as explainer.model.Launch.stats() are code)
        assert not [w for w in prose if w.lower() in ENGLISH_WORDS], text
