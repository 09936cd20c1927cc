"""Widgets of the performance pages (05-07): the occupancy calculator and the roofline figure
(the warp / coalescing explorer is a browser view: :mod:`explainer.views.warps`). Every number comes from :mod:`explainer.model.memory`,
:mod:`explainer.model.hardware`, :mod:`explainer.model.roofline` or a recorded file."""

from __future__ import annotations

import html
import math

import ipywidgets as W
import numpy as np

from ..model import hardware, roofline
from ..model import Launch
from .plotly_widget import Figure
from .stepper import sync_figure
from .common import SANS

FONT = dict(family=SANS)
TD = "padding:2px 8px;text-align:right;border-bottom:1px solid #e5e7eb"
TH = "padding:2px 8px;text-align:right;border-bottom:2px solid #9ca3af"


def table(head, rows, caption: str = "", cls: str = "") -> str:
    """A small HTML table; cells are escaped unless they are ``("html", text)``."""
    def cell(c, tag, style):
        text = c[1] if isinstance(c, tuple) and c and c[0] == "html" else html.escape(str(c))
        return f"<{tag} style='{style}'>{text}</{tag}>"

    h = "".join(cell(c, "th", TH) for c in head)
    b = "".join("<tr>" + "".join(cell(c, "td", TD) for c in r) + "</tr>" for r in rows)
    cap = f"<caption style='caption-side:bottom;font-size:12px;color:#4b5563;text-align:left'>{caption}</caption>" if caption else ""
    return f"<table class='{cls}' style='font-size:13px;border-collapse:collapse;margin:4px 0'><tr>{h}</tr>{b}{cap}</table>"


def verdict(sectors: int, ideal: int) -> tuple:
    if sectors <= ideal:
        return ("html", "<span style='color:#047857'>coalesced</span>")
    return ("html", f"<span style='color:#b91c1c'>{sectors / ideal:.0f}× the ideal</span>")


# --------------------------------------------------------------------------------------
# Occupancy calculator
# --------------------------------------------------------------------------------------
class OccupancyCalculator:
    """threads per block, shared bytes per block, registers per thread -> blocks per SM, limiter.

    The fields take any whole number: a value the architecture does not allow is not clamped
    silently but refused with one line that says why (``w_error``), and the last good result
    stays shown until an input succeeds again (``result``: the last good one)."""

    def __init__(self, arch="hopper", threads=256, smem=2048, regs=32):
        st = {"description_width": "150px"}
        lay = W.Layout(width="300px")
        self.w_arch = W.Dropdown(options=[(a["label"], k) for k, a in hardware.arches().items()], value=arch,
                                 description="architecture", style=st, layout=W.Layout(width="420px"))
        self.w_threads = W.IntText(value=threads, description="threads / block", style=st, layout=lay)
        self.w_smem = W.IntText(value=smem, description="shared bytes / block", style=st, layout=lay)
        self.w_regs = W.IntText(value=regs, description="registers / thread (0: ignore)", style=st, layout=lay)
        self.w_error = W.HTML()
        self.w_error.add_class("explainer-error")
        self.w_out = W.HTML()
        self.w_out.add_class("explainer-occupancy-out")
        self.result = None
        for w in (self.w_arch, self.w_threads, self.w_smem, self.w_regs):
            w.observe(lambda _: self.update(), names="value")
        self.update()
        self.widget = W.VBox([self.w_arch, W.HBox([self.w_threads, self.w_smem, self.w_regs]), self.w_error, self.w_out])
        self.widget.add_class("explainer-occupancy")

    def update(self):
        try:
            if self.w_regs.value < 0:
                raise hardware.OccupancyError(f"registers per thread must be 0 (ignore) or more, got {self.w_regs.value}")
            o = hardware.occupancy(self.w_arch.value, self.w_threads.value, self.w_smem.value,
                                   self.w_regs.value or None)
        except hardware.OccupancyError as e:
            kept = " (the result below is for the last values that worked)" if self.result is not None else ""
            self.w_error.value = f'<span style="color:#b91c1c">⚠ {html.escape(str(e))}{kept}</span>'
            return
        self.w_error.value = ""
        self.result = o
        names = {"threads": "warps (threads) per SM", "blocks": "resident blocks per SM",
                 "shared": "shared memory per SM", "registers": "registers per SM"}
        rows = [(names[r], o.limits[r], "◀ limiter" if r == o.limiter else "") for r in hardware.RESOURCES if r in o.limits]
        self.w_out.value = (
            f"<div style='font-size:15px;margin:4px 0'><b>{o.blocks_per_sm} block(s) per SM</b> = "
            f"{o.active_warps} warps = {o.active_threads} threads; occupancy <b>{o.occupancy:.0%}</b>; "
            f"limited by <b>{html.escape(names[o.limiter])}</b>.</div>"
            + table(("resource", "blocks it allows", ""), rows,
                    "Each resource alone allows this many blocks; the SM holds the smallest. "
                    "Rules of the CUDA Occupancy Calculator, limits from explainer/data/arches.json."))


# --------------------------------------------------------------------------------------
# Roofline
# --------------------------------------------------------------------------------------
KERNEL_COLORS = {"naive": "#f59e0b", "naive_col": "#ef4444", "tiled": "#3b82f6", "tiled_register_copy": "#10b981",
                 "tiled_dynamic": "#6366f1"}


def roofline_points(timing: dict | None, n: int = 4096, device: dict | None = None) -> list[dict]:
    """One point per kernel/tile at M=N=K=n: the model's intensity, the recorded GFLOP/s, and where
    Nsight Compute measured the DRAM bytes, the intensity against the bytes DRAM really moved."""
    if not timing:
        return []
    from ..gpu import recorded

    ncu = {}
    for run in (device or {}).get("ncu", {}).get("runs", []):
        m = run["metrics"]
        ncu[(run["kernel"], run["tile"], run["M"])] = m["dram__bytes_read.sum"] + m["dram__bytes_write.sum"]
    pts = []
    for r in recorded.recorded_rows(timing, size=n):
        if r["kernel"] not in ("naive", "naive_col", "tiled"):
            continue
        L = Launch(r["kernel"], n, n, n, r["tile"])
        s = L.stats()
        dram = ncu.get((r["kernel"], r["tile"], n))
        pts.append({"kernel": r["kernel"], "tile": r["tile"], "N": n, "flop_per_byte": s["flop_per_byte"],
                    "gflops": r["gflops"], "model_bytes": 4 * s["global_loads"], "dram_bytes": dram,
                    "dram_flop_per_byte": s["flops"] / dram if dram else None})
    return pts


def roofline_figure(roofs: dict, points: list[dict], title: str = "") -> Figure:
    peak, bw = roofs["peak_gflops"], roofs["bandwidth_gbs"]
    xs = np.logspace(-2, 3, 200)
    fig = Figure(layout=dict(
        height=460, width=780, font=FONT, plot_bgcolor="white", margin=dict(l=70, r=10, t=50, b=50),
        xaxis=dict(type="log", title="arithmetic intensity, FLOP per byte of DRAM traffic", gridcolor="#e5e7eb"),
        yaxis=dict(type="log", title="GFLOP/s", gridcolor="#e5e7eb"),
        legend=dict(font=dict(size=11)), title=dict(text=html.escape(title), font=dict(size=12), x=0.01)))
    fig.add_scatter(x=xs.tolist(), y=[min(peak, x * bw) for x in xs], mode="lines", name="roofline",
                    line=dict(color="#111827", width=2),
                    hovertemplate="%{x:.3g} FLOP/B → bound %{y:,.0f} GFLOP/s<extra></extra>")
    for p in points:
        name = f"{p['kernel']} T={p['tile']}"
        color = KERNEL_COLORS.get(p["kernel"], "#6b7280")
        fig.add_scatter(x=[p["flop_per_byte"]], y=[p["gflops"]], mode="markers", name=f"{name} (model bytes)",
                        marker=dict(size=11, color=color, symbol="circle"),
                        hovertemplate=f"{name}: %{{x:.3g}} FLOP/B (model), %{{y:,.0f}} GFLOP/s measured<extra></extra>")
        if p.get("dram_flop_per_byte"):
            fig.add_scatter(x=[p["flop_per_byte"], p["dram_flop_per_byte"]], y=[p["gflops"], p["gflops"]],
                            mode="lines+markers", name=f"{name} (DRAM bytes, ncu)", showlegend=True,
                            line=dict(color=color, dash="dot", width=1),
                            marker=dict(size=[0, 10], color=color, symbol="diamond-open"),
                            hovertemplate=f"{name}: %{{x:.3g}} FLOP/B against the bytes DRAM moved<extra></extra>")
    fig.add_annotation(x=math.log10(roofline.ridge(bw, peak)), y=math.log10(peak), text=f"ridge {roofline.ridge(bw, peak):.1f} FLOP/B",
                       showarrow=True, arrowhead=2, ay=-30, font=dict(size=11))
    sync_figure(fig)
    return fig
