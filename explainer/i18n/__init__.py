"""English and 简体中文: the pages' words in the reader's language (the lowest layer: the model,
the views and the pages may all import it; it imports nothing of the package).

* ``_(msgid, **fields)`` / :func:`gettext`: the current language's text for the English
  ``msgid``; ``{name}`` fields are filled from ``fields`` (only names given are replaced, so a C
  brace or a JSON brace in a message is left alone, the same rule as ``tr()`` in
  ``views/common.js``).
* :func:`set_language` / :func:`language`: ``"en"`` or ``"zh-CN"``. A Chinese notebook calls
  ``set_language("zh-CN")`` in its first cell; without a call, a Voila page's ``?lang=zh-CN``
  (Voila hands the URL's query string to the kernel as ``QUERY_STRING``) or ``EXPLAINER_LANG``
  picks it, else English.
* :func:`js_strings`: the translations of every ``tr("...")`` of some front-end files, sent to
  the browser with a view (``BrowserView.i18n``): one catalogue for Python and JavaScript, no
  Chinese written in a ``.js`` file.

The catalogue is every ``.po`` file of ``locale/zh_CN/LC_MESSAGES/``: ``explainer.po`` (what
every page shares: the bar, the steppers' controls, the launch's messages, page 01) and one file
per part of the explainer (``tiled.po`` for the tiled stepper, ``questions.po`` for the quizzes,
...), so that translators can split the work; a msgid is in one file only (a test checks). They are
read at run time with Babel's ``read_po`` (milliseconds, once per process), not compiled to ``.mo``:
the ``.po`` files are what a translator edits and what the wheel ships (hatch packs every file
under ``explainer/``), with no build step that could leave a stale ``.mo`` beside them.
"""

from __future__ import annotations

import contextlib
import os
import re
from functools import lru_cache
from pathlib import Path
from urllib.parse import parse_qs

#: The languages, in the order the language menu lists them: code -> its name in itself.
LANGUAGES = {"en": "English", "zh-CN": "简体中文"}
DEFAULT = "en"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
DOMAIN = "explainer"
#: The folder (under notebooks/ and under an export) holding each language's pages; English at the top.
FOLDERS = {"en": "", "zh-CN": "zh-CN"}

_FIELD = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
_language: str | None = None


def _locale(lang: str) -> str:
    return lang.replace("-", "_")


def normalise(lang: str | None) -> str | None:
    """``"zh-CN"``, ``"zh_cn"``, ``"zh"`` -> ``"zh-CN"``; ``"en-US"`` -> ``"en"``; None if unknown."""
    if not lang:
        return None
    low = str(lang).strip().replace("_", "-").lower()
    for code in LANGUAGES:
        if low == code.lower() or low.split("-")[0] == code.lower().split("-")[0]:
            return code
    return None


def set_language(lang: str) -> str:
    """Show the pages' words in ``lang`` (``"en"`` or ``"zh-CN"``) from now on; returns it."""
    global _language
    code = normalise(lang)
    if code is None:
        raise ValueError(f"unknown language {lang!r}: the pages are in {', '.join(LANGUAGES)}")
    _language = code
    return code


def _from_environment() -> str | None:
    query = parse_qs(os.environ.get("QUERY_STRING", "") or "")
    return normalise((query.get("lang") or [None])[0]) or normalise(os.environ.get("EXPLAINER_LANG"))


def language() -> str:
    """The current language: the last :func:`set_language`, else the page's ``?lang=`` (Voila),
    else ``EXPLAINER_LANG``, else English."""
    return _language or _from_environment() or DEFAULT


@contextlib.contextmanager
def using(lang: str):
    """Inside this block the language is ``lang`` (the export builds each language's pages so)."""
    global _language
    before = _language
    set_language(lang)
    try:
        yield
    finally:
        _language = before


def po_path(lang: str) -> Path:
    """The shared catalogue of ``lang`` (``explainer.po``)."""
    return LOCALE_DIR / _locale(lang) / "LC_MESSAGES" / f"{DOMAIN}.po"


def po_paths(lang: str) -> list[Path]:
    """Every catalogue file of ``lang``: ``explainer.po`` first, then the others by name."""
    others = sorted(p for p in po_path(lang).parent.glob("*.po") if p.name != po_path(lang).name)
    return [po_path(lang), *others]


@lru_cache(maxsize=None)
def catalogue(lang: str) -> dict[str, str]:
    """``{msgid: translation}`` of ``lang`` (empty for English and for untranslated entries)."""
    if lang == DEFAULT:
        return {}
    from babel.messages.pofile import read_po

    out = {}
    for path in po_paths(lang):
        with open(path, "rb") as f:
            cat = read_po(f)
        out.update({m.id: m.string for m in cat if m.id and isinstance(m.id, str) and m.string and not m.fuzzy})
    return out


def fill(text: str, fields: dict) -> str:
    """``{name}`` replaced by ``fields[name]`` for the names given; every other brace kept."""
    if not fields:
        return text
    return _FIELD.sub(lambda m: str(fields[m.group(1)]) if m.group(1) in fields else m.group(0), text)


def gettext(msgid: str, **fields) -> str:
    """``msgid`` (English) in the current language, its ``{fields}`` filled."""
    lang = language()
    text = catalogue(lang).get(msgid, msgid) if lang != DEFAULT else msgid
    return fill(text, fields)


_ = gettext


def N_(msgid: str) -> str:
    """Marks ``msgid`` for the catalogue where it is defined (a table of labels); it is translated
    where it is shown, with ``_(label)``."""
    return msgid


def translated(msgid: str, lang: str) -> bool:
    """Whether the catalogue of ``lang`` has ``msgid`` (English always has it)."""
    return lang == DEFAULT or msgid in catalogue(lang)


# ---- the front end's strings ------------------------------------------------------------------
#: ``tr("...")`` in a view's ES module: a double-quoted literal (escapes as in JSON).
JS_CALL = re.compile(r'\btr\(\s*"((?:[^"\\]|\\.)*)"')


def js_msgids(text: str) -> list[str]:
    """The msgids of every ``tr("...")`` in ``text`` (a front-end module), in order."""
    import json

    return list(dict.fromkeys(json.loads(f'"{m}"') for m in JS_CALL.findall(text)))


@lru_cache(maxsize=None)
def _js_ids(files: tuple[str, ...]) -> tuple[str, ...]:
    from .. import resources

    return tuple(dict.fromkeys(i for f in files for i in js_msgids(resources.front_end(f))))


def js_strings(files, lang: str | None = None) -> dict:
    """What a view's front end (``files``) needs to speak ``lang`` (default: the current one):
    ``{"lang": code, "strings": {msgid: translation}}``; no strings for English."""
    lang = lang or language()
    cat = catalogue(lang)
    return {"lang": lang, "strings": {i: cat[i] for i in _js_ids(tuple(files)) if i in cat}}
