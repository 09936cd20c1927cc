"""Pages 03 (boundaries) and 04 (barriers): one call per page, every number from the model
(:mod:`explainer.model`, :mod:`explainer.model.hazards`) or measured (:mod:`explainer.gpu.edges`)."""

from __future__ import annotations

import html

import ipywidgets as W
import numpy as np

from .. import gpu
from ..i18n import _
from ..model import hazards
from ..gpu import edges as gpu_edges
from ..gpu import recorded
from ..model import Launch, unguarded_report, unguarded_values
from ..views.plotly_widget import Figure
from ..views.stepper import HAZARD, PADDING, PALETTE, TiledStepper, sync_figure

NOTE = 'style="font-size:12px;color:#4b5563"'


def _swatch(c, text):
    return (f'<span style="display:inline-block;width:12px;height:12px;background:{PALETTE[c]};'
            f'border:1px solid #9ca3af;vertical-align:middle"></span> {html.escape(text)}')


# ---- page 03 ----------------------------------------------------------------------------
def counts_table(launches=((3, 3, 3, 2), (4, 4, 8, 2), (35, 79, 19, 8), (1000, 1000, 1000, 16), (1024, 1024, 1024, 16))):
    """Padding loads, ghost threads and wasted multiply-adds per launch (Launch.stats)."""
    rows = ""
    for M, N, K, T in launches:
        s = Launch("tiled", M, N, K, T).stats()
        ghosts = _("{n} of {all}", n=f"{s['ghost_threads']:,}", all=f"{s['threads']:,}")
        wasted = _("{n} of {all}", n=f"{s['wasted_fmas']:,}", all=f"{s['fmas_executed']:,}")
        rows += (f"<tr><td>{M}×{N}×{K}</td><td>{T}</td><td>{s['grid'][0]}×{s['grid'][1]}</td>"
                 f"<td>{s['padding_loads_a']:,} + {s['padding_loads_b']:,}</td><td>{ghosts}</td>"
                 f"<td>{wasted} ({100 * s['wasted_fraction']:.1f}%)</td></tr>")
    head = "".join(f"<th>{h}</th>" for h in ("M×N×K", "T", _("grid (x×y)"), _("padding zeros stored (As + Bs)"),
                                               _("ghost threads"), _("wasted multiply-adds")))
    return W.HTML(
        f'<table style="font-size:13px"><tr>{head}</tr>'
        f"{rows}</table><div {NOTE}>"
        + _("Computed by explainer.model.Launch.stats(). A multiply-add is wasted "
            "when one factor is a padding zero or the thread is a ghost (tile quantization).") + "</div>")


def quantization_chart(N=64, K=64, tile=16, M_max=96):
    """Wasted multiply-adds (%) and ghost threads of the tiled kernel over M, for a fixed tile."""
    Ms = np.arange(1, M_max + 1)
    st = [Launch("tiled", int(m), N, K, tile).stats() for m in Ms]
    fig = Figure()
    fig.add_scatter(x=Ms, y=[100 * s["wasted_fraction"] for s in st], name=_("wasted multiply-adds (%)"), mode="lines")
    fig.add_scatter(x=Ms, y=[s["ghost_threads"] for s in st], name=_("ghost threads"), mode="lines", yaxis="y2")
    fig.update_layout(
        height=300, width=760, margin=dict(l=50, r=60, t=40, b=40),
        title=dict(text=_("Tile quantization over M (N={N}, K={K}, T={T}; computed by the model)", N=N, K=K, T=tile),
                   font=dict(size=13)),
        xaxis=dict(title=_("M (rows of A and C)")), yaxis=dict(title=_("wasted %"), rangemode="tozero"),
        yaxis2=dict(title=_("ghost threads"), overlaying="y", side="right", rangemode="tozero"),
        legend=dict(orientation="h", y=-0.25),
    )
    sync_figure(fig)
    return fig


def _grid(C, mark=None, title=""):
    cells = ""
    for i, row in enumerate(C):
        tds = ""
        for j, v in enumerate(row):
            bad = mark is not None and mark[i, j]
            txt = "NaN" if v is None or (isinstance(v, float) and np.isnan(v)) else f"{int(v)}"
            tds += f'<td style="padding:2px 6px;text-align:right;{"background:#fecaca" if bad else ""}">{txt}</td>'
        cells += f"<tr>{tds}</tr>"
    return (f'<div style="display:inline-block;margin-right:18px;vertical-align:top"><div style="font-size:13px">'
            f'<b>{html.escape(title)}</b></div><table style="font-size:12px;border:1px solid #e5e7eb">{cells}</table></div>')


def unguarded_panel(M=3, N=3, K=3, tile=2):
    """kernels/06_tiled_unguarded.cu on this launch: the model's list of out-of-range accesses,
    and its wrong C next to the right one (live on a GPU, else recorded, else predicted only)."""
    L = Launch("tiled_unguarded", M, N, K, tile)
    rep = unguarded_report(L)
    A, B = gpu_edges.example_inputs(M, N, K)
    right = A.astype(np.int64) @ B.astype(np.int64)
    pred = unguarded_values(L, A, B)
    lines = [
        _("{n} phase(s) = K / T = {K} / {T} rounded down (the guarded kernel runs {needed})",
          n=rep["phases"], K=K, T=tile, needed=rep["phases_needed"])
        + (_(": columns {lo}..{hi} of A are never multiplied in", lo=rep["missing_k"][0], hi=rep["missing_k"][1])
           if rep["missing_k"] else ""),
        _("{a} reads past the end of A; {b} reads of B land in another row of B, {b_end} past its end",
          a=rep["reads_out_of_range_a"], b=rep["b_reads_in_other_rows"], b_end=rep["reads_past_end_b"]),
        _("{n} ghost-thread stores land on another element of C ({cells}): whichever block stores last wins; "
          "{past} stores land past the end of C", n=rep["stores_into_other_c_elements"],
          cells=", ".join(f"C[{i}][{j}]" for i, j in rep["contested_c"][:8]) + (" …" if len(rep["contested_c"]) > 8 else ""),
          past=rep["stores_past_end_c"]),
        _("{wrong} of {all} elements of C are wrong, {right} right", wrong=rep["wrong_c"], all=M * N, right=rep["correct_c"]),
    ]
    if pred["candidates"]:
        lines.append(_("contested elements may end up as any of (owner's value first): ") + "; ".join(
            f"C[{i}][{j}] ∈ {{{', '.join(str(int(v)) for v in vals)}}}" for (i, j), vals in list(pred["candidates"].items())[:6]))
    ex = "".join("<li>" + _("thread (x={tx}, y={ty}) of block (x={bx}, y={by}) wants {wants} → address {address}: {lands}",
                            tx=e["thread"][0], ty=e["thread"][1], bx=e["block"][0], by=e["block"][1], wants=e["wants"],
                            address=e["linear"], lands=html.escape(e["lands"])) + "</li>"
                 for key in ("a", "b", "c") for e in rep["examples"][key][:2])
    grids = (_grid(right, title=_("right: numpy A @ B"))
             + _grid(pred["C"], pred["C"] != right, title=_("model's prediction (owners' stores)")))
    st = gpu.status()
    measured = ""
    if st.available:
        r = gpu_edges.run_unguarded(M, N, K, tile, A=A, B=B)
        if isinstance(r, dict):
            got = r["C"].astype(np.float64)
            measured = _grid(got, got != right, title=_("measured live on {device}", device=st.device))
    else:
        rec = gpu_edges.recorded_flakiness()
        ex_rec = next((u for u in (rec or {}).get("unguarded", []) if (u["M"], u["N"], u["K"], u["tile"]) == (M, N, K, tile) and "C" in u), None)
        if ex_rec:
            got = np.array([[np.nan if v is None else v for v in row] for row in ex_rec["C"]])
            measured = _grid(got, got != right, title=_("recorded: {label}", label=recorded.label_text(rec)))
    return W.HTML(
        '<div style="font-size:14px">'
        + _("<b>PMPP fig. 5.9 as printed</b> (kernels/06_tiled_unguarded.cu), "
            "M={M}, N={N}, K={K}, T={T}, small-integer inputs (gpu_edges.example_inputs):", M=M, N=N, K=K, T=tile)
        + "<ul>" + "".join(f"<li>{html.escape(x)}</li>" for x in lines) + "</ul>" + _("Examples:") + f"<ul>{ex}</ul></div>"
        + (grids + measured if M * N <= 144 else "")
        + f"<div {NOTE}>"
        + _("Computed by explainer.model.unguarded_report / unguarded_values; red cells differ from numpy. "
            "Out-of-range accesses are undefined behaviour, so the explainer runs this kernel only where they stay inside "
            "the allocations: explainer.gpu.edges pads A and B with zeros and C with NaN up to the extents the model computes, "
            "and gpu.check refuses it unless T divides M and N. Without a GPU the measured grid is a recorded run "
            "(labelled with device and date); for live numbers open this page on a CUDA machine.") + "</div>")


def boundaries(**kw):
    """Page 03: the stepper with padding and ghost threads marked (its sections below: the price
    of the edges, :func:`edge_costs`; the kernel without checks, :func:`without_checks`)."""
    args = dict(M=3, N=3, K=3, tile=2, block=(1, 0), thread=(1, 0), window_cells=48, mark_ghosts=True)
    args.update(kw)
    st = TiledStepper(**args)
    legend = W.HTML(f'<div style="font-size:12px">{_swatch(PADDING, _("padding zero in As / Bs, and ghost threads (outside C)"))}</div>')
    return W.VBox([legend, st.widget])


def edge_costs():
    """Page 03, "the price of the edges": padding zeros, ghost threads and wasted multiply-adds for a
    few launches, and over M for a fixed tile."""
    return W.VBox([counts_table(), quantization_chart()])


def without_checks():
    """Page 03, "the kernel without checks": PMPP fig. 5.9 as printed, on two shapes."""
    return W.VBox([unguarded_panel(), unguarded_panel(35, 79, 19, 8)])


# ---- page 04 ----------------------------------------------------------------------------
VARIANTS = ("tiled", "tiled_no_barrier1", "tiled_no_barrier2", "tiled_no_barriers")


def hazard_table(M=8, N=8, K=8, tile=4):
    """What the hazard detector finds in each variant on one launch."""
    rows = ""
    for k in VARIANTS:
        L = Launch(k, M, N, K, tile)
        s = hazards.summary(L)
        hz = hazards.hazards(L)
        first = html.escape(hz[0].describe(L.phases)) if hz else _("none")
        rbw, wbr = s[hazards.READ_BEFORE_WRITE], s[hazards.WRITE_BEFORE_READ]
        rows += (f"<tr><td>{k}</td><td>{_('{cells} cells, {pairs} pairs', cells=rbw['cells'], pairs=rbw['pairs'])}</td>"
                 f"<td>{_('{cells} cells, {pairs} pairs', cells=wbr['cells'], pairs=wbr['pairs'])}</td>"
                 f"<td>{rbw['pairs_across_warps'] + wbr['pairs_across_warps']}</td><td>{first}</td></tr>")
    head = "".join(f"<th>{h}</th>" for h in (_("kernel"), _("read-before-write (barrier 1)"), _("write-before-read (barrier 2)"),
                                               _("racing pairs across warps"), _("first report")))
    return W.HTML(
        f'<table style="font-size:13px"><tr>{head}</tr>'
        f"{rows}</table><div {NOTE}>"
        + _("M={M}, N={N}, K={K}, T={T}: {phases} phases, {threads} threads per block. A (cell, phase) counts once per "
            "kind; a pair is (writer, reader). Computed by explainer.model.hazards.", M=M, N=N, K=K, T=tile,
            phases=Launch("tiled", M, N, K, tile).phases, threads=tile * tile) + "</div>")


def flakiness_table(live_repeats=50):
    """How often each variant's C differs from numpy: measured live on a GPU, else recorded."""
    st = gpu.status()
    if st.available:
        rep = gpu_edges.flakiness(repeats=live_repeats)
        label = _("measured live on {device}, {n} runs each", device=st.device, n=live_repeats)
    else:
        rep = gpu_edges.recorded_flakiness()
        if rep is None:
            return W.HTML(f"<div {NOTE}>" + _("No GPU and no recorded measurement.") + "</div>")
        label = _("recorded: {label} ({n} runs each; no GPU here: open on a CUDA machine for live numbers)",
                  label=recorded.label_text(rep), n=rep["settings"]["repeats"])
    if not isinstance(rep, dict):
        return W.HTML(f"<div {NOTE}>{html.escape(str(rep))}</div>")
    shapes = sorted({(r["M"], r["N"], r["K"]) for r in rep["results"]}, key=lambda s: s[0] * s[1] * s[2])
    tiles = sorted({r["tile"] for r in rep["results"]})
    head = "".join(f"<th>{M}×{N}×{K}<br>T={T}</th>" for M, N, K in shapes for T in tiles)
    body = ""
    for k in VARIANTS:
        cells = ""
        for M, N, K in shapes:
            for T in tiles:
                r = next((r for r in rep["results"] if (r["kernel"], r["M"], r["N"], r["K"], r["tile"]) == (k, M, N, K, T)), None)
                if r is None or "error" in r:
                    cells += "<td>–</td>"
                    continue
                bad = r["runs_differing"]
                cells += f'<td style="{"background:#fecaca" if bad else ""}">{bad}/{r["repeats"]}</td>'
        body += f"<tr><td>{k}</td>{cells}</tr>"
    return W.HTML(
        '<div style="font-size:14px">' + _("<b>Runs whose C differs from numpy</b> ({label})", label=html.escape(label)) + "</div>"
        f'<table style="font-size:12px"><tr><th>{_("kernel")}</th>{head}</tr>{body}</table>'
        f"<div {NOTE}>"
        + _("Small-integer inputs (sums are exact), C poisoned with NaN before each run; a run differs when any "
            "element differs. T=4 is a 16-thread block: one warp. A count of 0 does not make a kernel correct.") + "</div>")


def barriers(**kw):
    """Page 04: the stepper on a barrier-less variant with the racing cells drawn, the hazard
    table, and measured failure frequencies."""
    args = dict(M=8, N=8, K=8, tile=4, block=(1, 0), thread=(1, 2), kernel="tiled_no_barriers", variants=VARIANTS)
    args.update(kw)
    st = TiledStepper(**args)  # its own "kernel" picker switches between the variants
    legend = W.HTML(f'<div style="font-size:12px">{_swatch(HAZARD, _("in a race at this step: a cell another thread may read too early / overwrite too soon, or the thread whose store the pinned thread may miss"))}</div>')
    return W.VBox([legend, st.widget, hazard_table(), flakiness_table()])
