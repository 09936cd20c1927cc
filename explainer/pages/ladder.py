"""Page 08, beyond tiling: the ladder of kernels 10-14 from the course material's tiled kernel to cuBLAS.

One call per notebook cell. Every figure is measured (live on a GPU through
:func:`explainer.gpu.benchmark`, else the recorded file of :func:`explainer.recorded.load_recorded`,
labelled with its device and date) or computed by :mod:`explainer.model.ladder`; rows a recorded file
lacks show as "not recorded".
"""

from __future__ import annotations

import html

import ipywidgets as W

from ..gpu import recorded
from ..i18n import _, N_
from ..views import context
from ..views.common import SANS
from .. import gpu
from ..model import ladder
from . import perf as pages_perf
from ..model.ladder import RUNGS
from ..views.ladder_maps import rung_facts, rung_label, shared_loads_per_k
from ..views.perf import table
from ..views.plotly_widget import Figure, runtime
from ..views.stepper import sync_figure
from ..views.timing import LIVE_HINT, _parse_sizes
from ..views.ladder import LadderExplorer

NOTE = "font-size:12px;color:#4b5563"
SIZES = (1024, 2048, 4096)
BASELINE_TILE = 32
NOT_RECORDED = "not recorded"
CHART_TITLE = "The ladder, measured: from the tiled kernel to cuBLAS"

def ladder_rungs() -> tuple[dict, ...]:
    """The chart's rungs in order: the course material's best (the tiled kernel of page 02 at T=32),
    the ladder (explainer.model.ladder.RUNGS), and cuBLAS, the reference; labelled in the current
    language (so built on each call, never at import)."""
    return (
        {"kernel": "tiled", "tile": BASELINE_TILE, "label": f"03 · tiled T={BASELINE_TILE}",
         "idea": N_("the course material's shared-memory tile (page 02) at T = {tile}, their best: every "
                    "multiply-add reads both operands from shared memory")},
        *({"kernel": r.name, "tile": None, "label": rung_label(r), "idea": r.idea} for r in RUNGS),
        {"kernel": "cublas", "tile": None, "label": "cuBLAS",
         "idea": N_("NVIDIA's library (cupy.matmul, FP32, TF32 off), measured in the same run: the reference")},
    )
SIZE_COLORS = {512: "#cbd5e1", 1024: "#93c5fd", 2048: "#3b82f6", 4096: "#1e3a8a"}


# --------------------------------------------------------------------------------------
# Pure: the ladder's numbers from recorded or live rows
# --------------------------------------------------------------------------------------
def find_row(rows: list[dict], kernel: str, tile: int | None, n: int) -> dict | None:
    """The row of ``kernel`` at M = N = K = ``n`` (``tile`` matters for the tiled kernels only:
    ladder kernels and cuBLAS have none)."""
    for r in rows:
        if r.get("kernel") != kernel or not r.get("M") == r.get("N") == r.get("K") == n:
            continue
        if tile is not None and r.get("tile") != tile:
            continue
        return r
    return None


def ladder_cells(rows: list[dict], sizes=SIZES) -> list[dict]:
    """One entry per rung of :func:`ladder_rungs`: its label, reason, and per size either ``None`` (not
    in ``rows``) or ``{"gflops", "median_ms", "min_ms", "max_ms", "pct_cublas", "speedup"}``.
    ``pct_cublas`` is the row's own (same run), else computed from the cuBLAS row of that size;
    ``speedup`` is the previous rung's median time over this one's (``None`` when either is
    missing)."""
    out = []
    prev: dict = {}
    for rung in ladder_rungs():
        cells = {}
        for n in sizes:
            row = find_row(rows, rung["kernel"], rung["tile"], n)
            if row is None:
                cells[n] = None
                continue
            pct = 100.0 if rung["kernel"] == "cublas" else row.get("pct_cublas")
            if pct is None:
                cub = find_row(rows, "cublas", None, n)
                pct = 100.0 * cub["median_ms"] / row["median_ms"] if cub else None
            before = prev.get(n)
            cub = find_row(rows, "cublas", None, n)
            cells[n] = {"gflops": row["gflops"], "median_ms": row["median_ms"], "min_ms": row.get("min_ms"),
                        "max_ms": row.get("max_ms"), "pct_cublas": pct,
                        "launch_bound": recorded.launch_bound(cub["median_ms"] if cub else None),
                        "speedup": before["median_ms"] / row["median_ms"] if before else None}
        prev = {n: c for n, c in cells.items()}
        out.append({**rung, "cells": cells})
    return out


def blocks(kernel: str, tile: int | None, n: int) -> int | None:
    """Thread blocks of one n³ launch (None for cuBLAS)."""
    if kernel in ladder.BY_NAME:
        gx, gy = ladder.rung(kernel).grid(n, n)
        return gx * gy
    return (-(-n // tile)) ** 2 if tile else None


def _fmt_cell(c: dict | None, first: bool, nblocks: int | None = None) -> str:
    if c is None:
        return f"<span style='color:#9ca3af'>{_(NOT_RECORDED)}</span>"
    pct = (_("{pct}% of cuBLAS", pct=f"{c['pct_cublas']:.1f}") if c["pct_cublas"] is not None
           else _("— of cuBLAS"))
    if c.get("launch_bound") and c["pct_cublas"] is not None:
        pct += f" ({_(recorded.OVERHEAD_NOTE)})"
    if first:
        sp = ""
    elif c["speedup"]:
        slower = c["speedup"] < 1
        sp = (f"<br><b style='color:{'#b91c1c' if slower else '#111827'}'>×{c['speedup']:.2f}</b> "
              + (_("(slower) over the rung above") if slower else _("over the rung above")))
    else:
        sp = "<br>" + _("× — (rung above not recorded)")
    spread = (f" ({c['min_ms']:.3g}–{c['max_ms']:.3g})" if c.get("min_ms") is not None and c.get("max_ms") is not None
              else "")
    nb = " · " + _("{n} blocks", n=f"{nblocks:,}") if nblocks else ""
    return (f"<b>{c['gflops']:,.0f}</b> GFLOP/s · {pct}<br><span style='{NOTE}'>{c['median_ms']:.4g} ms"
            f"{spread}{nb}</span>{sp}")


def ladder_table_html(cells: list[dict], sizes=SIZES, sms: int | None = None) -> str:
    rows = []
    for i, rung in enumerate(cells):
        rows.append((("html", f"<b>{html.escape(rung['label'])}</b>"),
                     *(("html", _fmt_cell(rung["cells"][n], i == 0, blocks(rung["kernel"], rung["tile"], n)))
                       for n in sizes),
                     ("html", f"<div style='text-align:left;max-width:360px'>"
                              f"{html.escape(_(rung['idea'], tile=BASELINE_TILE))}</div>")))
    sm_note = (" " + _("A launch of fewer blocks than the GPU's {sms} SMs leaves SMs idle: the big block tiles pay "
                       "for their reuse at small sizes.", sms=sms) if sms else "")
    return table((_("rung"), *(f"{n}³" for n in sizes), _("what changed, and why it is faster")), rows,
                 _("Median time of each configuration (min–max in brackets) and the blocks of its launch; % of "
                   "cuBLAS against cuBLAS in the same run; × is the rung above's median time over this rung's.")
                 + sm_note,
                 "explainer-ladder-table")


# --------------------------------------------------------------------------------------
# Live results, shared with the other views of page 08 in this kernel
# --------------------------------------------------------------------------------------
class _Live:
    """The ladder rows measured last in this Python kernel, and the views that follow them."""

    def __init__(self):
        self.rows: list[dict] | None = None
        self.source = ""
        self.views: list = []

    def publish(self, rows: list[dict], source: str) -> None:
        self.rows, self.source = list(rows), source
        for fn in self.views:
            try:
                fn(self.rows, source)
            except Exception:  # noqa: BLE001  a view that fails must not break the measurement
                pass

    def follow(self, fn) -> None:
        self.views = self.views[-7:] + [fn]


LIVE = _Live()


# --------------------------------------------------------------------------------------
# The chart
# --------------------------------------------------------------------------------------
#: The toggle's labels and the axis titles (in the reader's language: _() where shown).
METRICS = {N_("GFLOP/s"): ("gflops", N_("GFLOP/s (higher is faster)")),
           N_("% of cuBLAS"): ("pct_cublas", N_("% of cuBLAS (same run)"))}


class LadderChart:
    """GFLOP/s and % of cuBLAS of every rung at each size: measured here (button) or recorded."""

    def __init__(self, sizes=SIZES, title=None, data=None):
        title = _(CHART_TITLE) if title is None else title
        self.sizes = tuple(sizes)
        self.rows: list[dict] = []
        self.source = ""
        self.sms = None
        self.w_title = W.HTML(f"<h3 style='margin:8px 0 4px'>{html.escape(title)}</h3>")
        self.w_sizes = W.Text(value=" ".join(map(str, self.sizes)), description=_("sizes N"),
                              tooltip=_("M = N = K for each size"), layout=W.Layout(width="300px"))
        self.w_button = W.Button(description=_("Measure on this GPU"), icon="play", button_style="primary",
                                 layout=W.Layout(width="200px"))
        self.w_button.add_class("explainer-measure")
        self.w_progress = W.IntProgress(min=0, max=1, value=0, layout=W.Layout(width="300px", visibility="hidden"))
        self.w_metric = W.ToggleButtons(options=[(_(m), m) for m in METRICS], value="GFLOP/s", style={"button_width": "110px"})
        self.w_status = W.HTML()
        self.w_status.add_class("explainer-ladder-status")
        self.w_table = W.HTML()
        self.fig = Figure(layout=dict(
            height=400, width=900, barmode="group", margin=dict(l=60, r=10, t=60, b=90), plot_bgcolor="white",
            xaxis=dict(type="category", tickangle=-20), yaxis=dict(title=_(METRICS["GFLOP/s"][1]), gridcolor="#e5e7eb"),
            legend=dict(orientation="h", y=1.0, yanchor="bottom", x=1.0, xanchor="right"),
            font=dict(family=SANS)))
        self.w_button.on_click(self._on_measure)
        self.w_metric.observe(lambda _: self._draw(), names="value")
        self.st = gpu.status()
        if self.st.available:
            self.w_status.value = _("GPU: <b>{device}</b>. Press the button to measure every rung and cuBLAS "
                                    "here; until then the figures are recorded.",
                                    device=html.escape(self.st.device or ''))
        else:
            self.w_button.disabled = True
            self.w_button.tooltip = _("no GPU on this machine")
        self._show_recorded(data, keep_status=self.st.available)
        sync_figure(self.fig)
        self.widget = W.VBox([
            runtime(), self.w_title,
            W.HBox([self.w_sizes, self.w_button, self.w_progress]),
            self.w_status, self.w_metric, self.fig, self.w_table,
        ])
        self.widget.add_class("explainer-ladder-chart")

    # ---- recorded / live ---------------------------------------------------------------------
    def _show_recorded(self, data=None, keep_status=False):
        data = data if data is not None else recorded.load_recorded()
        if not data:
            self.w_status.value = _("<b>No recorded timings were found.</b>") + f" {_(LIVE_HINT)}"
            self.rows, self.source = [], _("nothing recorded")
            self._draw()
            return
        self.rows = recorded.recorded_rows(data)
        self.sms = (data.get("device") or {}).get("sm_count")
        self.source = recorded.label_text(data) if data.get("label") else _("recorded on {device}", device=data.get('device', {}).get('name', '?'))
        if not keep_status:
            reason = html.escape(self.st.why or _("no GPU"))
            self.w_status.value = (pages_perf.recorded_label(data)
                                   + f"<div style='{NOTE}'>{context.no_gpu_here(reason)} {_(LIVE_HINT)}</div>")
        self._draw()

    def kernels(self) -> list[str]:
        return [r["kernel"] for r in ladder_rungs() if r["kernel"] != "cublas"]

    def _on_measure(self, _button):
        try:
            sizes = _parse_sizes(self.w_sizes.value)
        except ValueError as e:
            self.w_status.value = f'<span style="color:#b91c1c">⚠ {html.escape(str(e))}</span>'
            return
        kernels = self.kernels()
        total = len(sizes) * (1 + len(kernels))
        self.w_button.disabled = True
        self.w_progress.max, self.w_progress.value = total, 0
        self.w_progress.layout.visibility = "visible"
        self.w_status.value = _("Compiling the kernels and measuring… (each size: every rung checked against numpy, "
                                "then timed with cuBLAS in interleaved rounds)")
        measured: list[dict] = []

        def progress(kind, row):
            if kind == "status":  # a check done, or a size's timings begun: no row yet
                self.w_status.value = html.escape(row["message"]) + "…"
                return
            self.w_progress.value = min(total, self.w_progress.value + 1)
            if kind == "error":
                message = html.escape(str(row.get("message", "")).splitlines()[0] if row.get("message") else "")
                self.w_status.value = ('<span style="color:#b91c1c">⚠ '
                                       + _("{kernel} at {n}: {message}", kernel=html.escape(str(row.get("kernel"))),
                                           n=row.get("M"), message=message) + "</span>")
            else:
                measured.append(row)
                self.w_status.value = _("measured {kernel} at {n}³ ({i} of {total})…", kernel=html.escape(row['kernel']),
                                        n=row['M'], i=self.w_progress.value, total=total)

        try:
            rep = gpu.benchmark(kernels=kernels, sizes=sizes, tiles=[BASELINE_TILE], progress=progress)
            if isinstance(rep, gpu.GpuStatus):
                self.w_status.value = f'<span style="color:#b91c1c">⚠ {html.escape(str(rep.reason))}</span>'
                return
            self.sizes = tuple(sizes)
            self.rows = list(rep.cublas) + list(rep.results)
            self.sms = (getattr(rep, "device", None) or {}).get("sm_count", self.sms)
            self.source = _("measured just now on {device}", device=self.st.device)
            errs = _("; {n} refused or failed", n=len(rep.errors)) if rep.errors else ""
            self.w_status.value = _("<b>Measured on this GPU</b> ({device}), {date}{errs}.",
                                    device=html.escape(self.st.device or ''), date=html.escape(rep.date), errs=errs)
            self._draw()
            LIVE.publish(self.rows, self.source)
        except Exception as e:  # noqa: BLE001  nothing raises into the page
            self.w_status.value = f'<span style="color:#b91c1c">⚠ {html.escape(f"{type(e).__name__}: {e}".splitlines()[0])}</span>'
        finally:
            self.w_button.disabled = False
            self.w_progress.layout.visibility = "hidden"

    # ---- drawing -----------------------------------------------------------------------------
    def _draw(self):
        key, title = METRICS[self.w_metric.value]
        self.cells = ladder_cells(self.rows, self.sizes)
        labels = [c["label"] for c in self.cells if not (key == "pct_cublas" and c["kernel"] == "cublas")]
        names = [f"{n}³" for n in self.sizes]
        if [t.name for t in self.fig.data] != names:  # new sizes: new bars (rare); else in place
            self.fig.data = []
            for n in self.sizes:
                self.fig.add_bar(name=f"{n}³", x=[], y=[], marker_color=SIZE_COLORS.get(n, "#6b7280"),
                                 textposition="outside", textfont=dict(size=9), cliponaxis=False)
        with self.fig.batch_update():
            for tr, n in zip(self.fig.data, self.sizes):
                cs = [c["cells"][n] for c in self.cells if c["label"] in labels]
                tr.x = labels
                tr.y = [c[key] if c else None for c in cs]
                tr.text = [f"{c['pct_cublas']:.0f}%" if c and c["pct_cublas"] is not None else "" for c in cs]
                tr.customdata = [[c["median_ms"], c["speedup"] or 0] if c else [None, 0] for c in cs]
                tr.hovertemplate = _("%{x} at {n}³: %{y:,.4g} · %{customdata[0]:.4g} ms"
                                     " · ×%{customdata[1]:.2f} over the rung above<extra></extra>", n=n)
            self.fig.layout.yaxis.title.text = _(title)
            self.fig.layout.title = dict(text=html.escape(self.source) + " · " + _("bar labels: % of cuBLAS"),
                                         font=dict(size=12), x=0.01, y=0.98, yanchor="top")
        self.w_table.value = ladder_table_html(self.cells, self.sizes, self.sms)


# --------------------------------------------------------------------------------------
# Page functions
# --------------------------------------------------------------------------------------
def _html(text: str, cls: str = "") -> W.HTML:
    w = W.HTML(text)
    if cls:
        w.add_class(cls)
    return w


def ladder_chart(**kw):
    """The ladder as a chart and a table: GFLOP/s, % of cuBLAS and the speed-up of every rung at
    1024, 2048, 4096, with the reason for each step. Live on a GPU (button), recorded otherwise."""
    return LadderChart(**kw).widget


def rung_table():
    """Each rung's shape, computed by explainer.model.ladder: block tile, threads, outputs per thread,
    FMAs per shared load, shared memory, barriers, DRAM intensity."""
    from ..model import roofline

    tiled_i = roofline.intensity("tiled", 4096, 4096, 4096, BASELINE_TILE)
    rows = [(f"03 · tiled T={BASELINE_TILE}", f"{BASELINE_TILE}×{BASELINE_TILE}", BASELINE_TILE,
             f"{BASELINE_TILE * BASELINE_TILE:,}", "1×1 = 1", "1 / 2 = 0.50", f"{2 * BASELINE_TILE ** 2 * 4:,}", 2,
             f"{tiled_i:.1f}")]
    for r in RUNGS:
        f = rung_facts(r)
        lds = shared_loads_per_k(r)
        tm, tn = f["thread_tile"]
        rows.append((rung_label(r), f"{r.BM}×{r.BN}", r.BK, f"{r.threads:,}", f"{tm}×{tn} = {f['outputs']}",
                     f"{lds['fmas']} / {lds['lds']} = {f['fma_per_lds']:.2f}", f"{f['shared_bytes']:,}", f["barriers"],
                     f"{f['intensity']:.1f}"))
    return _html(table(
        (_("kernel"), _("block tile BM×BN"), "BK", _("threads / block"), _("outputs / thread"),
         _("FMAs / shared loads per k"), _("shared B / block"), _("barriers / phase"), _("FLOP/B (DRAM, block tile)")),
        rows,
        _("Computed from explainer.model.ladder.RUNGS (the instantiations the GPU runs). Tiled: one output per thread, "
          "two shared loads per multiply-add, T/4 FLOP/B. Ladder intensity: BM·BN / (2·(BM + BN)), each window loaded "
          "once per block and phase.")), "explainer-rung-table")


def mapping(**kw):
    """The mapping views: pick a rung and a thread; its outputs, As / Bs reads, warp tile,
    registers and float4 copies (stepped in the browser: :mod:`explainer.views.ladder`)."""
    return LadderExplorer(**kw).widget


def planner(M: int = 1024, N: int = 1024, K: int = 1024):
    """The shape picker: every rung planned for M x N x K on the recorded device's SMs, the
    predicted and the recorded time (explainer.tuning.planner)."""
    from ..tuning.view import PlannerPanel

    return PlannerPanel(M, N, K).widget


def device_cells(files: list[dict], sizes=(1024, 4096)) -> list[dict]:
    """Per rung of :func:`ladder_rungs`: per recorded device (``files``, one recording each) and size,
    the cell of :func:`ladder_cells` (``None`` where that device has no row)."""
    per = [ladder_cells(recorded.recorded_rows(d), sizes) for d in files]
    return [{**rung, "devices": [p[i]["cells"] for p in per]} for i, rung in enumerate(ladder_rungs())]


def devices_html(files: list[dict], sizes=(1024, 4096)) -> str:
    """The ladder on each recorded device side by side (:func:`device_cells`), with each device's
    facts from its own file and, per size, the second device's median time over the first's."""
    if len(files) < 2:
        return _("<b>Only one device is recorded</b> ({label}): <code>tiled-explainer bench --save</code> on another "
                 "GPU adds one.", label=html.escape(recorded.label_text(files[0]) if files else _("none")))
    names = [d["device"]["name"] for d in files]
    short = [n.replace("NVIDIA ", "").split(" ")[0] for n in names]
    facts = []
    for d in files:
        dev = d["device"]
        facts.append(_("<b>{name}</b>: {sms} SMs, L2 {l2} MiB, memory {mem} GiB, driver {driver}",
                       name=html.escape(dev['name']), sms=dev.get('sm_count', '?'),
                       l2=f"{dev.get('l2_bytes', 0) / 2**20:.0f}", mem=f"{dev.get('memory_bytes', 0) / 2**30:.0f}",
                       driver=html.escape(str(dev.get('versions', {}).get('driver', '?'))))
                     + f" <span style='{NOTE}'>({html.escape(recorded.label_text(d))}, {html.escape(d['source'])}; "
                     f"{html.escape(recorded.kernels_text(d))})</span>")
    head = [_("rung")]
    for n in sizes:
        head += [f"{n}³ {s}" for s in short] + [_("{n}³ {b} time ÷ {a}", n=n, b=short[1], a=short[0])]
    rows = []
    for rung in device_cells(files, sizes):
        row = [("html", f"<b>{html.escape(rung['label'])}</b>")]
        for n in sizes:
            cells = [dv[n] for dv in rung["devices"][:2]]
            for c in cells:
                if c is None:
                    row.append(("html", f"<span style='color:#9ca3af'>{_(NOT_RECORDED)}</span>"))
                else:
                    pct = "" if c["pct_cublas"] is None else f" · {c['pct_cublas']:.0f}%"
                    row.append(("html", f"<b>{c['gflops']:,.0f}</b> GFLOP/s{pct}"))
            a, b = cells
            row.append(f"{b['median_ms'] / a['median_ms']:.2f}" if a and b else "–")
        rows.append(row)
    return ("<div style='font-size:13px;line-height:1.6'>" + "<br>".join(facts) + "</div>" + table(
        head, rows, _("GFLOP/s and % of that device's cuBLAS in the same run (median of the recorded repeats); the "
                      "last column of each size is the {b}'s median time over the {a}'s (below 1: faster there).",
                      b=html.escape(short[1]), a=html.escape(short[0])) + " " + _same_software(files),
        "explainer-devices-table"))


def _same_software(files: list[dict]) -> str:
    """What the recordings share (CuPy, CUDA runtime, driver) and their dates, from the files."""
    keys = ("cupy", "cuda_runtime", "driver")
    vers = [tuple(d["device"].get("versions", {}).get(k) for k in keys) for d in files]
    dates = ", ".join(html.escape(str(d.get("date", "?"))[:16].replace("T", " ")) for d in files)
    if len(set(vers)) == 1:
        same = ", ".join(f"{k} {v}" for k, v in zip(keys, vers[0]))
        return _("Same software on both ({same}); recorded at {dates} (UTC).", same=html.escape(same), dates=dates)
    return _("Software differs between the recordings (see each file); recorded at {dates} (UTC).", dates=dates)


def devices(sizes=(1024, 4096)):
    """The same kernels on every recorded GPU, side by side (page 08)."""
    return _html(devices_html(recorded.recorded_by_device(), tuple(sizes)), "explainer-devices")


def rung_card(name: str, n: int = 4096):
    """One rung in numbers: the model's (explainer.model.ladder) and the recorded or measured speed at
    n³ next to the rung before it."""
    r = ladder.rung(name)
    f = rung_facts(r)
    rungs = ladder_rungs()
    i = next(j for j, x in enumerate(rungs) if x["kernel"] == name)
    prev = rungs[i - 1]
    data = recorded.load_recorded()
    rows = LIVE.rows if LIVE.rows is not None else (recorded.recorded_rows(data) if data else [])
    source = (LIVE.source if LIVE.rows is not None else
              recorded.label_text(data) if data and "label" in data else _("no recorded file"))
    cells = ladder_cells(rows, (n,))
    c, cp = cells[i]["cells"][n], cells[i - 1]["cells"][n]
    if c is None:
        speed = _("{rung} at {n}³: <i>{nothing}</i> ({source}).", rung=html.escape(rung_label(r)), n=n,
                  nothing=_(NOT_RECORDED), source=html.escape(source))
    else:
        if c["speedup"] and cp:
            how = _("faster than") if c["speedup"] >= 1 else _("the speed of (slower than)")
            versus = (f"; <b>×{c['speedup']:.2f}</b> {how} {html.escape(prev['label'])} "
                      f"({cp['gflops']:,.0f} GFLOP/s)")
        else:
            versus = f"; {html.escape(prev['label'])}: {_(NOT_RECORDED)}"
        pct = ", " + _("{pct}% of cuBLAS", pct=f"{c['pct_cublas']:.1f}") if c["pct_cublas"] is not None else ""
        speed = (_("At {n}³: <b>{gflops} GFLOP/s</b>", n=n, gflops=f"{c['gflops']:,.0f}") + f"{pct}{versus}. "
                 f"<span style='{NOTE}'>({html.escape(source)})</span>")
    tm, tn = f["thread_tile"]
    lds = shared_loads_per_k(r)
    reg = f["registers"]
    regs = (f"acc {reg['acc']}, b {reg['regN']}" if r.layout == "1d" else
            f"acc {reg['acc']}, regM {reg['regM']}, regN {reg['regN']}")
    regs += ", " + _("staging {n}", n=reg['staging']) if reg["staging"] else ""
    barriers = (_("{n} barriers per phase", n=f["barriers"]) if f["barriers"] > 1
                else _("{n} barrier per phase", n=f["barriers"]))
    body = (
        f"<div style='border-left:4px solid #7c3aed;padding:4px 10px;font-size:14px;line-height:1.5'>"
        f"<b>{html.escape(rung_label(r))}</b> · <code>kernels/{html.escape(r.file)}</code> · "
        f"<code>{html.escape(r.expression(False))}</code><br>"
        + _("{threads} threads per block, {tm}×{tn} = {outputs} outputs per thread; per step k {fmas} FMAs for "
            "{lds} shared loads = <b>{ratio} FMAs per shared load</b>; {regs_total} floats in registers ({regs}); "
            "shared memory {shared} B; {barriers}; {intensity} FLOP/B.",
            threads=r.threads, tm=tm, tn=tn, outputs=f['outputs'], fmas=lds['fmas'], lds=lds['lds'],
            ratio=f"{f['fma_per_lds']:.2f}", regs_total=reg['total'], regs=regs, shared=f"{f['shared_bytes']:,}",
            barriers=barriers, intensity=f"{f['intensity']:.1f}")
        + f"<br>{speed}</div>")
    return _html(body, "explainer-rung-card")


def roofline(n: int = 4096):
    """Page 07's roofline with the ladder's points (recorded; moved to the live figures when the
    chart above measures on this GPU)."""
    chart = pages_perf.roofline_chart(n)
    if chart is None:
        return _html(_("<b>No recorded device or timing file: nothing to plot.</b>"))
    if LIVE.rows is not None:
        chart.show_ladder(LIVE.rows, LIVE.source)
    LIVE.follow(chart.show_ladder)
    return chart.widget
