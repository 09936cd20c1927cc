"""A plotly FigureWidget that loads plotly's 5 MB front-end bundle once per page, not once per figure.

plotly >= 6 builds FigureWidget on anywidget and ships its whole bundle (plotly.js + the widget
code, about 5 MB) as each figure's ``_esm`` state. A page with three figures therefore sends and
compiles 15 MB of JavaScript, and anywidget rejects a model whose set-up takes more than 2 s
("[anywidget] Failed to initialize model."), which happens on a busy 2-core machine.

Here one small :class:`PlotlyRuntime` widget imports the bundle in the background, once per
page; every :class:`Figure` carries a 1 KB ``_esm`` that returns at once and hands its model to
plotly's own widget code when the bundle is ready. Python-side, a :class:`Figure` is an ordinary
``go.FigureWidget``.

Where the bundle comes from: under ``tiled-explainer serve`` (which sets
:data:`BUNDLE_URL_ENV` for its kernels) the browser fetches it as a file the server already
serves, so it is cached by the browser and never passes through a kernel or its websocket;
elsewhere (JupyterLab, nbval) the runtime carries it as data. If the file cannot be fetched, the
runtime asks its kernel for the data instead.
"""

from __future__ import annotations

import os
import re
import sys
from functools import lru_cache
from pathlib import Path

import anywidget
import plotly
import plotly.graph_objects as go
import traitlets

_BUNDLE = Path(plotly.__file__).parent / "package_data" / "widgetbundle.js"
#: A URL (relative to the page) where the browser can fetch plotly's widget bundle.
BUNDLE_URL_ENV = "EXPLAINER_PLOTLY_BUNDLE_URL"

_RUNTIME_ESM = """
export default {
  initialize({ model }) {
    // Import plotly's widget bundle once per page, without holding up anywidget's set-up: from
    // the server's file (cached by the browser) when there is one, else from the data.
    if (globalThis.__explainerPlotly) return;
    const fromData = (text) => import(URL.createObjectURL(new Blob([text], { type: "text/javascript" })));
    const askKernel = () => new Promise((resolve) => {
      model.on("change:bundle", () => resolve(fromData(model.get("bundle"))));
      model.send({ cmd: "bundle" });
    });
    const url = model.get("url");
    const load = model.get("bundle") ? fromData(model.get("bundle"))
      : url ? import(new URL(url, document.baseURI).href).catch(askKernel) : askKernel();
    globalThis.__explainerPlotly = load.then((m) => m.default);
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
// Narrow screens: a chart is never wider than its box. Where the box is narrower than the width
// Python's layout asks for (a phone), the chart is redrawn at the box's width, and again when the
// box changes (up to the width asked for); where it is wide enough (a desktop) nothing changes.
function fitToBox(el, model) {
  const asked = model.__explainerWidth ??= (model.get("_widget_layout") || {}).width;
  const Plotly = globalThis.Plotly;
  const box = el.parentElement;
  if (!asked || !Plotly || !box || typeof ResizeObserver === "undefined") return () => {};
  const fit = () => {
    if (!el._fullLayout || !el.isConnected) return;
    // The widget's own box: as wide as its column lets it be (a chart in a row is as wide as
    // itself, and then only the screen's edge narrows it).
    const screen = document.documentElement.clientWidth - Math.max(0, el.getBoundingClientRect().left);
    const room = Math.floor(Math.min(el.clientWidth, screen));
    if (room < 120) return;  // hidden, or not laid out yet
    const width = Math.min(asked, room);
    if (Math.abs(width - el._fullLayout.width) > 1) Plotly.relayout(el, { width });
  };
  const drawn = (e) => { if (e.detail && e.detail.element === el) fit(); };
  document.addEventListener("plotlywidget-after-render", drawn);
  const watch = new ResizeObserver(fit);
  watch.observe(box);
  watch.observe(el);
  return () => { watch.disconnect(); document.removeEventListener("plotlywidget-after-render", drawn); };
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
      const stop = widget.render(ctx);
      const unfit = fitToBox(ctx.el, ctx.model);
      return () => { unfit(); if (typeof stop === "function") stop(); };
    },
  };
};
"""


class PlotlyRuntime(anywidget.AnyWidget):
    """Carries plotly's front-end bundle; display it once on any page that shows a Figure."""

    _esm = _RUNTIME_ESM
    bundle = traitlets.Unicode().tag(sync=True)
    url = traitlets.Unicode().tag(sync=True)

    def __init__(self, **kw):
        super().__init__(**kw)
        self.on_msg(self._on_msg)

    def _on_msg(self, widget, content, buffers):
        if isinstance(content, dict) and content.get("cmd") == "bundle" and not self.bundle:
            self.bundle = bundle_text()


def bundle_text() -> str:
    return _BUNDLE.read_text(encoding="utf-8")


def bundle_path() -> Path:
    """plotly's widget bundle (``tiled-explainer serve`` serves a copy of it)."""
    return _BUNDLE


@lru_cache(maxsize=None)
def runtime() -> PlotlyRuntime:
    """The one runtime widget of this kernel: it points the browser at the server's copy of the
    bundle when ``serve`` said where it is (:data:`BUNDLE_URL_ENV`), else carries the bundle."""
    url = os.environ.get(BUNDLE_URL_ENV, "")
    if url and not url.startswith(("/", "http:", "https:")):  # relative to the page: a translated
        from .. import i18n  # page sits one folder deeper (render/zh-CN/<nb>)

        sub = i18n.FOLDERS[i18n.language()]
        url = "../" * len(sub.split("/")) + url if sub else url
    return PlotlyRuntime(url=url) if url else PlotlyRuntime(bundle=bundle_text())


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
    text = bundle_text()
    return bool(re.search(r"export\s*\{[^}]*\bas default\b[^}]*\}", text))
