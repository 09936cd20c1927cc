"""The Chinese names the pages quote from the course material render as glyphs, not as empty boxes:
the pages' font stacks (page.css, the views' CSS in common.js, the figures' ``SANS``) end in CJK
fonts, and Chromium draws the page 06 table titles with one of them. Needs a CJK font
(Debian's fonts-noto-cjk: ``make test`` installs it with chromium when run as root); without one the
test is skipped, except under CI, where it fails."""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest

from explainer import resources
from explainer.views.common import SANS

CJK = re.compile(r"[\u4e00-\u9fff]+")


def _cjk_font_installed() -> bool:
    if not shutil.which("fc-list"):
        return False
    return bool(subprocess.run(["fc-list", ":lang=zh"], capture_output=True, text=True).stdout.strip())


def test_every_font_stack_ends_in_cjk_fonts():
    css = resources.front_end("page.css")
    view_css = resources.front_end("common.js")
    for stack in (SANS, *re.findall(r"font(?:-family)?:\s*([^;]*sans-serif)", css + view_css)):
        assert "Noto Sans CJK SC" in stack and stack.index("Noto Sans CJK SC") < stack.index("sans-serif"), stack


def _quoted_names() -> list[str]:
    from explainer.pages import perf

    names = CJK.findall(open(perf.__file__, encoding="utf-8").read())
    assert names, "page 06 quotes the lab report's Chinese table titles"
    return names


@pytest.mark.browser
def test_chinese_names_render_as_glyphs(browser):
    if not _cjk_font_installed():
        reason = "no CJK font (apt-get install fonts-noto-cjk)"
        if os.environ.get("CI"):
            pytest.fail(f"CI must check the CJK glyphs, but {reason}", pytrace=False)
        pytest.skip(reason)
    text = _quoted_names()[0]
    page = browser.new_page()
    try:
        page.set_content(f"<html><head><style>{resources.front_end('page.css')}</style></head>"
                         f"<body><main><p id='t'>{text}</p></main></body></html>")
        # Each character drawn alone with the body's font: a glyph differs from the box drawn for a
        # character no font has (a private-use code point), and the characters differ from each other.
        shots = page.evaluate("""(text) => {
            const font = "32px " + getComputedStyle(document.getElementById('t')).fontFamily;
            const draw = (ch) => {
              const c = document.createElement('canvas'); c.width = 48; c.height = 48;
              const g = c.getContext('2d'); g.font = font; g.fillStyle = '#000'; g.fillText(ch, 4, 38);
              return Array.from(g.getImageData(0, 0, 48, 48).data).join(',');
            };
            return {box: draw('\\uE000'), glyphs: Array.from(text).map(draw)};
        }""", text)
    finally:
        page.close()
    assert all(g != shots["box"] for g in shots["glyphs"]), "drawn as empty boxes"
    assert len(set(shots["glyphs"])) == len(set(text)), "distinct characters drawn alike"


def test_every_stack_names_the_four_cjk_system_fonts():
    """Windows (Microsoft YaHei), macOS (PingFang SC), Linux (Noto Sans CJK SC, Source Han Sans SC): a
    Chinese page finds a font on the machine, nothing fetched (no @font-face, no URL)."""
    css = resources.front_end("page.css") + resources.front_end("common.js")
    for stack in (SANS, *re.findall(r"font(?:-family)?:\s*([^;]*sans-serif)", css)):
        for font in ("Microsoft YaHei", "PingFang SC", "Noto Sans CJK SC", "Source Han Sans SC"):
            assert font in stack, (font, stack)
    assert "@font-face" not in css and "url(" not in css


@pytest.mark.browser
def test_the_chinese_pages_words_render_as_glyphs(browser, tmp_path):
    """The glossary's Chinese terms, drawn by an exported Chinese page's own fonts (page.css on the
    page, the views' stack inside a view): each character's glyph differs from the box of a
    character no font has, and is as wide as a CJK glyph (about 1 em), not a fallback box."""
    if not _cjk_font_installed():
        reason = "no CJK font (apt-get install fonts-noto-cjk)"
        if os.environ.get("CI"):
            pytest.fail(f"CI must check the CJK glyphs, but {reason}", pytrace=False)
        pytest.skip(reason)
    from explainer.i18n.glossary import GLOSSARY

    text = "".join(dict.fromkeys("".join(t.zh for t in GLOSSARY)))
    view_css = re.search(r"const VIEW_CSS = `(.*?)`;", resources.front_end("common.js"), re.S).group(1)
    page = browser.new_page()
    try:
        page.set_content(f"<html lang='zh-CN'><head><style>{resources.front_end('page.css')}{view_css}</style></head>"
                         f"<body><main><p id='t'>{text}</p><div class='explainer-view'><p id='v'>{text}</p></div>"
                         "</main></body></html>")
        for sel in ("#t", "#v"):
            got = page.evaluate("""([sel, text]) => {
                const font = "32px " + getComputedStyle(document.querySelector(sel)).fontFamily;
                const c = document.createElement('canvas'); c.width = 48; c.height = 48;
                const g = c.getContext('2d'); g.font = font;
                const draw = (ch) => { g.clearRect(0, 0, 48, 48); g.fillStyle = '#000'; g.fillText(ch, 4, 38);
                                       return Array.from(g.getImageData(0, 0, 48, 48).data).join(','); };
                const box = draw('\\uE000');
                return Array.from(text).map((ch) => ({ch, glyph: draw(ch) !== box, width: g.measureText(ch).width}));
            }""", [sel, text])
            assert all(x["glyph"] for x in got), [x["ch"] for x in got if not x["glyph"]]
            assert all(28 <= x["width"] <= 36 for x in got), [(x["ch"], x["width"]) for x in got if not 28 <= x["width"] <= 36]
    finally:
        page.close()
