"""Contents / previous / next: the bar at the top and bottom of every page.

One function writes its HTML for both doors: the live pages show it as an ``ipywidgets.HTML``
(:func:`explainer.pages.nav`, called from a notebook's first and last cells), and the static
export runs the same cells and rewrites the links, as it does for every link between
notebooks, from ``NN_name.ipynb`` to ``NN_name.html`` (``00_index.ipynb`` to ``index.html``).
The links are relative, so they work under Voila's ``/voila/render/``, under
``/voila/files/site/`` and from ``file://``. No key is bound: the steppers use the arrow keys.

Languages (:mod:`explainer.i18n`): the English pages are ``notebooks/NN_name.ipynb``, their
translations ``notebooks/zh-CN/NN_name.ipynb`` (the export writes ``DIR/`` and ``DIR/zh-CN/`` the
same way). The bar speaks the page's language, links the pages of that language (a page not yet
translated: its English twin, marked so), the glossary, and has a language menu linking this page
in the other language (``explainer-nav-lang``; the export remembers the reader's choice).
"""

from __future__ import annotations

import html
from pathlib import Path

from .. import i18n
from ..i18n import N_, _
from . import NOTEBOOKS_DIR, PAGES

INDEX = "00_index.ipynb"
INDEX_TITLE = N_("Contents")
GLOSSARY = "glossary.ipynb"
GLOSSARY_TITLE = N_("Glossary")
CLASS = "explainer-nav"  # the bar's class; its links are explainer-nav-contents / -prev / -next / -glossary / -lang

_BAR = ("display:flex;flex-wrap:wrap;align-items:baseline;gap:4px 18px;font-size:13px;line-height:1.5;"
        "color:#4b5563;background:#f9fafb;border:1px solid #e5e7eb;border-radius:4px;padding:4px 10px;"
        "margin:2px 0")
_LINK = "color:#1d4ed8;text-decoration:none"
_HERE = "flex:1 1 auto;text-align:center;color:#111827"


def sequence() -> list[tuple[str, str]]:
    """``(notebook, title)`` in reading order: the index, then the pages of
    :data:`explainer.pages.PAGES` that are present in ``notebooks/``."""
    first = [(INDEX, INDEX_TITLE)] if (NOTEBOOKS_DIR / INDEX).exists() else []
    return first + [(nb, title) for nb, title, _ in PAGES if (NOTEBOOKS_DIR / nb).exists()]


def number(notebook: str) -> int:
    """A page's number: its place in :data:`explainer.pages.PAGES` (1 for the first); 0 for the index."""
    if notebook == INDEX:
        return 0
    return next(i for i, (nb, _, _) in enumerate(PAGES, 1) if nb == notebook)


def label(notebook: str, title: str) -> str:
    return _(title) if notebook == INDEX else f"{number(notebook)} · {_(title)}"


def folder(lang: str) -> Path:
    """Where the notebooks of ``lang`` are: ``notebooks/`` (English), ``notebooks/zh-CN/``."""
    sub = i18n.FOLDERS[lang]
    return NOTEBOOKS_DIR / sub if sub else NOTEBOOKS_DIR


def translated(notebook: str, lang: str | None = None) -> bool:
    """Whether ``notebook`` exists in ``lang`` (default: the current language)."""
    return (folder(lang or i18n.language()) / notebook).exists()


def href(notebook: str, lang: str | None = None) -> str:
    """The link, from a page in ``lang`` (default: the current language), to ``notebook`` in the
    same language, or to its English twin when it has no translation yet."""
    lang = lang or i18n.language()
    if lang == i18n.DEFAULT or translated(notebook, lang):
        return notebook
    return "../" + notebook


def other_language(notebook: str, lang: str, target: str) -> str | None:
    """The link from ``notebook`` in ``lang`` to the same page in ``target``; None if it has none."""
    if not (folder(target) / notebook).exists():
        return None
    up = "../" if i18n.FOLDERS[lang] else ""
    down = f"{i18n.FOLDERS[target]}/" if i18n.FOLDERS[target] else ""
    return up + down + notebook


def language_menu(notebook: str) -> str:
    """English / 简体中文: the current language in bold, the other a link to this page in it."""
    lang = i18n.language()
    parts = []
    for code, name in i18n.LANGUAGES.items():
        if code == lang:
            parts.append(f'<b lang="{code}" aria-current="true">{name}</b>')
            continue
        link = other_language(notebook, lang, code)
        if link:
            parts.append(f'<a href="{html.escape(link, quote=True)}" class="{CLASS}-lang" hreflang="{code}" '
                         f'lang="{code}" data-lang="{code}" style="{_LINK}">{name}</a>')
        else:
            parts.append(f'<span lang="{code}" title="{html.escape(_("not translated yet"), quote=True)}" '
                         f'style="color:#9ca3af">{name}</span>')
    return (f'<span class="{CLASS}-langs" role="group" aria-label="{html.escape(_("Language"), quote=True)}">'
            + " / ".join(parts) + "</span>")


def neighbours(notebook: str) -> tuple[str | None, str | None]:
    """The notebooks before and after ``notebook`` in :func:`sequence` (None at either end)."""
    names = [nb for nb, _ in sequence()]
    if notebook not in names:
        raise ValueError(f"{notebook!r} is not a page (the pages: explainer.pages.PAGES, and {INDEX})")
    i = names.index(notebook)
    return (names[i - 1] if i > 0 else None), (names[i + 1] if i + 1 < len(names) else None)


def _link(notebook: str, text: str, kind: str, rel: str | None = None) -> str:
    r = f' rel="{rel}"' if rel else ""
    target = href(notebook)
    if target != notebook:  # a page not translated yet: its English twin, and the bar says so
        text += html.escape(_(" (in English)"))
    return (f'<a href="{html.escape(target, quote=True)}" class="{CLASS}-{kind}"{r} style="{_LINK}">'
            f"{text}</a>")


def nav_html(notebook: str) -> str:
    """The bar for ``notebook``: Contents (the index page), the previous page, this page's number
    and title, the next page. Links point at notebooks; the export relinks them to its pages."""
    seq = dict(sequence())
    if notebook == GLOSSARY:
        prev, nxt = None, None
    else:
        prev, nxt = neighbours(notebook)
    parts = []
    if notebook == INDEX:
        parts.append(f'<b class="{CLASS}-contents" aria-current="page">{html.escape(_(INDEX_TITLE))}</b>')
    elif INDEX in seq:
        parts.append(_link(INDEX, html.escape(_(INDEX_TITLE)), "contents"))
    if prev:
        parts.append(_link(prev, "← " + html.escape(label(prev, seq[prev])), "prev", "prev"))
    if notebook == INDEX:
        parts.append(f'<span style="{_HERE}"></span>')  # keeps "next" at the right
    elif notebook == GLOSSARY:
        parts.append(f'<span class="{CLASS}-here" aria-current="page" style="{_HERE}"><b>'
                     f"{html.escape(_(GLOSSARY_TITLE))}</b></span>")
    else:
        parts.append(f'<span class="{CLASS}-here" aria-current="page" style="{_HERE}">'
                     + _("Page {n} of {total}: <b>{title}</b>", n=number(notebook), total=len(PAGES),
                         title=html.escape(_(seq[notebook]))) + "</span>")
    if nxt:
        parts.append(_link(nxt, html.escape(label(nxt, seq[nxt])) + " →", "next", "next"))
    if notebook != GLOSSARY and (folder(i18n.DEFAULT) / GLOSSARY).exists():
        parts.append(_link(GLOSSARY, html.escape(_(GLOSSARY_TITLE)), "glossary"))
    parts.append(language_menu(notebook))
    return (f'<nav class="{CLASS}" aria-label="{html.escape(_("Pages"), quote=True)}" lang="{i18n.language()}" '
            f'style="{_BAR}">' + "".join(parts) + "</nav>")
