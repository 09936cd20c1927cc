"""Where the course material is wrong, on the page that teaches the topic: the document's claim,
quoted in English with its own words beside it and named by what the document is, then the figure
:mod:`explainer.model.corrections` computes and why they differ.

One call per notebook cell: ``pages.correction("naive_bandwidth")``. Every number in the HTML
comes from the model's dict; the quotes are the documents' claims, in brown (:data:`SOURCE_STYLE`),
as on the other corrections (:func:`explainer.pages.perf.turing_correction`).
"""

from __future__ import annotations

import html

import ipywidgets as W

from ..i18n import _
from ..model import corrections as model
from ..views.perf import table
from .perf import NOTE, SOURCE_STYLE

BOX = "font-size:14px;margin:4px 0;line-height:1.45"
QUOTED = "background:#f3f4f6;padding:4px 6px;border-radius:4px;font-size:13px;margin-top:4px"


def _e(text) -> str:
    return html.escape(str(text))


def _claim(c: dict) -> str:
    """The quote: document (capitalised at the start of the sentence), section, English, original."""
    doc = _(c["document"])
    doc = doc[0].upper() + doc[1:]
    return (f"<span style='{SOURCE_STYLE}'>"
            + _("{document}, {section} (its claim): “{quote}” ({original}).", document=_e(doc), section=_e(c["section"]),
                quote=_e(c["quote"]), original=f'<span lang="zh-CN">{_e(c["quote_zh"])}</span>') + "</span>")


def _naive_bandwidth(c: dict) -> str:
    return _("Computed by the model: the naive kernel moves {bpf} bytes of DRAM traffic per FLOP ({fpb} FLOP/B), so "
             "{peak} GFLOP/s needs <b>{need} GB/s</b>, not {claim} GB/s.", bpf=f"{c['bytes_per_flop']:g}",
             fpb=f"{c['flop_per_byte']:g}", peak=f"{c['peak_gflops']:,.0f}", need=f"{c['computed']:,.0f}",
             claim=f"{c['claim']:,.0f}")


def _tile_intensity(c: dict) -> str:
    rows = "; ".join(f"T = {r['tile']}: <b>{r['flop_per_byte']:g} FLOP/B</b> ({r['flop_per_load']:g} FLOP per float loaded), "
                     f"not {r['claim']}" for r in c["rows"])
    return f"Computed by the model (DRAM traffic, {c['shape'][0]}³): {rows}."


def _sliding_window(c: dict) -> str:
    b = c["big"]
    M, N, K = c["shape"]
    return (f"Computed by the model on the write-up's example (A {M}×{K}, B {K}×{N}, BLOCK_SIZE = {c['tile']}): "
            f"{c['naive_loads']:,} global loads without shared memory, {c['tiled_loads']:,} with the window: "
            f"<b>{c['computed']:g}× fewer</b>, the tile width, not K = {c['claim']}. At {b['shape'][0]}³, T = {b['tile']}: "
            f"<b>{b['ratio']:g}× fewer</b>, not {b['claim']:,}×.")


def _shared_per_thread(c: dict) -> str:
    return (f"Computed: {c['shared_bytes']:,} B / {c['threads']} threads = <b>{c['computed']:g} B per thread</b>, "
            f"not {c['claim']}. For the occupancy, the calculator with the {_e(c['arch_label'])} preset fits "
            f"<b>{c['blocks_per_sm']} such blocks</b> per SM ({c['active_threads']:,} threads, "
            f"<b>{c['occupancy']:.0%}</b>, limiter: {_e(c['limiter'])}), not {c['claim_threads']:,} threads "
            f"({c['claim_occupancy']:.0%}).")


def _warp_spread(c: dict) -> str:
    rows = [(f"{r['tile']}×{r['tile']}", r["warp_rows"], r["segments"], r["lines"], f"{r['sectors']} (ideal {r['ideal']})",
             f"{r['a_sectors']} (ideal {r['a_ideal']})") for r in c["rows"]]
    n = c["shape"][0]
    t = table(("block", "rows of the block in warp 0", "contiguous pieces of its C store", "128-byte lines",
               "store sectors", "A[row][k] load sectors"), rows,
              f"Warp 0 of block (0, 0), the {c['kernel']} kernel (the lab report's row partition) at {n}³; "
              "computed by explainer.model.memory.")
    return (f"Computed by the model: the most contiguous warps are those of <b>{c['computed']}×{c['computed']}</b> blocks, "
            f"the least those of {c['claim']}×{c['claim']}, the opposite of the claim.{t}")


def _global_latency(c: dict) -> str:
    second = c["claims"][1]
    doc2 = second["document"][0].upper() + second["document"][1:]
    head = (f"<span style='{SOURCE_STYLE}'>{_e(doc2)}, {_e(second['section'])} (its claim): “{_e(second['quote'])}” "
            f"(<span lang=\"zh-CN\">{_e(second['quote_zh'])}</span>).</span>")
    m = c["measured"]
    if not m:
        return (head + "<div><b>The explainer has not measured this latency yet.</b> "
                "<code>benchmarks/bench_latency.py</code> measures it on a GPU by pointer chasing (one dependent load "
                "after another), and this page then shows the figures with the device and the date.</div>")
    cyc, ns = m["cycles_per_load"], m.get("ns_per_load", {})
    const = f"constant memory {cyc['constant']:g}" + (
        f" (a 16 KB working set; {cyc['constant_small']:g} for 1 KB, which the constant cache nearest the SM holds)"
        if "constant_small" in cyc else "")
    timed = (f" In time: a DRAM load {ns['global_dram']:g} ns, an L2 hit {ns['global_l2_hit']:g} ns, shared memory "
             f"{ns['shared']:g} ns; cycles are SM cycles at the {m['clock_mhz']} MHz the SM ran at (a faster clock "
             "counts more cycles for the same DRAM wait)." if ns and m.get("clock_mhz") else "")
    return (head + f"<div><b>Measured</b> on the {_e(m['device']['name'])} ({_e(m['date'])}, "
            f"<code>benchmarks/bench_latency.py</code>, pointer chasing): a load from DRAM <b>{cyc['global_dram']:g} cycles</b>, "
            f"an L2 hit {cyc['global_l2_hit']:g}, shared memory {cyc['shared']:g}, {const}.{timed} "
            f"<b>{_e(c['verdict'])}</b></div>")


RENDER = {
    "naive_bandwidth": _naive_bandwidth,
    "tile_intensity": _tile_intensity,
    "sliding_window": _sliding_window,
    "shared_per_thread": _shared_per_thread,
    "warp_spread": _warp_spread,
    "global_latency": _global_latency,
}


def correction_html(name: str) -> str:
    """The HTML of correction ``name`` (one of :data:`explainer.model.corrections.CORRECTIONS`)."""
    if name not in RENDER:
        raise ValueError(f"no correction {name!r}; choose one of {', '.join(RENDER)}")
    c = model.correction(name)
    return (f"<div class='explainer-correction explainer-correction-{name}' style='{BOX}'>{_claim(c)}<br>"
            f"{RENDER[name](c)}<div style='{NOTE};margin-top:2px'>{_e(c['why'])}</div></div>")


def correction(name: str) -> W.HTML:
    """Correction ``name`` as a widget, for a notebook cell."""
    w = W.HTML(correction_html(name))
    w.add_class("explainer-correction")
    return w
