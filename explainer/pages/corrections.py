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
from .perf import NOTE, SOURCE_STYLE, limiter_word

BOX = "font-size:14px;margin:4px 0;line-height:1.45"
QUOTED = "background:#f3f4f6;padding:4px 6px;border-radius:4px;font-size:13px;margin-top:4px"


def _e(text) -> str:
    return html.escape(str(text))


def _claim(c: dict) -> str:
    """The quote: document (capitalised at the start of the sentence), section, English, original."""
    doc = _(c["document"])
    doc = doc[0].upper() + doc[1:]
    return (f"<span style='{SOURCE_STYLE}'>"
            + _("{document}, {section} (its claim): “{quote}” ({original}).", document=_e(doc), section=_e(_(c["section"])),
                quote=_e(c["quote"]), original=f'<span lang="zh-CN">{_e(c["quote_zh"])}</span>') + "</span>")


def _naive_bandwidth(c: dict) -> str:
    return _("Computed by the model: the naive kernel moves {bpf} bytes of DRAM traffic per FLOP ({fpb} FLOP/B), so "
             "{peak} GFLOP/s needs <b>{need} GB/s</b>, not {claim} GB/s.", bpf=f"{c['bytes_per_flop']:g}",
             fpb=f"{c['flop_per_byte']:g}", peak=f"{c['peak_gflops']:,.0f}", need=f"{c['computed']:,.0f}",
             claim=f"{c['claim']:,.0f}")


def _tile_intensity(c: dict) -> str:
    rows = _("; ").join(_("T = {T}: <b>{fpb} FLOP/B</b> ({fpl} FLOP per float loaded), not {claim}", T=r['tile'],
                          fpb=f"{r['flop_per_byte']:g}", fpl=f"{r['flop_per_load']:g}", claim=r['claim'])
                        for r in c["rows"])
    return _("Computed by the model (DRAM traffic, {n}³): {rows}.", n=c['shape'][0], rows=rows)


def _sliding_window(c: dict) -> str:
    b = c["big"]
    M, N, K = c["shape"]
    return _("Computed by the model on the write-up's example (A {M}×{K}, B {K}×{N}, BLOCK_SIZE = {T}): {naive} global "
             "loads without shared memory, {tiled} with the window: <b>{ratio}× fewer</b>, the tile width, not K = "
             "{claim}. At {n}³, T = {big_T}: <b>{big_ratio}× fewer</b>, not {big_claim}×.", M=M, N=N, K=K, T=c['tile'],
             naive=f"{c['naive_loads']:,}", tiled=f"{c['tiled_loads']:,}", ratio=f"{c['computed']:g}", claim=c['claim'],
             n=b['shape'][0], big_T=b['tile'], big_ratio=f"{b['ratio']:g}", big_claim=f"{b['claim']:,}")


def _shared_per_thread(c: dict) -> str:
    return _("Computed: {bytes} B / {threads} threads = <b>{per} B per thread</b>, not {claim}. For the occupancy, the "
             "calculator with the {arch} preset fits <b>{blocks} such blocks</b> per SM ({active} threads, <b>{occ}</b>, "
             "limiter: {limiter}), not {claim_threads} threads ({claim_occ}).", bytes=f"{c['shared_bytes']:,}",
             threads=c['threads'], per=f"{c['computed']:g}", claim=c['claim'], arch=_e(c['arch_label']),
             blocks=c['blocks_per_sm'], active=f"{c['active_threads']:,}", occ=f"{c['occupancy']:.0%}",
             limiter=_e(limiter_word(c['limiter'])), claim_threads=f"{c['claim_threads']:,}",
             claim_occ=f"{c['claim_occupancy']:.0%}")


def _warp_spread(c: dict) -> str:
    rows = [(f"{r['tile']}×{r['tile']}", r["warp_rows"], r["segments"], r["lines"],
             _("{n} (ideal {ideal})", n=r['sectors'], ideal=r['ideal']),
             _("{n} (ideal {ideal})", n=r['a_sectors'], ideal=r['a_ideal'])) for r in c["rows"]]
    n = c["shape"][0]
    t = table((_("block"), _("rows of the block in warp 0"), _("contiguous pieces of its C store"), _("128-byte lines"),
               _("store sectors"), _("A[row][k] load sectors")), rows,
              _("Warp 0 of block (0, 0), the {kernel} kernel (the lab report's row partition) at {n}³; computed by "
                "explainer.model.memory.", kernel=c['kernel'], n=n))
    return _("Computed by the model: the most contiguous warps are those of <b>{best}×{best}</b> blocks, the least those "
             "of {claim}×{claim}, the opposite of the claim.", best=c['computed'], claim=c['claim']) + t


def _global_latency(c: dict) -> str:
    head = _claim(c["claims"][1])
    m = c["measured"]
    if not m:
        return head + "<div>" + _(
            "<b>The explainer has not measured this latency yet.</b> <code>benchmarks/bench_latency.py</code> measures "
            "it on a GPU by pointer chasing (one dependent load after another), and this page then shows the figures "
            "with the device and the date.") + "</div>"
    cyc, ns = m["cycles_per_load"], m.get("ns_per_load", {})
    const = (_("constant memory {cycles} (a 16 KB working set; {small} for 1 KB, which the constant cache nearest the "
               "SM holds)", cycles=f"{cyc['constant']:g}", small=f"{cyc['constant_small']:g}")
             if "constant_small" in cyc else _("constant memory {cycles}", cycles=f"{cyc['constant']:g}"))
    timed = (_("In time: a DRAM load {dram} ns, an L2 hit {l2} ns, shared memory {shared} ns; cycles are SM cycles at "
               "the {mhz} MHz the SM ran at (a faster clock counts more cycles for the same DRAM wait).",
               dram=f"{ns['global_dram']:g}", l2=f"{ns['global_l2_hit']:g}", shared=f"{ns['shared']:g}",
               mhz=m['clock_mhz']) if ns and m.get("clock_mhz") else "")
    return head + "<div>" + _(
        "<b>Measured</b> on the {device} ({date}, <code>benchmarks/bench_latency.py</code>, pointer chasing): a load "
        "from DRAM <b>{dram} cycles</b>, an L2 hit {l2}, shared memory {shared}, {constant}.",
        device=_e(m['device']['name']), date=_e(m['date']), dram=f"{cyc['global_dram']:g}",
        l2=f"{cyc['global_l2_hit']:g}", shared=f"{cyc['shared']:g}", constant=const) + (" " + timed if timed else "") \
        + f" <b>{_e(c['verdict'])}</b></div>"


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
