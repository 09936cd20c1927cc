"""Contents / previous / next: the bar at the top and bottom of every page.

One function writes its HTML for both doors: the live pages show it as an ``ipywidgets.HTML``
(:func:`explainer.pages.nav`, called from a notebook's first and last cells), and the static
export runs the same cells and rewrites the links, as it does for every link between
notebooks, from ``NN_name.ipynb`` to ``NN_name.html`` (``00_index.ipynb`` to ``index.html``).
The links are relative, so they work under Voila's ``/voila/render/``, under
``/voila/files/site/`` and from ``file://``. No key is bound: the steppers use the arrow keys.
"""

from __future__ import annotations

import html

from . import NOTEBOOKS_DIR, PAGES

INDEX = "00_index.ipynb"
INDEX_TITLE = "Contents"
CLASS = "explainer-nav"  # the bar's class; its links are explainer-nav-contents / -prev / -next

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
    return title if notebook == INDEX else f"{number(notebook)} · {title}"


def neighbours(notebook: str) -> tuple[str | None, str | None]:
    """The notebooks before and after ``notebook`` in :func:`sequence` (None at either end)."""
    names = [nb for nb, _ in sequence()]
    if notebook not in names:
        raise ValueError(f"{notebook!r} is not a page (the pages: explainer.pages.PAGES, and {INDEX})")
    i = names.index(notebook)
    return (names[i - 1] if i > 0 else None), (names[i + 1] if i + 1 < len(names) else None)


def _link(notebook: str, text: str, kind: str, rel: str | None = None) -> str:
    r = f' rel="{rel}"' if rel else ""
    return (f'<a href="{html.escape(notebook, quote=True)}" class="{CLASS}-{kind}"{r} style="{_LINK}">'
            f"{text}</a>")


def nav_html(notebook: str) -> str:
    """The bar for ``notebook``: Contents (the index page), the previous page, this page's number
    and title, the next page. Links point at notebooks; the export relinks them to its pages."""
    seq = dict(sequence())
    prev, nxt = neighbours(notebook)
    parts = []
    if notebook == INDEX:
        parts.append(f'<b class="{CLASS}-contents" aria-current="page">{INDEX_TITLE}</b>')
    elif INDEX in seq:
        parts.append(_link(INDEX, INDEX_TITLE, "contents"))
    if prev:
        parts.append(_link(prev, "← " + html.escape(label(prev, seq[prev])), "prev", "prev"))
    if notebook == INDEX:
        parts.append(f'<span style="{_HERE}"></span>')  # keeps "next" at the right
    else:
        parts.append(f'<span class="{CLASS}-here" aria-current="page" style="{_HERE}">Page {number(notebook)} '
                     f"of {len(PAGES)}: <b>{html.escape(seq[notebook])}</b></span>")
    if nxt:
        parts.append(_link(nxt, html.escape(label(nxt, seq[nxt])) + " →", "next", "next"))
    return f'<nav class="{CLASS}" aria-label="Pages" style="{_BAR}">' + "".join(parts) + "</nav>"
