"""``tiled-explainer export DIR``: every page as static files that need no kernel and no network.

Each notebook in ``notebooks/`` is run here, in this process, cell by cell (the pages are
narrative plus one call each), and what its calls return is written as plain HTML:

* markdown cells as HTML, links between notebooks pointing at the exported pages (so the
  navigation bar, each notebook's first and last cell, links static page to static page);
* ``ipywidgets.HTML`` as its HTML, boxes as rows / columns;
* plotly figures as static plotly charts drawn by one local copy of plotly.js shared by every
  page: plotly.js's basic bundle (``assets/plotly-basic.min.js``: scatter, bar and pie, shipped in
  ``explainer/app/vendor/``), which a browser reads in a third of the time of the whole
  ``plotly.min.js``, for a page whose charts need no other kind of trace; the whole one
  otherwise, or when plotly's own plotly.js is another version than the basic bundle's
  (:func:`chart_bundle`);
* the browser views (:class:`explainer.views.store.BrowserView`: the steppers, ...) as the same front-end module that
  Voila runs, over a stand-in model (``views/static.js``) whose store holds the payloads of the
  page's own launch, its presets and kernel variants, and the blocks near them, within
  :data:`explainer.views.store.STATIC_BUDGET` bytes. What is not stored says in one line that
  it needs the live app;
* controls that only Python can answer (a new launch of a plotly view, "Measure on the GPU")
  as disabled controls showing their values, with one line saying they need the live app.

Module scripts are written inline, so the pages work from ``file://`` (Chromium refuses to
import module files there) as well as from any static web host. Nothing is fetched from outside.

Languages (:mod:`explainer.i18n`): the English pages go into ``DIR/``, the translated ones
(``notebooks/zh-CN/``) into ``DIR/zh-CN/``, each built in its language; ``--lang`` picks one. Every
page's navigation bar has the language menu; a small inline script remembers the reader's choice
(``localStorage``), honours ``?lang=zh-CN`` and, on the English index, follows the browser's
language (``navigator.language``) when the reader has not chosen.
"""

from __future__ import annotations

import ast
import datetime as _dt
import html
import json
import re
import shutil
import time
from pathlib import Path

from .. import __version__, i18n, resources
from ..i18n import _
from ..views import context

INDEX = "00_index.ipynb"
GLOSSARY = "glossary.ipynb"
ASSETS = "assets"
LIVE_NOTE = ("These controls need Python: open this page in the live app (<code>tiled-explainer serve</code>) "
             "or in JupyterLab to change them.")  # (these two: in the page's language, _(LIVE_NOTE))
LIVE_NOTE_SERVED = 'These controls need Python: open the <a href="{url}">live page</a> to change them.'
#: plotly.js's basic bundle (tools/vendor_plotly.py copies it from npm for the plotly.js version
#: that plotly ships) and the trace types it draws; every other chart needs the whole plotly.min.js.
BASIC_BUNDLE = Path(__file__).resolve().parent / "vendor" / "plotly-basic.min.js"
BASIC_TRACES = frozenset({"scatter", "bar", "pie"})
FULL_BUNDLE = "plotly.min.js"


def plotly_js_version(path: Path) -> str | None:
    """The plotly.js version a bundle's header names (``* plotly.js (basic - minified) v4.1.1``)."""
    with open(path, encoding="utf-8", errors="replace") as f:
        m = re.search(r"plotly\.js(?: \([^)]*\))? v(\d+\.\d+\.\d+)", f.read(400))
    return m.group(1) if m else None


def full_bundle_path() -> Path:
    """The whole plotly.js that plotly ships (its figures are written for this version)."""
    import plotly

    return Path(plotly.__file__).parent / "package_data" / FULL_BUNDLE


def basic_bundle_matches() -> bool:
    """Whether the vendored basic bundle is there and is the version of the plotly.js that
    plotly's figures are written for."""
    return BASIC_BUNDLE.is_file() and plotly_js_version(BASIC_BUNDLE) == plotly_js_version(full_bundle_path())


def chart_bundle(traces) -> str:
    """The plotly.js file a page whose charts hold the trace types ``traces`` loads: the basic
    bundle when it draws them all and :func:`basic_bundle_matches`, else the whole ``plotly.min.js``."""
    return BASIC_BUNDLE.name if set(traces) <= BASIC_TRACES and basic_bundle_matches() else FULL_BUNDLE


def offered_presets(view, store: dict) -> list[str]:
    """The presets a static page offers: those its store holds for every kernel the view can
    show (a preset that works for one kernel but not after a switch is not offered)."""
    kernels = list(view.kernels) or [view.meta.get("kernel")]
    return [p for p in view.presets if all(f"{k}|{p}" in store["presets"] for k in kernels)]


class ExportError(Exception):
    """A page could not be exported (one line, exit status 2 from the command line)."""


def page_file(notebook: str) -> str:
    """``02_tiled.ipynb`` -> ``02_tiled.html``; the index page is ``index.html``; a folder in front
    (``zh-CN/``, ``../``) stays."""
    head, _sep, name = notebook.rpartition("/")
    page = "index.html" if name == INDEX else Path(name).stem + ".html"
    return f"{head}/{page}" if head else page


_NB_LINK = re.compile(r'href="(?:\./)?((?:\.\./)?(?:zh-CN/)?)([0-9][0-9A-Za-z_.-]*|glossary)\.ipynb(#[^"]*)?"')


def _relink(text: str) -> str:
    """Links to notebooks point at their exported pages (in this language's folder, or up in the
    English one, ``../``, or down in a translation's, ``zh-CN/``)."""
    return _NB_LINK.sub(lambda m: f'href="{m.group(1)}{page_file(m.group(2) + ".ipynb")}{m.group(3) or ""}"', text)


def page_list(folder: Path) -> list[str]:
    """The notebooks of one language's folder that are pages: NN_*.ipynb, then the glossary."""
    return sorted(p.name for p in folder.glob("[0-9][0-9]_*.ipynb")) + (
        [GLOSSARY] if (folder / GLOSSARY).is_file() else [])


#: The language script of every exported page (inline, nothing fetched): a click on the language
#: menu remembers the choice; ``?lang=`` goes to that language's twin; the English index follows
#: the remembered choice, else the browser's language. Only links the page itself holds are followed.
LANG_SCRIPT = """<script>(function () {
  var KEY = "explainer-lang", here = document.documentElement.lang;
  var links = document.querySelectorAll("a.explainer-nav-lang[data-lang]");
  function twin(lang) {
    for (var i = 0; i < links.length; i++) if (links[i].dataset.lang === lang) return links[i].getAttribute("href");
    return null;
  }
  function norm(l) { l = String(l || "").toLowerCase(); return l.indexOf("zh") === 0 ? "zh-CN" : l.indexOf("en") === 0 ? "en" : null; }
  document.addEventListener("click", function (e) {
    var a = e.target.closest && e.target.closest("a.explainer-nav-lang[data-lang]");
    if (a) { try { localStorage.setItem(KEY, a.dataset.lang); } catch (err) { /* storage refused */ } }
  });
  var asked = null;
  try { asked = norm(new URLSearchParams(location.search).get("lang")); } catch (err) { /* no URL */ }
  var stored = null;
  try { stored = norm(localStorage.getItem(KEY)); } catch (err) { /* storage refused */ }
  if (asked) { try { localStorage.setItem(KEY, asked); } catch (err) { /* storage refused */ } }
  var want = asked || (document.body.dataset.page === "index" && here === "en" ? (stored || norm(navigator.language)) : null);
  if (want && want !== here && twin(want)) location.replace(twin(want) + location.hash);
})();</script>"""


# ---- widgets -> HTML ------------------------------------------------------------------------
def _controls():
    import ipywidgets as W

    return (W.IntText, W.BoundedIntText, W.FloatText, W.BoundedFloatText, W.Text, W.Textarea, W.Dropdown,
            W.ToggleButtons, W.RadioButtons, W.Select, W.Button, W.IntSlider, W.FloatSlider,
            W.IntRangeSlider, W.Checkbox, W.ToggleButton, W.SelectionSlider)


class _Page:
    """The HTML of one page being written: its body parts, the views and state it embeds."""

    def __init__(self, budget: int, live_url: str | None = None):
        self.budget = budget
        self.live_url = live_url  # the same page in the live app, when one serves it
        self.traces: set[str] | None = None  # the trace types of the page's charts (None: no chart)
        self.views: dict[str, tuple[str, ...]] = {}  # view name -> its front-end files
        self.states: list[str] = []
        self.noted = False  # the live-app note is said once per output

    # Each widget type's static form.
    def render(self, w) -> str:
        import ipywidgets as W
        from plotly.basedatatypes import BaseFigure

        from ..views.plotly_widget import PlotlyRuntime
        from ..views.store import BrowserView

        if isinstance(w, PlotlyRuntime):
            return ""  # the page loads plotly.js from its assets instead
        if isinstance(w, BrowserView):
            return self._view(w)
        if isinstance(w, BaseFigure):
            return self._figure(w)
        if isinstance(w, (W.HTML, W.HTMLMath)):
            return f'<div class="ex-html">{_relink(w.value)}</div>'
        if isinstance(w, W.Label):
            return f"<div>{html.escape(w.value)}</div>"
        if isinstance(w, W.Box):
            return self._box(w)
        if isinstance(w, _controls()):
            return _control(w)
        if isinstance(w, (W.IntProgress, W.FloatProgress, W.Output)):
            return ""  # progress of a live measurement; output areas of live callbacks
        if hasattr(w, "_repr_html_"):
            return w._repr_html_()
        raise ExportError(f"no static form for a {type(w).__name__}")

    def _box(self, box) -> str:
        import ipywidgets as W

        row = isinstance(box, W.HBox)
        inner = "".join(self.render(c) for c in box.children)
        note = ""
        if not self.noted and any(isinstance(c, _controls()) and not getattr(c, "disabled", False) for c in box.children):
            self.noted = True
            text = _(LIVE_NOTE_SERVED, url=_attr(self.live_url)) if self.live_url else _(LIVE_NOTE)
            note = f'<div class="ex-live-note">{text}</div>'
        cls = "ex-hbox" if row else "ex-vbox"
        return f'<div class="{cls}">{inner}</div>{note}'

    def _figure(self, fig) -> str:
        import plotly.io as pio

        # The chart takes its box's width, up to the width its layout asks for: a desktop sees it
        # as the live page does, a phone sees all of it, narrower (plotly's `responsive` redraws
        # it when the window's width changes).
        spec = fig.to_dict()
        width = spec.get("layout", {}).pop("width", None)
        self.traces = (self.traces or set()) | {t.get("type", "scatter") for t in spec.get("data", ())}
        style = f' style="max-width:{int(width)}px"' if width else ""
        return (f'<div class="ex-figure"{style}>'
                + pio.to_html(spec, include_plotlyjs=False, full_html=False,
                              config={"displaylogo": False, "responsive": True})
                + "</div>")

    def _view(self, view) -> str:
        from ..views.store import OFFLINE_NOTE_SERVED

        if view.static_store is None:
            raise ExportError(f"a {type(view).__name__} with nothing behind it has nothing to export")
        store = view.static_store(self.budget)
        if self.live_url:
            from ..views.perf import ELSEWHERE, ELSEWHERE_SERVED

            for p in store["payloads"]:
                p["meta"]["offline_note"] = _(OFFLINE_NOTE_SERVED)
                for key in ("offer", "refuse"):  # the occupancy calculator's lines
                    if key in p["meta"]:
                        p["meta"][key] = p["meta"][key].replace(ELSEWHERE, ELSEWHERE_SERVED)
        initial = store["payloads"][store["initial"]]
        traits = {"meta": {**initial["meta"], "start": view.meta.get("start"), "preset": view.meta.get("preset")},
                  "rev": 1, "error": "", "presets": offered_presets(view, store), "kernels": list(view.kernels),
                  "live": False, "i18n": view.i18n}
        state = {"traits": traits, "initial": store["initial"],
                 "store": {k: store[k] for k in ("payloads", "states", "presets", "launches", "blocks")}}
        sid = f"ex-state-{len(self.states)}"
        self.states.append(f'<script type="application/json" id="{sid}">{_json(state)}</script>')
        self.views[view.NAME] = view.FRONT_END
        return f'<div class="ex-view" data-explainer-view="{view.NAME}" data-state="{sid}"></div>'

    def module_script(self) -> str:
        """One inline module: the shared helpers once, each view's module, the static model."""
        if not self.views:
            return ""
        files: list[str] = []
        for names in self.views.values():
            files += [n for n in names[:-1] if n not in files]
        parts = [resources.front_end(*files)] if files else []
        for name, names in self.views.items():
            text = resources.front_end(names[-1])
            if text.count("export default ") != 1:
                raise ExportError(f"{names[-1]} must have exactly one `export default`")
            parts.append(text.replace("export default ", f"const __view_{name} = "))
        parts.append(resources.front_end("static.js"))
        parts.append("mountStatic({" + ", ".join(f"{n}: __view_{n}" for n in self.views) + "});")
        return '<script type="module">\n' + "\n".join(parts).replace("</script", "<\\/script") + "\n</script>"


def _json(obj) -> str:
    return json.dumps(obj, separators=(",", ":")).replace("</", "<\\/")


def _attr(v) -> str:
    return html.escape(str(v), quote=True)


def _control(w) -> str:
    """A control that needs Python, shown with its value and disabled."""
    import ipywidgets as W

    label = getattr(w, "description", "") or ""
    lab = f"<span>{html.escape(label)}</span>" if label else ""
    if isinstance(w, W.Button):
        return f'<button type="button" disabled title="{_attr(_("needs the live app"))}">{html.escape(w.description)}</button>'
    if isinstance(w, (W.ToggleButtons, W.RadioButtons)):
        buttons = "".join(f'<button type="button" disabled class="{"on" if i == w.index else ""}">{html.escape(o)}</button>'
                          for i, o in enumerate(w._options_labels))
        return f'<span class="ex-field">{lab}<span class="ex-seg">{buttons}</span></span>'
    if isinstance(w, (W.Dropdown, W.Select)):
        opts = "".join(f'<option{" selected" if i == w.index else ""}>{html.escape(o)}</option>'
                       for i, o in enumerate(w._options_labels))
        return f'<label class="ex-field">{lab}<select disabled>{opts}</select></label>'
    if isinstance(w, W.Checkbox):
        return f'<label class="ex-field"><input type="checkbox" disabled{" checked" if w.value else ""}>{lab}</label>'
    if isinstance(w, W.ToggleButton):
        return f'<button type="button" disabled class="{"on" if w.value else ""}">{html.escape(w.description)}</button>'
    if isinstance(w, (W.IntSlider, W.FloatSlider, W.SelectionSlider, W.IntRangeSlider)):
        return f'<label class="ex-field">{lab}<output>{html.escape(str(w.value))}</output></label>'
    return f'<label class="ex-field">{lab}<input disabled value="{_attr(w.value)}"></label>'


# ---- notebooks -> pages ---------------------------------------------------------------------
def _cells(notebook: Path):
    """``("markdown", text)`` and ``("output", object)`` in the notebook's order: the code cells
    are run in one namespace, and a cell's last expression is its output."""
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    ns: dict = {"__name__": "__exported_page__"}
    for cell in nb["cells"]:
        src = "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            yield "markdown", src
        elif cell["cell_type"] == "code" and src.strip():
            tree = ast.parse(src)
            last = tree.body[-1] if tree.body and isinstance(tree.body[-1], ast.Expr) else None
            if last is not None:
                tree.body.pop()
            exec(compile(tree, f"{notebook.name}", "exec"), ns)
            if last is not None:
                value = eval(compile(ast.Expression(last.value), f"{notebook.name}", "eval"), ns)
                if value is not None:
                    yield "output", value


def _title(markdown: list[str], fallback: str) -> str:
    for text in markdown:
        m = re.search(r"^#\s+(.+)$", text, re.M)
        if m:
            return re.sub(r"[*_`]", "", m.group(1)).strip()
    return fallback


def _is_nav(value) -> bool:
    """A page's navigation bar (:func:`explainer.pages.nav`, its first and last cells)."""
    import ipywidgets as W

    from ..pages.navigation import CLASS

    return isinstance(value, W.HTML) and value.value.startswith(f'<nav class="{CLASS}"')


def _livebar(live_url: str | None) -> str:
    if not live_url:
        return ""
    return ('<div class="ex-livebar">' + _(
        "Everything on this page runs in your browser. For your own M, N, K and T, and live GPU timings, open the "
        "{link}live page</a> (it starts Python on the server for you: a few seconds).",
        link=f'<a class="ex-live-link" href="{_attr(live_url)}">') + "</div>")


def build_page(notebook: Path, budget: int, live_prefix: str | None = None, assets: str = ASSETS) -> tuple[str, dict]:
    """The HTML of one exported page and facts about it (its title; ``bundle``, the plotly.js file
    it loads from ``assets``, or None).
    ``live_prefix``: where a live app renders the notebooks (``tiled-explainer serve`` passes
    the relative URL of Voila's render path); each page then links its live twin. ``assets``: the
    shared assets folder, relative to the page. The page is built in the current language.
    Contents / previous / next are the notebook's own first and last cells (the live pages show
    the same bar), relinked to the exported pages like every link between notebooks."""
    import mistune

    live_url = f"{live_prefix}{notebook.name}" if live_prefix else None
    page = _Page(budget, live_url)
    body, md = [], []
    top = 0  # the live-app bar goes under the top navigation bar
    try:
        for kind, value in _cells(notebook):
            if kind == "markdown":
                md.append(value)
                body.append(f'<div class="ex-md">{_relink(mistune.html(value))}</div>')
            else:
                page.noted = False
                body.append(f'<div class="ex-out">{page.render(value)}</div>')
                if not md and _is_nav(value):
                    top = len(body)
    except ExportError:
        raise
    except Exception as e:  # a page's own call failed: say which page, in one line
        raise ExportError(f"{notebook.name}: {type(e).__name__}: {e}") from e
    title = _title(md, notebook.stem)
    if live_url:
        body.insert(top, _livebar(live_url))
    bundle = chart_bundle(page.traces) if page.traces is not None else None
    head_scripts = f'<script src="{assets}/{bundle}"></script>' if bundle else ""
    stamp = _dt.date.today().isoformat()
    kind = "index" if notebook.name == INDEX else notebook.stem
    text = (
        f"<!DOCTYPE html>\n<html lang=\"{i18n.language()}\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        f"<title>{html.escape(title)} · {html.escape(_('Tiled GEMM explainer'))}</title>"
        f'<link rel="stylesheet" href="{assets}/page.css">{head_scripts}</head>\n<body data-page="{kind}"><main>'
        + "\n".join(body) + "".join(page.states)
        + '<footer class="ex-footer"><p>' + _(
            "Static page exported by tiled-explainer {version} on {date}. The steppers step here for the page's own "
            "launch, its presets and the blocks near them; your own M, N, K and T, and measuring on a GPU, need the "
            "live app (<code>tiled-explainer serve</code>) or JupyterLab. Timings shown are recorded measurements, "
            "labelled with their device and date.", version=__version__, date=stamp) + "</p></footer>"
        + "</main>" + LANG_SCRIPT + page.module_script() + "</body></html>\n"
    )
    return text, {"title": title, "bundle": bundle}


def export(out: Path, budget: int | None = None, notebooks: Path | None = None, log=print,
           live_prefix: str | None = None, langs=tuple(i18n.LANGUAGES)) -> list[Path]:
    """Write every page of ``notebooks/`` (index first) into ``out``, and each translation
    (``notebooks/zh-CN/``) into ``out/zh-CN/``, for the languages ``langs``; returns the files
    written. ``live_prefix``: see :func:`build_page`."""
    from ..views.store import STATIC_BUDGET

    budget = STATIC_BUDGET if budget is None else budget
    src = notebooks or resources.notebooks_dir()
    pages = page_list(src)
    if not pages:
        raise ExportError(f"no pages (NN_*.ipynb) in {src}")
    for lang in langs:
        if lang not in i18n.LANGUAGES:
            raise ExportError(f"unknown language {lang!r}: the pages are in {', '.join(i18n.LANGUAGES)}")
    if out.exists() and not out.is_dir():
        raise ExportError(f"{out} exists and is not a folder")
    (out / ASSETS).mkdir(parents=True, exist_ok=True)
    (out / ASSETS / "page.css").write_text(resources.front_end("page.css"), encoding="utf-8")
    written = [out / ASSETS / "page.css"]
    bundles = set()  # the plotly.js files the pages load, copied once each
    with context.exporting():
        for lang in langs:
            sub = i18n.FOLDERS[lang]
            folder, target_dir = (src / sub, out / sub) if sub else (src, out)
            up = "../" * len(Path(sub).parts) if sub else ""
            prefix = live_prefix
            if live_prefix and sub:
                prefix = (live_prefix if "://" in live_prefix or live_prefix.startswith("/") else up + live_prefix) + f"{sub}/"
            names = page_list(folder) if folder.is_dir() else []
            if names:
                target_dir.mkdir(parents=True, exist_ok=True)
            for name in names:
                t0 = time.perf_counter()
                with i18n.using(lang):
                    text, facts = build_page(folder / name, budget, prefix, assets=up + ASSETS)
                target = target_dir / page_file(name)
                target.write_text(text, encoding="utf-8")
                written.append(target)
                if facts["bundle"] and facts["bundle"] not in bundles:
                    bundles.add(facts["bundle"])
                    source = BASIC_BUNDLE if facts["bundle"] == BASIC_BUNDLE.name else full_bundle_path()
                    shutil.copyfile(source, out / ASSETS / facts["bundle"])
                    written.append(out / ASSETS / facts["bundle"])
                log(f"  {(sub + '/' if sub else '') + target.name:<48} {len(text.encode()) / 1e6:5.2f} MB  "
                    f"{time.perf_counter() - t0:5.1f} s  {facts['title']}")
    return written


# ---- command line ---------------------------------------------------------------------------
def add_arguments(parser) -> None:
    parser.add_argument("dir", type=Path, help="folder to write the pages into (created if missing)")
    parser.add_argument("--budget-mb", type=float, default=None,
                        help="most megabytes of stepper data one view embeds (default 3)")
    parser.add_argument("--live-prefix", default=None, metavar="URL",
                        help="link each page to its live twin at URL + notebook name (what serve uses)")
    parser.add_argument("--lang", choices=list(i18n.LANGUAGES), default=None,
                        help="write one language only (default: every language: English in DIR, 简体中文 in DIR/zh-CN)")


def run(args) -> int:
    import sys

    budget = None
    if args.budget_mb is not None:
        if not args.budget_mb > 0:
            print(f"tiled-explainer export: error: --budget-mb must be positive, not {args.budget_mb}", file=sys.stderr)
            return 2
        budget = int(args.budget_mb * (1 << 20))
    out = args.dir
    print(f"Exporting the pages to {out.resolve()} (each page is run once here; about a minute) ...", flush=True)
    t0 = time.perf_counter()
    try:
        export(out, budget, log=lambda line: print(line, flush=True), live_prefix=args.live_prefix,
               langs=(args.lang,) if getattr(args, "lang", None) else tuple(i18n.LANGUAGES))
    except (ExportError, OSError) as e:
        print(f"tiled-explainer export: error: {e}", file=sys.stderr)
        return 2
    only = getattr(args, "lang", None)
    index = (out / (i18n.FOLDERS[only] if only else "") / "index.html").resolve()
    print(f"Done in {time.perf_counter() - t0:.0f} s. Open {index.as_uri()} or put the folder on any static web host.")
    return 0
