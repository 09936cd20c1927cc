"""The pages' prose, one text file per page per language, edited without Python.

``explainer/text/en/01_naive.md`` holds page 01's cells in English, ``explainer/text/zh-CN/01_naive.md``
the same cells in 简体中文; ``tools/make_notebooks.py`` builds ``notebooks/01_naive.ipynb`` and
``notebooks/zh-CN/01_naive.ipynb`` from them. The format:

* cells are separated by a line ``<!-- cell -->``;
* a cell that is nothing but a fenced ```` ```python ```` block is a code cell (one- to three-line
  calls into ``explainer``); every other cell is Markdown (a fenced block inside it stays prose);
* ``{name}`` in Markdown is a computed value, filled by the generator from the model (a brace
  followed by anything but a name, as in C code, is left alone);
* a translation opens with ``<!-- translation-of: en/01_naive.md sha256:<12 hex> -->``: the English
  it translates. When the English changed since (another hash), the page opens with a one-line
  notice that the translation may be out of date, and ``tests/test_i18n.py`` reports it
  (``python -m explainer.i18n.prose`` lists the stale ones; ``--stamp PAGE`` records that a
  translation is up to date again).
"""

from __future__ import annotations

import hashlib
import re
import sys
from dataclasses import dataclass
from pathlib import Path

TEXT_DIR = Path(__file__).resolve().parent.parent / "text"
SEPARATOR = "<!-- cell -->"
HEADER = re.compile(r"^<!-- translation-of: en/(?P<page>[\w.-]+)\.md sha256:(?P<hash>[0-9a-f]{12}) -->\n")
FIELD = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
CODE_CELL = re.compile(r"^```python\n(?P<src>.*?)\n```$", re.S)
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
#: The notice a stale translation opens with (an msgid: its Chinese is "这一页的英文已更新，译文可能过时").
STALE_NOTICE = "The English of this page has been updated; this translation may be out of date."


@dataclass(frozen=True)
class Prose:
    page: str  # "01_naive"
    lang: str
    cells: tuple[tuple[str, str], ...]  # ("md" | "code", source)
    translates: str | None = None  # the English's hash this translation follows (None: English)


def path(page: str, lang: str) -> Path:
    return TEXT_DIR / lang / f"{page}.md"


def pages(lang: str = "en") -> list[str]:
    """The pages with prose in ``lang``, sorted."""
    return sorted(p.stem for p in (TEXT_DIR / lang).glob("*.md"))


def _text(p: Path) -> str:
    return p.read_text(encoding="utf-8").replace("\r\n", "\n")


def english_hash(page: str) -> str:
    """The first 12 hex digits of the sha256 of the English file (what a translation records)."""
    return hashlib.sha256(_text(path(page, "en")).encode("utf-8")).hexdigest()[:12]


def read(page: str, lang: str = "en") -> Prose:
    text = _text(path(page, lang))
    translates = None
    m = HEADER.match(text)
    if lang != "en":
        if not m or m.group("page") != page:
            raise ValueError(f"{path(page, lang)} must open with <!-- translation-of: en/{page}.md sha256:... -->")
        translates, text = m.group("hash"), text[m.end():]
    cells = []
    for chunk in text.split(f"\n{SEPARATOR}\n"):
        chunk = chunk.strip("\n")
        if not chunk:
            continue
        code = CODE_CELL.match(chunk)
        cells.append(("code", code.group("src")) if code else ("md", chunk))
    return Prose(page, lang, tuple(cells), translates)


def stale(page: str, lang: str) -> bool:
    """Whether the English of ``page`` changed since its ``lang`` translation was made."""
    return lang != "en" and read(page, lang).translates != english_hash(page)


def fields_in(markdown: str) -> set[str]:
    """The ``{name}`` fields of a Markdown cell, outside its fenced code blocks."""
    return set(FIELD.findall(FENCE.sub("", markdown)))


def fill(markdown: str, fields: dict) -> str:
    """The cell's ``{name}`` fields filled (outside fenced code); a field with no value is an error."""
    missing = fields_in(markdown) - set(fields)
    if missing:
        raise KeyError(f"no value for {', '.join(sorted(missing))}")
    out, last = [], 0
    for m in FENCE.finditer(markdown):
        out.append(FIELD.sub(lambda f: str(fields[f.group(1)]), markdown[last:m.start()]))
        out.append(m.group(0))
        last = m.end()
    out.append(FIELD.sub(lambda f: str(fields[f.group(1)]), markdown[last:]))
    return "".join(out)


def cells(page: str, lang: str, fields: dict | None = None) -> list[tuple[str, str]]:
    """The notebook cells of ``page`` in ``lang``: Markdown filled with ``fields``; a stale
    translation opens with :data:`STALE_NOTICE` in its language."""
    from . import using, _

    prose = read(page, lang)
    out = [(kind, fill(src, fields or {}) if kind == "md" else src) for kind, src in prose.cells]
    if stale(page, lang):
        with using(lang):
            out.insert(0, ("md", f'<div class="explainer-stale-translation">⚠ {_(STALE_NOTICE)}</div>'))
    return out


def paragraphs(markdown: str) -> list[str]:
    """A Markdown cell's blocks: its fenced code blocks whole, the rest split at blank lines."""
    out, last = [], 0
    for m in FENCE.finditer(markdown):
        out += [p for p in re.split(r"\n\s*\n", markdown[last:m.start()]) if p.strip()]
        out.append(m.group(0))
        last = m.end()
    out += [p for p in re.split(r"\n\s*\n", markdown[last:]) if p.strip()]
    return out


def differences(page: str, lang: str) -> list[str]:
    """Where the ``lang`` file of ``page`` is not in step with the English, one line each: a cell
    or paragraph in one and not the other, code that differs, a field one uses and the other not."""
    en, tr = read(page, "en").cells, read(page, lang).cells
    out = []
    if len(en) != len(tr):
        out.append(f"{page}: {len(en)} cells in English, {len(tr)} in {lang}")
    for i, ((ke, se), (kt, st)) in enumerate(zip(en, tr)):
        if ke != kt:
            out.append(f"{page} cell {i}: {ke} in English, {kt} in {lang}")
        elif ke == "code" and se != st:
            out.append(f"{page} cell {i}: the code differs")
        elif ke == "md":
            pe, pt = paragraphs(se), paragraphs(st)
            if len(pe) != len(pt):
                out.append(f"{page} cell {i}: {len(pe)} paragraphs in English, {len(pt)} in {lang}")
            fe, ft = [p for p in pe if p.startswith("```")], [p for p in pt if p.startswith("```")]
            if fe != ft:
                out.append(f"{page} cell {i}: its code blocks differ")
            if fields_in(se) != fields_in(st):
                out.append(f"{page} cell {i}: fields {sorted(fields_in(se))} in English, {sorted(fields_in(st))} in {lang}")
    return out


def stamp(page: str, lang: str) -> None:
    """Record that the ``lang`` translation of ``page`` follows the English as it is now."""
    p = path(page, lang)
    text = _text(p)
    body = text[HEADER.match(text).end():] if HEADER.match(text) else text
    p.write_text(f"<!-- translation-of: en/{page}.md sha256:{english_hash(page)} -->\n" + body, encoding="utf-8")


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--stamp"] and len(argv) == 3:
        stamp(argv[1], argv[2])
        print(f"{path(argv[1], argv[2])}: translates the English as it is now")
        return 0
    bad = 0
    for lang in ("zh-CN",):
        for page in pages(lang):
            diffs = differences(page, lang)
            state = "stale (the English changed since)" if stale(page, lang) else "up to date"
            print(f"{lang}/{page}: {state}" + "".join(f"\n  {d}" for d in diffs))
            bad += bool(diffs)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
