"""Page 08's mapping view: for one rung of the ladder (kernels 10-14) and one thread, the outputs
of the BM x BN block tile it owns (and its warp's), what it reads from As / Bs at step k of the
compute loop, which elements it copies from global memory, and its registers.

:func:`ladder_data` computes, once per rung and from :mod:`explainer.model.ladder` (through the pure
functions of :mod:`explainer.views.ladder_maps`), everything ``ladder.js`` draws for *every* thread,
step k and mode, so that picking a thread (typed, or a click on the C tile), a step k or a mode
happens in the browser; Python is asked only for another rung (``{cmd: "kernel", name}``).

Arrays (``t`` = a thread id, ``w`` = a warp; colour codes are ``ladder_view``'s):

* ``owner[m, n]``: the thread that computes output (m, n) of the block tile (``ladder.owner_map``);
* per thread: ``thr_warp``, ``thr_lane``, ``thr_stripe`` (the colour of its outputs when it is
  in another warp: warps alternate), ``thr_rows`` / ``thr_cols`` (the rows of As / columns of
  Bs it reads at every step k, in register order: ``ladder_view.thread_reads``);
* per warp: ``warp_rows[w, m]`` / ``warp_cols[w, n]`` (1 where the warp reads row m of As /
  column n of Bs), ``warp_box[w] = (row0, row1, col0, col1)`` (its region), ``warp_sub[w, i] =
  (row0, col0, rows, cols)`` (its warp-tiling sub-tiles; none below kernel 14);
* per element of the A window (BM x BK) / B window (BK x BN): ``a_stripe`` / ``b_stripe`` (the
  reads picture's background: steps k alternate), ``loader_a`` / ``loader_b`` (the thread that
  copies it), ``a_group`` / ``b_group`` (the copies picture's background: load instructions
  alternate), ``a_slot`` / ``a_bank`` / ``b_slot`` / ``b_bank`` (where the compute loop reads it);
* per thread, its global -> shared copies in issue order: ``cp_a[t, i] = (m, k, last k)`` with
  ``cp_a_slot`` / ``cp_a_bank`` (the As slots of its ``vector`` elements), ``cp_b[t, i] = (k, n,
  last n)`` with ``cp_b_slot[t, i] = (first, last)`` (-1: none).

The texts that depend on the thread come as per-thread / per-warp strings (``thr_ranges``,
``warp_text``) or as templates whose ``{tid}``, ``{k}``, ``{n0}`` the browser fills in.
"""

from __future__ import annotations

import html

import numpy as np

from ..model import ladder
from .. import resources
from ..i18n import _
from ..model.ladder import RUNGS, WARP, Rung
from .ladder_maps import (MODES, NOW_C, OTHER_EVEN, OTHER_ODD, PALETTE, THREAD_C, WARP_C, check_thread,
                           copies, ranges, register_counts, rung_facts, rung_label, shared_loads_per_k,
                           thread_reads, warp_lane, warp_region, warp_subtiles)
from .payload import pack, unpack
from .store import STATIC_BUDGET, BrowserView, keyed_store

NAMES = tuple(r.name for r in RUNGS)
OFFLINE_NOTE = "This static page holds every rung; this one needs the live app (tiled-explainer serve) or JupyterLab."


def _i16(a) -> np.ndarray:
    a = np.asarray(a)
    assert a.size == 0 or (a.min() >= -(1 << 15) and a.max() < (1 << 15))
    return a.astype(np.int16)


def _warp_text(r: Rung, warp: int) -> str:
    box = warp_region(r, warp)
    wd = r.warp_dims
    if r.layout == "warp":
        return _("warp {warp} owns the warp tile rows {r0}–{r1}, columns {c0}–{c1} ({WM}×{WN}), cut into "
                 "{mi}×{ni} sub-tiles of {sm}×{sn} (dotted); in each, the 32 lanes form a {gm}×{gn} grid of "
                 "{tm}×{tn} micro-tiles", warp=warp, r0=box['row0'], r1=box['row1'] - 1, c0=box['col0'],
                 c1=box['col1'] - 1, WM=wd['WM'], WN=wd['WN'], mi=wd['WMITER'], ni=wd['WNITER'], sm=wd['WSUBM'],
                 sn=wd['WSUBN'], gm=wd['WSUBM'] // r['TM'], gn=wd['WSUBN'] // r['TN'], tm=r['TM'], tn=r['TN'])
    part = "" if box['compact'] else _(", not all of it")
    return _("warp {warp} covers rows {r0}–{r1}, columns {c0}–{c1} of the block tile ({rows}×{cols}{part})",
             warp=warp, r0=box['row0'], r1=box['row1'] - 1, c0=box['col0'], c1=box['col1'] - 1, rows=box['rows'],
             cols=box['cols'], part=part)


def _info_rung(r: Rung) -> str:
    f = rung_facts(r)
    lds = shared_loads_per_k(r)
    tm, tn = f["thread_tile"]
    kind = f"LDS.{32 * r.vector}" if r.layout != "1d" else "LDS.32"
    per_k = (_("{a} As loads (straight into the FMAs) + {b} Bs load (into a register)", a=lds['lds_a'], b=lds['lds_b'])
             if r.layout == "1d" else _("{a} As + {b} Bs loads ({kind}, {bytes} B each)", a=lds['lds_a'],
                                        b=lds['lds_b'], kind=kind, bytes=lds['bytes_per_lds']))
    buffers = (_("{n} buffers", n=r.buffers) if r.buffers > 1 else _("{n} buffer", n=r.buffers))
    buffers += (_(", As transposed") if r.transposed else "") + (_(", rows padded by {pad}", pad=f['pad']) if f['pad'] else "")
    barriers = (_("{n} barriers per phase", n=f["barriers"]) if f["barriers"] > 1
                else _("{n} barrier per phase", n=f["barriers"]))
    return _("<b>{label}</b> (<code>kernels/{file}</code>): block tile {BM}×{BN}, BK = {BK}; {threads} threads = "
             "{warps} warps; each thread owns {tm}×{tn} = <b>{outputs}</b> outputs. Per step k a thread does {fmas} "
             "FMAs for {per_k}: <b>{ratio} FMAs per shared load</b>. Shared memory {shared} B per block ({buffers}); "
             "{barriers}; DRAM intensity {intensity} FLOP/B.",
             label=html.escape(rung_label(r)), file=html.escape(r.file), BM=r.BM, BN=r.BN, BK=r.BK, threads=r.threads,
             warps=f['warps'], tm=tm, tn=tn, outputs=f['outputs'], fmas=lds['fmas'], per_k=per_k,
             ratio=f"{f['fma_per_lds']:.2f}", shared=f"{f['shared_bytes']:,}", buffers=buffers, barriers=barriers,
             intensity=f"{f['intensity']:.1f}")


def _as_index(r: Rung, k: str) -> str:
    """How the kernel indexes As for row m of the tile at step ``k`` (a name, or a template's
    ``{k}``), as :func:`ladder.read_slot_a` computes it."""
    if not r.transposed:
        return f"As[m·{r.BK} + {k}]"
    return f"As[{k}·{r.lda} + (m ⊕ 4·(⌊{k}/8⌋ mod 2))]" if r.swizzled else f"As[{k}·{r.lda} + m]"


def _registers(r: Rung) -> dict:
    """The registers panel's sentence as a template ({tid}, {k}; {n0}: the thread's one column in
    kernel 10), and how its table is laid out."""
    rc = register_counts(r)
    tm, tn = rc["acc_shape"]
    a_of = _as_index(r, "{k}")
    if r.layout == "1d":
        counts = _("acc[{acc}] and one register b = Bs[{k}·{BN} + {n0}]; the {tm} values {a_of} are read straight "
                   "from shared memory", acc=rc['acc'], BN=r.BN, tm=tm, a_of=a_of)
        what = _("cell: acc[i] accumulates As[m][k]·b into C(m, n)")
    else:
        counts = _("acc[{tm}][{tn}] = {acc}, regM[{nm}] (regM[i] = {a_of}, m in the left column), regN[{nn}] "
                   "(regN[j] = Bs[{k}·{BN} + n], n in the top row)", tm=tm, tn=tn, acc=rc['acc'], nm=rc['regM'],
                   a_of=a_of, nn=rc['regN'], BN=r.BN)
        what = _("cell i,j: acc[i][j] += regM[i]·regN[j], the C element (m, n) of the block tile")
    if rc["staging"]:
        counts += _(", staging ra/rb: {n} floats (tile t+1 on its way)", n=rc['staging'])
    return {"text": _("<b>Registers of thread {tid}</b> at step k = {k} of 0..{last}: {counts}; {total} floats in all. "
                      "{what}.", last=r.BK - 1, counts=counts, total=rc['total'], what=what),
            "table": "1d" if r.layout == "1d" else "2d", "counts": rc}


def _copies_arrays(r: Rung) -> dict[str, np.ndarray]:
    v = r.vector
    per = [copies(r, t) for t in range(r.threads)]
    na = max(len(c["a"]) for c in per)
    nb = max(len(c["b"]) for c in per)
    cp_a = np.full((r.threads, na, 3), -1)
    cp_a_slot = np.full((r.threads, na, v), -1)
    cp_b = np.full((r.threads, nb, 3), -1)
    cp_b_slot = np.full((r.threads, nb, 2), -1)
    for t, c in enumerate(per):
        for i, (m, k) in enumerate(c["a"]):
            cp_a[t, i] = (m, k, k + v - 1)
            cp_a_slot[t, i] = ladder.read_slot_a(r, m, np.arange(k, k + v))
        for i, (k, n) in enumerate(c["b"]):
            cp_b[t, i] = (k, n, n + v - 1)
            cp_b_slot[t, i] = (ladder.read_slot_b(r, k, n), ladder.read_slot_b(r, k, n + v - 1))
    return {"cp_a": _i16(cp_a), "cp_a_slot": _i16(cp_a_slot),
            "cp_a_bank": np.where(cp_a_slot >= 0, cp_a_slot % 32, -1).astype(np.int8),
            "cp_b": _i16(cp_b), "cp_b_slot": _i16(cp_b_slot)}


def ladder_data(r: Rung) -> tuple[dict, dict[str, np.ndarray]]:
    """``(meta, arrays)`` of rung ``r`` for every thread, step k and mode (see the module doc)."""
    threads, warps = r.threads, -(-r.threads // WARP)
    tids = np.arange(threads)
    own = ladder.owner_map(r)
    assert (own >= 0).all(), "an output of the block tile has no owner"
    warp, lane = warp_lane(tids)
    reads = [thread_reads(r, t) for t in tids]
    warp_rows = np.zeros((warps, r.BM), np.uint8)
    warp_cols = np.zeros((warps, r.BN), np.uint8)
    for t, (rows, cols) in enumerate(reads):
        warp_rows[warp[t], rows] = 1
        warp_cols[warp[t], cols] = 1
    boxes = [warp_region(r, w) for w in range(warps)]
    subs = [warp_subtiles(r, w) for w in range(warps)]
    nsub = max(len(s) for s in subs)
    warp_sub = np.zeros((warps, nsub, 4), np.int16)
    for w, s in enumerate(subs):
        for i, t in enumerate(s):
            warp_sub[w, i] = (t["row0"], t["col0"], t["rows"], t["cols"])
    v = r.vector
    la, lb = ladder.loader_a(r), ladder.loader_b(r)
    m, kk = np.meshgrid(np.arange(r.BM), np.arange(r.BK), indexing="ij")
    k2, n2 = np.meshgrid(np.arange(r.BK), np.arange(r.BN), indexing="ij")
    sa, sb = ladder.read_slot_a(r, m, kk), ladder.read_slot_b(r, k2, n2)
    arrays = {
        "owner": _i16(own),
        "thr_warp": _i16(warp),
        "thr_lane": _i16(lane),
        "thr_stripe": (warp % 2).astype(np.uint8),  # OTHER_EVEN / OTHER_ODD
        "thr_rows": _i16(np.stack([rows for rows, _ in reads])),
        "thr_cols": _i16(np.stack([cols for _, cols in reads])),
        "warp_rows": warp_rows,
        "warp_cols": warp_cols,
        "warp_box": _i16([[b["row0"], b["row1"], b["col0"], b["col1"]] for b in boxes]),
        "warp_sub": warp_sub,
        "a_stripe": (kk % 2).astype(np.uint8),
        "b_stripe": (k2 % 2).astype(np.uint8),
        "loader_a": _i16(la),
        "loader_b": _i16(lb),
        "a_group": ((m * (r.BK // v) + kk // v) % 2).astype(np.uint8),  # one load instruction per group
        "b_group": ((k2 * (r.BN // v) + n2 // v) % 2).astype(np.uint8),
        "a_slot": _i16(sa),
        "a_bank": (sa % 32).astype(np.uint8),
        "b_slot": _i16(sb),
        "b_bank": (sb % 32).astype(np.uint8),
        **_copies_arrays(r),
    }
    tm, tn = r.thread_tile
    reg = _registers(r)
    op = "LDG.128 (float4)" if v == 4 else "LDG.32"
    per = arrays["cp_a"].shape[1], arrays["cp_b"].shape[1]
    note = (_("each float4 of A is one 16-byte load along k, written to 4 rows of the transposed As "
              "(4 scalar stores)") if r.transposed else _("one element per load instruction"))
    other = _("other float4s (striped)") if v == 4 else _("other elements (striped)")
    meta = {
        "view": "ladder", "rung": r.name, "file": r.file, "label": rung_label(r),
        "labels": {x.name: rung_label(x) for x in RUNGS},
        "BM": r.BM, "BN": r.BN, "BK": r.BK, "threads": threads, "warps": warps, "k_max": r.BK - 1,
        "thread_tile": [tm, tn], "vector": v, "transposed": r.transposed,
        "palette": PALETTE,
        "colours": {"OTHER_EVEN": OTHER_EVEN, "OTHER_ODD": OTHER_ODD, "WARP": WARP_C, "THREAD": THREAD_C, "NOW": NOW_C},
        "modes": [[key, _(label)] for key, label in MODES.items()],
        "title": _("{label}: block tile {BM}×{BN}, As {BM}×{BK}, Bs {BK}×{BN}", label=rung_label(r), BM=r.BM,
                   BN=r.BN, BK=r.BK),
        "axis_a": f"As: k (BK = {r.BK})",
        "axis_m": _("m: row of the block tile (BM = {BM})", BM=r.BM),
        "axis_b": "Bs: k",
        "axis_n": _("n: column of the block tile (BN = {BN})", BN=r.BN),
        "as_name": _as_index(r, "k"),
        "bs_name": f"Bs[k·{r.BN} + n]",
        "info_rung": _info_rung(r),
        "thr_ranges": [[ranges(rows), ranges(cols)] for rows, cols in reads],
        "warp_text": [_warp_text(r, w) for w in range(warps)],
        "registers": reg["text"], "registers_table": reg["table"],
        "copies_head": _("<b>Copies of thread {tid} per phase</b> ({na} + {nb} {op}; {note}):", na=per[0], nb=per[1],
                         op=op, note=note),
        "legend": {
            "reads": [[NOW_C, _("thread {tid}: its outputs; its As / Bs reads at step k")],
                      [THREAD_C, _("its reads at the other k")],
                      [WARP_C, _("its warp (outputs; reads at step k)")], [OTHER_EVEN, _("other warps / k (striped)")]],
            "copies": [[NOW_C, _("thread {tid}: its outputs; the elements it copies")],
                       [WARP_C, _("its warp's outputs and copies")], [OTHER_EVEN, other]],
        },
        "legend_tail": " " + _("Blue frame: the warp's region (dotted: warp sub-tiles). Click a cell of the C tile to "
                               "pick its thread."),
        "thread_whole": _("thread must be a whole number"),
        "thread_range": _("thread must be 0..{last} for kernel {file} ({threads} threads per block)", last=threads - 1,
                          file=r.file, threads=threads),
        "warp_size": WARP,
    }
    return meta, arrays


def ladder_payload(r: Rung, thread: int = 0, k: int = 0, mode: str = "reads") -> tuple[dict, bytes]:
    """:func:`ladder_data` packed for the browser, starting at ``thread``, step ``k``, ``mode``."""
    meta, arrays = ladder_data(r)
    meta["arrays"], buf = pack(arrays)
    meta["start"] = {"thread": int(thread), "k": int(k), "mode": mode}
    return meta, buf


def painted(arrays: dict, tid: int, k: int, mode: str) -> dict[str, np.ndarray]:
    """The colour codes ``ladder.js`` paints for thread ``tid`` at step ``k`` in ``mode``, by
    the same look-ups in ``arrays`` (the tests compare them with ``ladder_view``'s pictures)."""
    a = arrays
    w = a["thr_warp"][tid]

    def by_owner(who, base):
        return np.where(who == tid, NOW_C, np.where(a["thr_warp"][who] == w, WARP_C, base))

    out = {"C": by_owner(a["owner"], a["thr_stripe"][a["owner"]])}
    if mode == "reads":
        za, zb = a["a_stripe"].astype(int), a["b_stripe"].astype(int)
        za[a["warp_rows"][w] == 1, k] = WARP_C
        zb[k, a["warp_cols"][w] == 1] = WARP_C
        za[a["thr_rows"][tid], :] = THREAD_C
        zb[:, a["thr_cols"][tid]] = THREAD_C
        za[a["thr_rows"][tid], k] = NOW_C
        zb[k, a["thr_cols"][tid]] = NOW_C
    else:
        za, zb = by_owner(a["loader_a"], a["a_group"]), by_owner(a["loader_b"], a["b_group"])
    out["A"], out["B"] = za, zb
    return out


class LadderView(BrowserView):
    """Page 08's mapping view's front end (``common.js`` + ``ladder.js``); :class:`LadderExplorer`
    fills it."""

    NAME = "ladder"
    FRONT_END = ("common.js", "ladder.js")
    _esm = resources.front_end(*FRONT_END)


class LadderExplorer:
    """One rung of the ladder, one thread: its outputs in the block tile, its reads of As / Bs
    (or everyone's global -> shared copies), its warp (tile), its registers.

    ``LadderExplorer(rung="warptile", thread=0)``; display ``.widget``. Picking a thread, a
    step k or a mode happens in the browser (``views/ladder.js``); this object answers another
    rung. ``r`` / ``tid`` / ``k`` / ``mode`` are the last ones set from Python (the browser does
    not report its picks back)."""

    def __init__(self, rung: str = "blocktile_1d", thread: int = 0, k: int = 0, mode: str = "reads"):
        r = ladder.rung(rung)
        tid, kk, md = self._check(r, thread, k, mode)
        self.view = LadderView(kernels=list(NAMES))
        self.view.on_msg(self._on_msg)
        self.view.static_store = self.static_store
        self._show(r, tid, kk, md)

    @property
    def widget(self) -> LadderView:
        return self.view

    def data(self):
        """``(meta, arrays)`` the browser was sent last (for tests)."""
        return self.view.meta, unpack(self.view.meta["arrays"], self.view.buf)

    @staticmethod
    def _check(r: Rung, thread, k, mode) -> tuple[int, int, str]:
        tid = check_thread(r, thread)
        try:
            kk = int(k)
        except (TypeError, ValueError):
            raise ValueError(_("step k must be a whole number, got {value}", value=repr(k))) from None
        if not 0 <= kk < r.BK:
            raise ValueError(_("step k must be 0..{last} (BK = {BK}), got {value}", last=r.BK - 1, BK=r.BK, value=kk))
        if mode not in MODES:
            raise ValueError(_("mode must be one of {modes}, got {value}", modes=', '.join(MODES), value=repr(mode)))
        return tid, kk, mode

    def _show(self, r: Rung, tid: int, k: int, mode: str) -> None:
        meta, buf = ladder_payload(r, tid, k, mode)
        self.r, self.tid, self.k, self.mode = r, tid, k, mode
        self.view.show(meta, buf)

    def select(self, rung: str | None = None, thread: int | None = None, k: int | None = None,
               mode: str | None = None) -> bool:
        """Show ``rung`` / ``thread`` / step ``k`` / ``mode``; on bad input show one line, keep
        the last good state and return False. A new rung keeps the thread (and k) when it exists
        there (else 0). Only a new rung sends a new payload; the rest is one small message."""
        try:
            r = ladder.rung(rung) if rung is not None else self.r
            if thread is None:
                thread = self.tid if self.tid < r.threads else 0
            if k is None:
                k = self.k if self.k < r.BK else 0
            tid, kk, md = self._check(r, thread, k, self.mode if mode is None else mode)
        except ValueError as e:
            self.view.fail(e)
            return False
        if r is not self.r:
            self._show(r, tid, kk, md)
            return True
        self.tid, self.k, self.mode = tid, kk, md
        self.view.error = ""
        self.view.send({"select": {"thread": tid, "k": kk, "mode": md}})
        return True

    # ---- what the browser asks for ------------------------------------------------------
    def _on_msg(self, widget, content, buffers):
        if not isinstance(content, dict) or content.get("cmd") != "kernel":
            return
        try:
            r = ladder.rung(str(content.get("name")))
            mode = content.get("mode")
            try:  # the browser's thread and step k where they exist in the new rung, else 0
                tid = check_thread(r, content.get("thread", 0))
            except ValueError:
                tid = 0
            try:
                k = int(content.get("k", 0))
            except (TypeError, ValueError):
                k = 0
            self._show(r, *self._check(r, tid, k if 0 <= k < r.BK else 0, mode if mode in MODES else self.mode))
        except ValueError as e:
            self.view.fail(e)

    def static_store(self, budget: int = STATIC_BUDGET) -> dict:
        """What an exported page embeds: every rung's payload (the page's own first), within
        ``budget`` bytes; a static page's rung buttons are answered from it."""
        def payload(name):
            r = ladder.rung(name)
            if r is self.r:
                return ladder_payload(r, self.tid, self.k, self.mode)
            return ladder_payload(r, self.tid if self.tid < r.threads else 0, self.k if self.k < r.BK else 0, self.mode)

        return keyed_store(payload, NAMES, self.r.name, budget, _(OFFLINE_NOTE))


def ladder_explorer(**kw):
    return LadderExplorer(**kw).widget
