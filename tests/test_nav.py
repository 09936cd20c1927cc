"""Contents / previous / next (explainer.pages.navigation): one bar at the top and bottom of every
page, the same HTML for the live pages (links to notebooks) and the static ones (the export
relinks them to its pages). The browser tests follow the links: tests/test_app.py (live) and
tests/test_export.py (static)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import ipywidgets as W
import pytest

from explainer import pages
from explainer.app import export
from explainer.pages import navigation as nav

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
ALL = sorted(p.name for p in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
HREF = re.compile(r'<a href="([^"]+)" class="explainer-nav-(\w+)"(?: rel="(\w+)")?')


def _links(html: str) -> dict[str, str]:
    """kind (contents / prev / next / glossary / lang: the other language) -> href; rel must match
    the kind (none for contents, the glossary and the language menu)."""
    out = {}
    for href, kind, rel in HREF.findall(html):
        assert kind not in out, f"two {kind} links"
        assert rel == ("" if kind in ("contents", "glossary", "lang") else kind), (kind, rel)
        out[kind] = href
    assert html.count("<a ") == len(out), "a link that is not contents, prev, next, glossary or lang"
    return out


def test_the_pages_are_read_in_the_order_of_PAGES_after_the_index():
    order = [nb for nb, _ in nav.sequence()]
    assert order == [nav.INDEX] + [nb for nb, _, _ in pages.PAGES if (NOTEBOOKS / nb).exists()]
    assert sorted(order) == ALL, "every page in notebooks/ is in explainer.pages.PAGES, and no other"


def test_first_page_has_no_previous_and_last_no_next():
    order = [nb for nb, _ in nav.sequence()]
    first, last = _links(nav.nav_html(order[0])), _links(nav.nav_html(order[-1]))
    assert order[0] == nav.INDEX and "prev" not in first and "contents" not in first  # it is the contents
    assert first["next"] == order[1]
    assert "next" not in last and last["prev"] == order[-2] and last["contents"] == nav.INDEX
    assert nav.neighbours(order[0])[0] is None and nav.neighbours(order[-1])[1] is None


@pytest.mark.parametrize("notebook", ALL)
def test_every_link_points_to_an_existing_page_and_the_chain_holds(notebook):
    order = [nb for nb, _ in nav.sequence()]
    i = order.index(notebook)
    html = nav.nav_html(notebook)
    links = _links(html)
    for kind, href in links.items():
        assert (NOTEBOOKS / href).is_file(), f"{notebook}: {kind} -> {href}"
    assert links.get("prev") == (order[i - 1] if i else None)
    assert links.get("next") == (order[i + 1] if i + 1 < len(order) else None)
    if notebook != nav.INDEX:
        assert links["contents"] == nav.INDEX
        # this page's number and title, from PAGES; the neighbours' too
        n, (_, title, _) = next((n, p) for n, p in enumerate(pages.PAGES, 1) if p[0] == notebook)
        assert f"Page {n} of {len(pages.PAGES)}: <b>{title}</b>" in html
        assert 'aria-current="page"' in html
    for kind in ("prev", "next"):
        if kind in links and links[kind] != nav.INDEX:
            n, title = next((n, t) for n, (nb, t, _) in enumerate(pages.PAGES, 1) if nb == links[kind])
            assert f"{n} · {title}" in html, (notebook, kind)
    assert "<script" not in html and "onkey" not in html.lower() and "accesskey" not in html  # no keys bound


@pytest.mark.parametrize("notebook", ALL)
def test_the_static_bar_is_the_live_one_linking_the_exported_pages(notebook):
    live = nav.nav_html(notebook)
    static = export._relink(live)
    assert ".ipynb" not in static
    exported = {export.page_file(nb) for nb in ALL} | {export.page_file(nav.GLOSSARY)}
    exported |= {f"zh-CN/{export.page_file(nb)}" for nb in (NOTEBOOKS / "zh-CN").glob("*.ipynb") for nb in [nb.name]}
    links = _links(static)
    assert set(links.values()) <= exported
    assert {k: export.page_file(v) for k, v in _links(live).items()} == links
    assert re.sub(r'href="[^"]*"', "", live) == re.sub(r'href="[^"]*"', "", static)  # one source
    if notebook != nav.INDEX:
        assert links["contents"] == "index.html"


@pytest.mark.parametrize("notebook", ALL)
def test_every_notebook_opens_and_ends_with_its_bar(notebook):
    cells = [c for c in json.loads((NOTEBOOKS / notebook).read_text(encoding="utf-8"))["cells"]]
    src = ["".join(c["source"]) for c in cells]
    assert cells[0]["cell_type"] == "code" and src[0] == f'from explainer import pages\npages.nav("{notebook}")'
    assert cells[-1]["cell_type"] == "code" and src[-1] == f'pages.nav("{notebook}")'
    assert sum("pages.nav(" in s for s in src) == 2


def test_pages_nav_is_an_html_widget_of_the_bar():
    w = pages.nav("02_tiled.ipynb")
    assert isinstance(w, W.HTML) and w.value == nav.nav_html("02_tiled.ipynb")
    assert export._is_nav(w) and not export._is_nav(W.HTML("<b>x</b>"))


def test_a_notebook_that_is_not_a_page_is_refused():
    with pytest.raises(ValueError, match="not a page"):
        nav.nav_html("99_nothing.ipynb")
