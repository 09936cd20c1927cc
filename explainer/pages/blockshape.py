"""Page 05's "Non-square blocks": what the block's shape blockDim = (BX, BY) does to the naive
kernels' warps (rows, 32-byte sectors) and to the occupancy, and the lab report's three partitions
(row, column, block), every figure from :mod:`explainer.model.blockshape`. Plain HTML: it works the
same in the live app and in the static export."""

from __future__ import annotations

import html

import ipywidgets as W

from ..i18n import N_, _
from ..model import blockshape as model
from ..model import hardware

TABLE = "font-size:13px;border-collapse:collapse;margin:4px 0"
CELL = "padding:2px 8px;border-bottom:1px solid #e5e7eb;text-align:right"
HEAD = "padding:2px 8px;border-bottom:1px solid #9ca3af;text-align:right"
NOTE = "font-size:12px;color:#4b5563"
ARCHES = ("fermi", "turing", "hopper")
N = 256
#: The lab report's partitions (keys of explainer.model.blockshape.PARTITIONS) as the table names them.
PARTITION_LABELS = {"row": N_("row partition"), "column": N_("column partition"), "block": N_("block partition")}


def _table(head: list[str], rows: list[list[str]]) -> str:
    th = "".join(f"<th style='{HEAD}'>{h}</th>" for h in head)
    trs = "".join("<tr>" + "".join(f"<td style='{CELL}'>{c}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table style='{TABLE}'><tr>{th}</tr>{trs}</table>"


def _per(r: dict, m: str) -> str:
    got, ideal = r["sectors_per_request"][m], r["ideal_per_request"][m]
    s = f"{got:g}" if got == ideal else f"<b>{got:g}</b>"
    return f"{s} ({ideal:g})"


def _occ(r: dict, arch: str) -> str:
    o = r["occupancy"][arch]
    return f"{o['blocks_per_sm']} ({o['occupancy']:.0%})"


def shapes_html(shapes=model.SHAPES, n: int = N) -> str:
    """The table of block shapes: warps, rows per warp, sectors per request of both naive kernels,
    blocks per SM and occupancy on three architecture presets."""
    row = {r["block"]: r for r in model.shape_table("naive", shapes, ARCHES, n)}
    col = {r["block"]: r for r in model.shape_table("naive_col", shapes, ARCHES, n)}
    labels = [html.escape(hardware.arch(a)["label"].split(" (")[0]) for a in ARCHES]
    head = ([_("blockDim (x×y)"), _("threads"), _("warps"), _("rows per warp"), "naive: A", "B", "C", "naive_col: A",
             "B", "C"] + [_("blocks / SM (occupancy): {arch}", arch=a) for a in labels])
    rows = []
    for s in shapes:
        r, c = row[s], col[s]
        rows.append([f"{s[0]}×{s[1]}", str(r["threads"]), str(r["warps"]), str(r["warp_rows"]),
                     _per(r, "A"), _per(r, "B"), _per(r, "C"), _per(c, "A"), _per(c, "B"), _per(c, "C")]
                    + [_occ(r, a) for a in ARCHES])
    eight, wide = row.get((8, 8)), row.get((32, 8))
    notes = []
    if eight and wide:
        w8 = eight["warp0"]
        notes.append(_("With blockDim.x = 8 a warp is 4 rows of 8 threads: warp 0 of an interior 8×8 block reads "
                       "A[row][k] from {a_rows} rows ({a_sectors} sectors where {a_ideal} would do) and stores C in "
                       "{c_sectors} sectors of {c_rows} rows. A 32×8 block has 256 threads like 16×16, but warps of "
                       "one row like 32×32: {wide} sector per A request, as its bytes need.",
                       a_rows=len(w8['A']['rows']), a_sectors=w8['A']['sectors'], a_ideal=w8['A']['ideal'],
                       c_sectors=w8['C']['sectors'], c_rows=len(w8['C']['rows']),
                       wide=f"{wide['sectors_per_request']['A']:g}"))
    notes.append(_("In naive_col threadIdx.x walks rows: a warp's A load and C store touch one sector per row its "
                   "lanes own, min(blockDim.x, 32) of them, whatever the block's height."))
    fermi = row.get((8, 8), {}).get("occupancy", {}).get("fermi")
    if fermi:
        full = sorted({row[s]["threads"] for s in shapes if row[s]["occupancy"]["fermi"]["occupancy"] >= 1})
        slots, occ, warps = hardware.arch('fermi')['max_blocks_per_sm'], f"{fermi['occupancy']:.0%}", fermi['active_warps']
        notes.append(_("Occupancy: a naive block uses no shared memory, so only warps and block slots count. On Fermi "
                       "({slots} block slots) an 8×8 block fills {occ} of the SM ({warps} warps); of these shapes, "
                       "blocks of {full} threads fill it.", slots=slots, occ=occ, warps=warps,
                       full=", ".join(map(str, full))) if full else
                     _("Occupancy: a naive block uses no shared memory, so only warps and block slots count. On Fermi "
                       "({slots} block slots) an 8×8 block fills {occ} of the SM ({warps} warps).", slots=slots,
                       occ=occ, warps=warps))
    return (_table(head, rows)
            + f"<div style='{NOTE}'>"
            + _("Sectors per warp request, averaged over every warp and every k of an interior block of an {n}³ "
                "launch (ideal in parentheses, bold where a request touches more sectors than its bytes need). "
                "Registers not counted. Computed by explainer.model.blockshape from explainer.model.memory and the "
                "presets of explainer/data/arches.json.", n=n) + "</div>"
            + "".join(f"<div style='font-size:13px;margin:4px 0'>{html.escape(t)}</div>" for t in notes))


def partitions_html(n: int = 512) -> str:
    """The lab report's three partitions for 8×8, 16×16 and 32×32, computed."""
    rows = []
    for r in model.partition_table(n=n, arch="hopper"):
        s = r["block"]
        rows.append([html.escape(_(PARTITION_LABELS[r["partition"]])), f"<code>{html.escape(r['lab_kernel'])}</code>",
                     f"<code>{html.escape(r['formula_row'])}</code><br><code>{html.escape(r['formula_col'])}</code>",
                     f"{s[0]}×{s[1]}", _("yes") if r["same_as_row"] else _("no"), _per(r, "A"), _per(r, "B"), _per(r, "C")])
    head = [_("partition"), _("the lab report's kernel"), _("its index lines"), _("block"),
            _("each thread's element = row's"), _("sectors / request: A"), "B", "C"]
    return (_table(head, rows)
            + f"<div style='{NOTE}'>"
            + _("{n}³, blockDim = (tile_x, tile_y); sectors per warp request averaged over an interior block (ideal "
                "in parentheses). The block partition gives every thread the element the row partition gives it "
                "(checked thread by thread over the whole grid): it is the same kernel, which is why the lab report "
                "times the two alike. Computed by explainer.model.blockshape.", n=n) + "</div>")


def block_shapes_html() -> str:
    title = _("The lab report's partitions, computed")
    return (f"<div class='explainer-blockshape'>{shapes_html()}"
            f"<div style='font-size:14px;margin:8px 0 2px'><b>{title}</b></div>"
            f"{partitions_html()}</div>")


def block_shapes() -> W.HTML:
    """The tables as a widget, for a notebook cell."""
    w = W.HTML(block_shapes_html())
    w.add_class("explainer-blockshape")
    return w
