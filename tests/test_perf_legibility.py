"""Pages 06 and 07 read whole on a projector: no widget label of page 06 is cut off (ipywidgets
cuts a description at its ``description_width``), and page 07's roofline has a short legend (an
entry per kernel's series, its block sizes T in shades of the kernel's colour) in which no two
series look alike, while every point's hover text still names its kernel and T."""

from __future__ import annotations

import re

import ipywidgets as W
import pytest

from explainer import resources
from explainer.app import export
from explainer.pages import perf as pages_perf
from explainer.model import roofline
from explainer.gpu import recorded

PAGE06 = "06_tile_size_and_occupancy.ipynb"
#: ipywidgets' own description width (``--jp-widgets-inline-label-width``), where none is set.
DEFAULT_WIDTH = "80px"
#: Wider than any character of a widget label's 13 px sans-serif font, on average over a label.
PX_PER_CHAR = 7.5


@pytest.fixture(autouse=True)
def no_gpu(monkeypatch):
    monkeypatch.setenv("EXPLAINER_NO_GPU", "1")


def _widgets(w):
    yield w
    for c in getattr(w, "children", ()):
        yield from _widgets(c)


def _labelled(notebook: str):
    """Every widget of the live page that shows a description beside its control."""
    outputs = [v for kind, v in export._cells(resources.notebooks_dir() / notebook) if kind == "output"]
    for out in outputs:
        for w in _widgets(out) if isinstance(out, W.Widget) else ():
            if getattr(w, "description", "") and not isinstance(w, (W.Button, W.ToggleButton)):
                yield w


def _px(width: str | None) -> float | None:
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)px\s*", width or "")
    return float(m.group(1)) if m else None


def test_page06_labels_are_wide_enough():
    seen = []
    for w in _labelled(PAGE06):
        need = PX_PER_CHAR * len(w.description)
        width = getattr(w.style, "description_width", "") or DEFAULT_WIDTH
        if width != "initial":  # "initial": the label takes its text's width
            assert _px(width) is not None and _px(width) >= need, (
                f"{w.description!r} is cut off at description_width {width!r} (needs about {need:.0f}px)")
            need = _px(width)
        box = _px(w.layout.width)
        if box is not None:
            assert box - need >= 60, f"{w.description!r}: {box:.0f}px leave no room for the field after its label"
        seen.append(w.description)
    assert "registers / thread (0: ignore)" in seen and len(seen) >= 4, seen


def test_the_label_check_can_fail():
    w = W.IntText(description="registers / thread (0: ignore)", style={"description_width": "150px"})
    assert PX_PER_CHAR * len(w.description) > _px(w.style.description_width)


@pytest.mark.browser
def test_page06_labels_are_not_cut_off_in_voila(voila_server, browser_page, page_errors):
    page = browser_page
    page.goto(voila_server.page_url(PAGE06))
    page.locator(".explainer-occupancy .widget-label").first.wait_for(timeout=120_000)
    page.wait_for_timeout(500)
    cut = page.evaluate("""() => [...document.querySelectorAll('.widget-label')]
        .filter((e) => e.offsetParent !== null && e.textContent.trim())
        .map((e) => [e.textContent.trim(), e.scrollWidth, e.clientWidth])""")
    assert any(t == "registers / thread (0: ignore)" for t, _, _ in cut), cut
    assert [c for c in cut if c[1] > c[2]] == [], cut
    assert page_errors == []


# ---- page 07's roofline legend -----------------------------------------------------------------
def _look(tr) -> tuple:
    """What tells a series apart on the chart and in its legend: its colour (a marker series' first
    point's colour: the legend draws that one) and its marker symbol."""
    if "markers" in (tr.mode or ""):
        colour = tr.marker.color
        colour = colour[0] if isinstance(colour, (list, tuple)) else colour
        return colour, tr.marker.symbol or "circle"
    return tr.line.color, None


def test_page07_roofline_legend_is_short_and_each_series_looks_different():
    fig = pages_perf.roofline_page().children[0]
    visible = [tr for tr in fig.data if tr.visible is not False]
    entries = [tr for tr in visible if tr.showlegend is not False]
    assert 4 <= len(entries) <= 8, [tr.name for tr in entries]
    looks = [_look(tr) for tr in visible]
    assert len(set(looks)) == len(looks), looks
    # Every recorded point is still on the chart, and its hover text names its kernel and T.
    pts = pages_perf.roofline_points(recorded.load_recorded(), 4096, roofline.load_device_record())
    hovers = [h for tr in visible if isinstance(tr.hovertemplate, (list, tuple)) for h in tr.hovertemplate]
    for p in pts:
        name = f"{p['kernel']} T={p['tile']}:"
        assert sum(h.startswith(name) and "(model)" in h for h in hovers) == 1, name
        if p["dram_flop_per_byte"]:
            assert sum(h.startswith(name) and "DRAM moved (Nsight" in h for h in hovers) == 1, name
    # A kernel's T are shades of one colour, lighter for the smaller T.
    for tr in visible:
        if tr.legendgroup and tr.mode == "markers":
            tiles, colours = list(tr.customdata), list(tr.marker.color)
            assert len(set(colours)) == len(colours) == len(tiles)
            order = sorted(range(len(tiles)), key=lambda i: tiles[i])
            light = [sum(int(colours[i][j:j + 2], 16) for j in (1, 3, 5)) for i in order]
            assert light == sorted(light, reverse=True), (tr.legendgroup, tiles, colours)


def test_the_legend_check_can_fail():
    """One entry per kernel and T in one colour per kernel (the chart before): 16 entries, alike."""
    fig = pages_perf.roofline_page().children[0]
    shades = [_look(tr) for tr in fig.data]
    assert len(set(shades)) == len(shades)
    import plotly.graph_objects as go

    old = [go.Scatter(mode="markers", marker=dict(color="#f59e0b", symbol="circle"), name=f"naive T={t}")
           for t in (8, 16, 32)]
    assert len({_look(tr) for tr in old}) < len(old)
