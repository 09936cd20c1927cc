"""The warps and coalescing explorer (page 05): a block's threads -> their warps and lanes, and
the 32-byte sectors each global access of ``naive`` / ``naive_col`` / ``tiled`` costs a warp.

:func:`warps_data` computes, from :mod:`explainer.model` and :mod:`explainer.model.memory`, what
``warps.js`` draws for one block size, block and loop step: the warp, lane and linear id of
every thread, and for *every* warp of the block the request table (active lanes, distinct
addresses, sectors, the ideal) and the lanes / sectors line. Pinning a thread (a click on the
warp map or typing threadIdx) is a lookup in the browser; Python is asked only for another
block size, block or loop step.

Arrays (``w`` = a warp of the block, ``j`` = a row of the request table, ``meta["rows"]``):
``warp_of`` / ``lane_of`` / ``lin_of`` ``[ty, tx]``; ``active`` / ``distinct`` / ``sectors`` /
``ideal`` / ``times`` ``[w, j]`` (``times``: sectors / ideal rounded, 0 when coalesced).
"""

from __future__ import annotations

import html

import numpy as np

from ..model import memory
from .. import resources
from ..i18n import N_, _
from ..model import WARP_SIZE, Launch, LaunchError, count_label, phase_label
from .common import whole
from .payload import pack, unpack
from .store import STATIC_BUDGET, BrowserView
from .store import static_store as _static_store

KERNELS = ("naive", "naive_col", "tiled")
TILES = (4, 8, 16, 32)
#: The two accesses whose lanes the view spells out: the uncoalesced one and a coalesced one.
SPELLED = (("naive_col", 0), ("tiled", 1))
STATIC_CAP = 1 << 19
#: The accesses' names (explainer.model.memory.ACCESSES), shown in the lanes line with _().
ACCESS_LABELS = (N_("A load"), N_("B load"), N_("C store"), N_("A tile load"), N_("B tile load"))
#: Warp stripes: two greys for the other warps, blue for the pinned thread's, orange for it.
PALETTE = ["#f3f4f6", "#e5e7eb", "#93c5fd", "#f97316"]
OTHER_EVEN, OTHER_ODD, SAME_WARP, PINNED = range(4)


def warps_data(M: int, N: int, K: int, T: int, block=(0, 0), k: int = 0) -> tuple[dict, dict[str, np.ndarray]]:
    """``(meta, arrays)`` for one block size, block and loop step (see the module doc)."""
    launches = {name: Launch(name, M, N, K, T) for name in KERNELS}
    tL = launches["tiled"]
    tL.check_block(*block)
    if not 0 <= k < tL.phases:
        raise LaunchError(_("phase t must be 0..{last} for the tiled kernel, got {k}", last=tL.phases - 1, k=k))
    bx, by = (int(v) for v in block)
    ty, tx = np.meshgrid(np.arange(T), np.arange(T), indexing="ij")
    warp, lane = tL.warp_lane(tx, ty)
    n_warps = memory.warps_per_block(T)
    rows, spelled = [], []
    stats = np.zeros((4, n_warps, sum(len(memory.ACCESSES[n]) for n in KERNELS)), np.int32)
    for w in range(n_warps):
        reqs = {name: memory.warp_requests(L, (bx, by), w, t=k, k=k) for name, L in launches.items()}
        j = 0
        for name in KERNELS:
            for r in reqs[name]:
                if w == 0:
                    rows.append([name, r.access, r.code])
                stats[:, w, j] = (r.active, r.distinct_addresses, r.sectors, r.ideal)
                j += 1
        parts = []
        for name, i in SPELLED:
            r = reqs[name][i]
            lanes = ", ".join(f"{x['lane']}:{r.matrix}[{x['element'][0]}][{x['element'][1]}]"
                              for x in r.lanes[:8] if x["element"])
            ids = r.sector_ids
            parts.append(_("<b>{kernel} {access}</b>: lanes {lanes} … → sectors {sectors} (byte address // 32)",
                           kernel=r.kernel, access=html.escape(_(r.access)), lanes=lanes,
                           sectors=f"{ids[:6]}{' …' if len(ids) > 6 else ''}"))
        spelled.append("<br>".join(parts))
    active, distinct, sectors, ideal = stats
    times = np.where(sectors <= ideal, 0, np.round(sectors / np.maximum(ideal, 1))).astype(np.int32)
    rows_per_warp = memory.warp_rows(T)
    arrays = {
        "warp_of": warp.astype(np.int16), "lane_of": lane.astype(np.int16),
        "lin_of": tL.linear_thread(tx, ty).astype(np.int16),
        "active": active, "distinct": distinct, "sectors": sectors, "ideal": ideal, "times": times,
    }
    meta = {
        "view": "warps", "kernel": "tiled", "M": M, "N": N, "K": K, "T": T, "block": [bx, by], "k": k,
        "tiles": list(TILES), "grid": list(tL.grid), "rows": rows, "spelled": spelled, "warps": n_warps,
        "palette": PALETTE, "colours": {"OTHER_EVEN": OTHER_EVEN, "OTHER_ODD": OTHER_ODD, "SAME_WARP": SAME_WARP,
                                        "PINNED": PINNED},
        "block_text": (_("A {T}×{T} block has {threads} threads = {warps} warp(s); each warp covers {rows} row(s) "
                         "of the block.", T=T, threads=T * T, warps=n_warps, rows=rows_per_warp)
                       if T * T >= WARP_SIZE else
                       _("A {T}×{T} block has {threads} threads = {warps} warp(s); its one warp is only {threads} of "
                         "32 lanes full.", T=T, threads=T * T, warps=n_warps)),
        "caption": _("M={M}, N={N}, K={K}, loop step {step} (naive) / {phase} (tiled). Ideal = ceil(distinct bytes "
                     "/ 32). Computed from explainer.model.", M=M, N=N, K=K, step=count_label('k', k, K),
                     phase=phase_label(k, tL.phases)),
        "thread_range": _("threadIdx.x and threadIdx.y must be 0..{last}", last=T - 1),
        "k_max": int(tL.phases - 1),
    }
    return meta, arrays


def warps_payload(M, N, K, T, block=(0, 0), k=0, thread=(0, 0)) -> tuple[dict, bytes]:
    """:func:`warps_data` packed for the browser, starting with ``thread`` pinned."""
    meta, arrays = warps_data(M, N, K, T, block, k)
    Launch("tiled", M, N, K, T).check_thread(*thread)
    meta["arrays"], buf = pack(arrays)
    meta["start"] = {"thread": [int(thread[0]), int(thread[1])]}
    return meta, buf


class WarpsView(BrowserView):
    """The warps explorer's front end (``common.js`` + ``warps.js``); :class:`WarpExplorer` fills it."""

    NAME = "warps"
    FRONT_END = ("common.js", "warps.js")
    _esm = resources.front_end(*FRONT_END)


class WarpExplorer:
    """Block shape + pinned thread -> its warp and lane, the warp map, and the sectors every
    global access of naive / naive_col / tiled costs for that warp. Display ``.widget``.

    ``block`` / ``thread`` / ``k`` / ``T`` are the last ones set from Python; pinning a thread
    happens in the browser."""

    def __init__(self, M=1024, N=1024, K=1024, tile=16, block=(2, 1), thread=(4, 3), k=0):
        self.M, self.N, self.K = M, N, K
        self.view = WarpsView()
        self.view.on_msg(self._on_msg)
        self.view.static_store = self.static_store
        self._set(tile, tuple(block), tuple(thread), k)

    @property
    def widget(self) -> WarpsView:
        return self.view

    def data(self):
        """``(meta, arrays)`` the browser was sent last (for tests)."""
        return self.view.meta, unpack(self.view.meta["arrays"], self.view.buf)

    @property
    def requests(self) -> dict:
        """The pinned thread's warp's requests, per kernel (:func:`explainer.model.memory.warp_requests`)."""
        L = Launch("tiled", self.M, self.N, self.K, self.T)
        warp = int(L.warp_lane(*self.thread)[0])
        return {name: memory.warp_requests(Launch(name, self.M, self.N, self.K, self.T), self.block, warp, t=self.k, k=self.k)
                for name in KERNELS}

    def _set(self, T, block, thread, k):
        meta, buf = warps_payload(self.M, self.N, self.K, T, block, k, thread)
        self.T, self.block, self.thread, self.k = T, (int(block[0]), int(block[1])), (int(thread[0]), int(thread[1])), k
        self.view.show(meta, buf)

    def select(self, T=None, block=None, thread=None, k=None):
        """Show block size ``T``, ``block``, loop step ``k`` with ``thread`` pinned (unchanged
        where None); on bad input one line in the view, the last good state stays."""
        try:
            T = self.T if T is None else whole(_("block T×T"), T)
            if T not in TILES:
                raise LaunchError(_("block T×T must be one of {tiles}, got {T}", tiles=", ".join(map(str, TILES)), T=T))
            thread = self.thread if thread is None else tuple(whole(f"threadIdx.{a}", v) for a, v in zip("xy", thread))
            if T != self.T and thread == self.thread:
                thread = (min(thread[0], T - 1), min(thread[1], T - 1))
            block = self.block if block is None else tuple(whole(f"blockIdx.{a}", v) for a, v in zip("xy", block))
            k = self.k if k is None else whole(_("k / phase t"), k)
            if (T, block, k) == (self.T, self.block, self.k):
                Launch("tiled", self.M, self.N, self.K, T).check_thread(*thread)
                self.thread = thread
                self.view.send({"pin": list(thread)})
            else:
                self._set(T, block, thread, k)
            return True
        except (LaunchError, ValueError, TypeError) as e:
            self.view.fail(e)
            return False

    def _on_msg(self, widget, content, buffers):
        if not isinstance(content, dict):
            return
        thread = content.get("thread")
        cmd = content.get("cmd")
        if cmd == "launch":
            self.select(T=content.get("T"), thread=thread)
        elif cmd == "block":
            self.select(block=content.get("block"), thread=thread)
        elif cmd == "step":
            self.select(k=content.get("k"), thread=thread)

    def static_store(self, budget: int = STATIC_BUDGET) -> dict:
        """What an exported page embeds: the page's block at every block size, then the blocks
        nearest to it, within ``budget`` bytes (at most :data:`STATIC_CAP`). Other loop steps
        need the live app."""
        def payload(kernel, L, block, thread):
            return warps_payload(L.M, L.N, L.K, L.T, block, self.k, thread)

        launches = [(None, Launch("tiled", self.M, self.N, self.K, T), self.block,
                     self.thread if T == self.T else (min(self.thread[0], T - 1), min(self.thread[1], T - 1)))
                    for T in (self.T,) + tuple(t for t in TILES if t != self.T)]
        return _static_store(payload, ("tiled",), launches,
                             ("tiled", Launch("tiled", self.M, self.N, self.K, self.T), self.block, self.thread),
                             min(budget, STATIC_CAP))
