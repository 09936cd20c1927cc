"""The timing panel every page ends with: measured on this GPU, or recorded (and labelled so).

"Measure on this GPU" runs the page's kernels and cuBLAS through :func:`explainer.gpu.benchmark`
with a progress bar; without a GPU the panel shows the shipped recorded figures with their
device and date and says how to get live numbers. Nothing here raises into the page.
"""

from __future__ import annotations

import html

import ipywidgets as W

from ..gpu import recorded
from ..i18n import N_, _
from . import context
from .. import gpu
from .plotly_widget import Figure, runtime
from .common import SANS, tile_shade
from .stepper import sync_figure

METRICS = {  # the toggle's labels and the axis titles in the reader's language: _() where shown
    "GFLOP/s": ("gflops", N_("GFLOP/s (higher is faster)")),
    "ms": ("median_ms", N_("median time, ms (lower is faster)")),
    N_("% of cuBLAS"): ("pct_cublas", N_("% of cuBLAS (same sizes, same run)")),
}
COLORS = {"cublas": "#111827", "naive": "#f59e0b", "naive_col": "#ef4444", "tiled": "#3b82f6",
          "tiled_dynamic": "#6366f1", "tiled_register_copy": "#10b981"}
LIVE_HINT = (
    "For live numbers, open this page on a machine with an NVIDIA GPU after "
    "<code>pip install -e '.[gpu]'</code> (CuPy 14 for CUDA 13; <code>cupy-cuda12x</code> on a CUDA 12 driver)."
)


def _order(row: dict) -> tuple:
    """Where a row's series goes: cuBLAS first, then each kernel, its tiles in numeric order
    (8, 16, 32: not as text, 16, 32, 8)."""
    return (row["kernel"] != "cublas", row["kernel"], row.get("tile") or 0)


def _colour(row: dict, tiles: list[int]) -> str:
    """The kernel's colour, lighter for its smaller tiles (``tiles``: the kernel's tiles shown, in
    order), so that T = 8, 16 and 32 of one kernel are told apart."""
    return tile_shade(COLORS.get(row["kernel"], "#6b7280"), row.get("tile"), tiles)


def _label(row: dict) -> str:
    if row["kernel"] == "cublas":
        return "cuBLAS"
    return f"{row['kernel']} T={row['tile']}" if row.get("tile") else row["kernel"]


def _parse_sizes(text: str) -> list[int]:
    sizes = []
    for part in text.replace(",", " ").split():
        if not part.isdigit() or not 1 <= int(part) <= 16384:
            raise ValueError(_("sizes must be whole numbers from 1 to 16384, got {part}", part=repr(part)))
        sizes.append(int(part))
    if not sizes:
        raise ValueError(_("give at least one size, e.g. 512 1024"))
    return sizes


class TimingPanel:
    def __init__(self, kernels=("naive", "tiled"), tiles=(16,), sizes=(512, 1024, 2048), title=N_("Measured times")):
        self.kernels, self.tiles = tuple(kernels), tuple(tiles)
        self.rows: list[dict] = []
        self.source = ""
        self.w_title = W.HTML(f"<h3 style='margin:8px 0 4px'>{html.escape(_(title))}</h3>")
        self.w_sizes = W.Text(value=" ".join(map(str, sizes)), description=_("sizes N"), placeholder="512 1024 2048",
                              tooltip=_("M = N = K for each size"), layout=W.Layout(width="300px"))
        self.w_tiles = W.Text(value=" ".join(map(str, tiles)), description=_("tiles T"), layout=W.Layout(width="200px"))
        self.w_button = W.Button(description=_("Measure on this GPU"), icon="play", button_style="primary", layout=W.Layout(width="200px"))
        self.w_button.add_class("explainer-measure")
        self.w_metric = W.ToggleButtons(options=[(_(m), m) for m in METRICS], value="GFLOP/s", style={"button_width": "100px"})
        self.w_progress = W.IntProgress(min=0, max=1, value=0, layout=W.Layout(width="300px", visibility="hidden"))
        self.w_status = W.HTML()
        self.w_status.add_class("explainer-timing-status")
        self.w_table = W.HTML()
        self.fig = Figure(layout=dict(
            height=360, width=760, barmode="group", margin=dict(l=60, r=10, t=60, b=50),
            plot_bgcolor="white", xaxis=dict(title=_("size (M = N = K)"), type="category"),
            yaxis=dict(title=_(METRICS["GFLOP/s"][1]), gridcolor="#e5e7eb"),
            legend=dict(orientation="h", y=1.0, yanchor="bottom", x=1.0, xanchor="right"), font=dict(family=SANS),
        ))
        self.w_button.on_click(self._on_measure)
        self.w_metric.observe(lambda _: self._draw(), names="value")
        self.st = gpu.status()
        if self.st.available:
            self.w_status.value = _("GPU: <b>{device}</b>. Pick sizes and press the button; compiling takes a few seconds "
                                    "the first time.", device=html.escape(self.st.device or ""))
        else:
            self.w_button.disabled = True
            self.w_button.tooltip = _("no GPU on this machine")
            self._show_recorded()
        sync_figure(self.fig)
        self.widget = W.VBox([
            runtime(),
            self.w_title,
            W.HBox([self.w_sizes, self.w_tiles, self.w_button, self.w_progress]),
            self.w_status, self.w_metric, self.fig, self.w_table,
        ])
        self.widget.add_class("explainer-timing")

    # ---- recorded -----------------------------------------------------------------------
    def _show_recorded(self):
        data = recorded.load_recorded()
        reason = html.escape(self.st.why or _("no GPU"))
        if not data:
            self.w_status.value = _("<b>No GPU here</b> ({reason}) and no recorded timings were found. {hint}",
                                    reason=reason, hint=_(LIVE_HINT))
            return
        sizes = set(_parse_sizes(self.w_sizes.value))
        rows = [r for r in recorded.recorded_rows(data)
                if r["M"] == r["N"] == r["K"] and r["M"] in sizes
                and (r["kernel"] == "cublas" or (r["kernel"] in self.kernels and r.get("tile") in self.tiles))]
        self.rows = rows
        dev = data.get("device", {})
        versions = recorded.versions_text(dev)
        self.source = _("recorded on {device} on {date}", device=dev.get("name", "?"), date=data.get("date", "?")[:10])
        self.w_status.value = (
            '<div style="background:#fef3c7;padding:6px;border-radius:4px">'
            + _("<b>Recorded, not measured here</b>: {source}{versions}, file {file}.",
                source=html.escape(self.source), versions=f" ({html.escape(versions)})" if versions else "",
                file=f"<code>{html.escape(data.get('source', ''))}</code>")
            + f" {context.no_gpu_here(reason)} {_(LIVE_HINT)}</div>"
        )
        self._draw()

    # ---- live -----------------------------------------------------------------------------
    def _on_measure(self, _button=None):
        try:
            sizes = _parse_sizes(self.w_sizes.value)
            tiles = [int(t) for t in self.w_tiles.value.replace(",", " ").split()]
            if not tiles or any(not 1 <= t <= 32 for t in tiles):
                raise ValueError(_("tiles must be whole numbers from 1 to 32"))
        except ValueError as e:
            self.w_status.value = f'<span style="color:#b91c1c">⚠ {html.escape(str(e))}</span>'
            return
        total = len(sizes) * (1 + len(self.kernels) * len(tiles))
        self.w_button.disabled = True
        self.w_progress.max, self.w_progress.value = total, 0
        self.w_progress.layout.visibility = "visible"
        self.w_status.value = _("Compiling the kernels and measuring… (each size: every kernel checked against numpy, then "
                                "timed with cuBLAS in interleaved rounds)")
        measured: list[dict] = []

        def progress(kind, row):
            if kind == "status":  # a check done, or a size's timings begun: no row yet
                self.w_status.value = html.escape(row["message"]) + "…"
                return
            self.w_progress.value += 1
            if kind == "error":
                self.w_status.value = f'<span style="color:#b91c1c">⚠ {html.escape(_label(row))} at {row["M"]}: {html.escape(str(row["message"]).splitlines()[0])}</span>'
            else:
                measured.append(row)
                self.w_status.value = _("measured {kernel} at {n}³ ({i} of {total})…", kernel=html.escape(_label(row)),
                                        n=row["M"], i=self.w_progress.value, total=total)
                self.rows = list(measured)
                self._draw()

        try:
            rep = gpu.benchmark(kernels=list(self.kernels), sizes=sizes, tiles=tiles, progress=progress)
            if isinstance(rep, gpu.GpuStatus):
                self.w_status.value = f'<span style="color:#b91c1c">⚠ {html.escape(str(rep.reason))}</span>'
            else:
                self.rows = list(rep.cublas) + list(rep.results)
                self.source = _("measured just now on {device}", device=self.st.device)
                errs = _("; {n} refused or failed (see above)", n=len(rep.errors)) if rep.errors else ""
                self.w_status.value = _("<b>Measured on this GPU</b> ({device}), {date}{errors}.",
                                        device=html.escape(self.st.device or ""), date=html.escape(rep.date), errors=errs)
                self._draw()
        finally:
            self.w_button.disabled = False
            self.w_progress.layout.visibility = "hidden"

    # ---- drawing --------------------------------------------------------------------------
    def _draw(self):
        key, title = METRICS[self.w_metric.value]
        title = _(title)
        series: dict[str, list[dict]] = {}
        for r in self.rows:
            if key == "pct_cublas" and r["kernel"] == "cublas":
                continue
            series.setdefault(_label(r), []).append(r)
        series = dict(sorted(series.items(), key=lambda kv: _order(kv[1][0])))
        tiles = {}  # per kernel, the tiles shown
        for rows in series.values():
            tiles.setdefault(rows[0]["kernel"], []).append(rows[0].get("tile"))
        self.fig.data = []  # traces differ in number between runs; the figure itself stays
        with self.fig.batch_update():
            for name, rows in series.items():
                rows = sorted(rows, key=lambda r: r["M"])
                self.fig.add_bar(
                    name=name, x=[str(r["M"]) for r in rows], y=[r.get(key) for r in rows],
                    marker_color=_colour(rows[0], tiles[rows[0]["kernel"]]),
                    error_y=dict(type="data", symmetric=False,
                                 array=[r["max_ms"] - r["median_ms"] for r in rows],
                                 arrayminus=[r["median_ms"] - r["min_ms"] for r in rows]) if key == "median_ms" else None,
                    hovertemplate=f"{name} at %{{x}}³: %{{y:.4g}}<extra></extra>",
                )
            self.fig.layout.yaxis.title.text = title
            self.fig.layout.yaxis.type = "log" if key == "median_ms" else "linear"
            self.fig.layout.title = dict(text=html.escape(self.source), font=dict(size=12), x=0.01, y=0.98, yanchor="top")
        self.w_table.value = self._table()

    def _table(self) -> str:
        if not self.rows:
            return ""
        head = "".join(f"<th style='padding:2px 10px;text-align:right'>{h}</th>" for h in
                       (_("kernel"), "N", _("median ms"), _("min–max ms"), "GFLOP/s", _("% cuBLAS"), _("rel. error")))
        body = []
        for r in sorted(self.rows, key=lambda r: (r["M"], *_order(r))):
            pct = f"{r['pct_cublas']:.1f}" if r.get("pct_cublas") else "—"
            err = f"{r['rel_error']:.1e}" if r.get("rel_error") is not None else "—"
            cells = (_label(r), r["M"], f"{r['median_ms']:.4g}", f"{r['min_ms']:.4g}–{r['max_ms']:.4g}",
                     f"{r['gflops']:,.0f}", pct, err)
            body.append("<tr>" + "".join(f"<td style='padding:2px 10px;text-align:right'>{html.escape(str(c))}</td>" for c in cells) + "</tr>")
        return f"<table style='font-size:13px;border-collapse:collapse'><tr>{head}</tr>{''.join(body)}</table>"


def timing_panel(**kw):
    return TimingPanel(**kw).widget
