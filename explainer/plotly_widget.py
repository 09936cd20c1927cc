"""A plotly FigureWidget that loads plotly's 5 MB front-end bundle once per page, not once per figure.

plotly >= 6 builds FigureWidget on anywidget and ships its whole bundle (plotly.js + the widget
code, about 5 MB) as each figure's ``_esm`` state. A page with three figures therefore sends and
compiles 15 MB of JavaScript, and anywidget rejects a model whose set-up takes more than 2 s
("[anywidget] Failed to initialize model."), which happens on a busy 2-core machine.

Here one small :class:`PlotlyRuntime` widget carries the bundle as plain data and imports it in
the background, once; every :class:`Figure` carries a 1 KB ``_esm`` that returns at once and
hands its model to plotly's own widget code when the bundle is ready. Python-side, a
:class:`Figure` is an ordinary ``go.FigureWidget``.
"""

from __future__ import annotations

import re
import sys
from functools import lru_cache
from pathlib import Path

import anywidget
import plotly
import plotly.graph_objects as go
import traitlets

_BUNDLE = Path(plotly.__file__).parent / "package_data" / "widgetbundle.js"

_RUNTIME_ESM = """
export default {
  initialize({ model }) {
    // Import plotly's widget bundle once per page, without holding up anywidget's set-up.
    if (!globalThis.__explainerPlotly) {
      const url = URL.createObjectURL(new Blob([model.get("bundle")], { type: "text/javascript" }));
      globalThis.__explainerPlotly = import(url).then((m) => m.default);
    }
  },
  render({ el }) { el.style.display = "none"; },
};
"""

_FIGURE_ESM = """
function plotlyWidget() {
  // The runtime widget may be created after this one: wait for it.
  return new Promise((resolve) => {
    const wait = () => (globalThis.__explainerPlotly ? resolve(globalThis.__explainerPlotly) : setTimeout(wait, 20));
    wait();
  });
}
export default () => {
  let widget = null;
  let ready = null;
  return {
    initialize(ctx) {
      // Not awaited: anywidget allows 2 s for set-up, compiling plotly.js can take longer.
      ready = plotlyWidget().then((factory) => { widget = factory(); return widget.initialize(ctx); });
    },
    async render(ctx) {
      await ready;
      return widget.render(ctx);
    },
  };
};
"""


class PlotlyRuntime(anywidget.AnyWidget):
    """Carries plotly's front-end bundle; display it once on any page that shows a Figure."""

    _esm = _RUNTIME_ESM
    bundle = traitlets.Unicode().tag(sync=True)


@lru_cache(maxsize=None)
def runtime() -> PlotlyRuntime:
    """The one runtime widget of this kernel."""
    return PlotlyRuntime(bundle=_BUNDLE.read_text(encoding="utf-8"))


def _figure_widget_class():
    """``go.FigureWidget``, imported without jsonschema's optional IRI checker.

    The import chain plotly.basewidget -> nbformat -> jsonschema tries ``rfc3987_syntax``, which
    compiles a grammar at import: 0.86 s of a page's 1.0 s start on a 2-core machine. Nothing
    here validates IRIs, so that one optional import is refused while plotly loads (jsonschema
    then skips the checker) and allowed again afterwards.
    """
    blocked = "rfc3987_syntax" not in sys.modules
    if blocked:
        sys.modules["rfc3987_syntax"] = None  # makes `import rfc3987_syntax` raise ImportError
    try:
        return go.FigureWidget
    finally:
        if blocked and sys.modules.get("rfc3987_syntax", 0) is None:
            del sys.modules["rfc3987_syntax"]


class Figure(_figure_widget_class()):
    """``go.FigureWidget`` whose front end comes from :func:`runtime` (display that too)."""

    _esm = _FIGURE_ESM


def check_bundle() -> bool:
    """plotly's bundle still has the single default export this module relies on."""
    text = _BUNDLE.read_text(encoding="utf-8")
    return bool(re.search(r"export\s*\{[^}]*\bas default\b[^}]*\}", text))
