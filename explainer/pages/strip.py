"""Page 02's "Why a sliding window: V1 against V2": the sliding-window write-up's first kernel
(the block's whole strips in shared memory, kernels/02b_strip.cu) against its window
(kernels/03_tiled.cu), every figure from :mod:`explainer.model.strip`. Plain HTML: it works the
same in the live app and in the static export."""

from __future__ import annotations

import html

import ipywidgets as W

from ..i18n import _
from ..model import strip as model

TABLE = "font-size:13px;border-collapse:collapse;margin:4px 0"
CELL = "padding:2px 10px;border-bottom:1px solid #e5e7eb;text-align:right"
HEAD = "padding:2px 10px;border-bottom:1px solid #9ca3af;text-align:right"
NOTE = "font-size:12px;color:#4b5563"


def _kb(b: int) -> str:
    return f"{b / 1024:,.1f} KB" if b % 1024 else f"{b // 1024:,} KB"


def _table(head: list[str], rows: list[list[str]]) -> str:
    th = "".join(f"<th style='{HEAD}'>{h}</th>" for h in head)
    trs = "".join("<tr>" + "".join(f"<td style='{CELL}'>{c}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table style='{TABLE}'><tr>{th}</tr>{trs}</table>"


def strip_vs_window_html(T: int = 16, Ks: tuple[int, ...] = (64, 256, 1024, 4096)) -> str:
    """The two tables: shared memory and global reads per block at a few K, and the largest K V1
    takes per architecture preset (48 KB without opting in, the opt-in maximum)."""
    c = model.compare(T, Ks)
    mem = _table(
        ["K", _("V1 shared / block"), _("V2 shared / block"), _("global floats read / block (V1 = V2)")],
        [[f"{r['K']:,}", _kb(r["v1_bytes"]), _kb(r["v2_bytes"]), f"{r['v1_loads']:,}"] for r in c["rows"]])
    arch = _table(
        [_("architecture"), _("shared / block (no opt-in)"), _("largest K for V1"), _("opt-in maximum"),
         _("largest K for V1 (opt-in)")],
        [[html.escape(_(a["label"])), _kb(a["default_bytes"]), f"{a['max_k_default']:,}",
          _kb(a["optin_bytes"]) if a["has_optin"] else _("none"), f"{a['max_k_optin']:,}" if a["has_optin"] else "–"]
         for a in c["arches"]])
    v2 = c["arches"][0]["v2_bytes"]
    return (f"<div class='explainer-strip'>{mem}<div style='{NOTE}'>"
            + _("T = {T}: V1 needs 2·T·K·4 bytes per block, V2 2·T·T·4 = {v2} at any K; "
                "both read a full block's {T}×K strip of A and K×{T} strip of B once each.", T=T, v2=_kb(v2))
            + f"</div>{arch}<div style='{NOTE}'>"
            + _("T = {T}. Above 48 KB a kernel must opt in "
                "(cudaFuncSetAttribute, cudaFuncAttributeMaxDynamicSharedMemorySize). "
                "Computed by explainer.model.strip from the presets of explainer/data/arches.json.", T=T)
            + "</div></div>")


def strip_vs_window(T: int = 16) -> W.HTML:
    """The tables as a widget, for a notebook cell."""
    w = W.HTML(strip_vs_window_html(T))
    w.add_class("explainer-strip")
    return w
