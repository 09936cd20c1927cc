"""The fragment explorer (page 09): one warp of kernel 15 (tensor cores, mma.sync m16n8k8 TF32)
stepped k-step by k-step, every element of its A slab, B slab and C warp tile coloured by the lane
whose register holds it.

:func:`mma_data` computes, from :mod:`explainer.model.mma` (the PTX ISA's fragment tables and
kernel 15's predicted trace), what ``mma.js`` draws for one warp of block (0, 0): for every cell
the lane and register that hold it and, per k-step, the global (row, column) of A and B it is;
for the C warp tile the owning lane, register and m16n8 tile. Stepping, pinning a lane and
clicking an element are lookups in the browser; nothing is asked of Python.

Arrays (``s`` a k-step, ``r`` / ``c`` a row / column of the warp tile, ``k`` 0..7 inside a step):
``lane_a`` / ``reg_a`` ``[r, k]``, ``lane_b`` / ``reg_b`` ``[k, c]``, ``lane_c`` / ``reg_c`` /
``mi_c`` / ``ni_c`` ``[r, c]``; ``a_row`` / ``a_col`` ``[s, r, k]`` and ``b_row`` / ``b_col``
``[s, k, c]`` (global, -1 for a padding zero); ``c_row`` / ``c_col`` ``[r, c]``; ``g`` / ``t``
``[lane]`` (groupID, threadID_in_group).
"""

from __future__ import annotations

import colorsys

import numpy as np

from .. import resources
from ..i18n import _, N_
from ..model import count_label, mma, phase_label
from .payload import pack, unpack
from .store import STATIC_BUDGET, BrowserView, keyed_store

#: The launch the page shows: one block tile of C, K long enough for a few k-steps.
M = N = 64
K = 32
DIM = 32  # palette index of a cell whose lane is not the pinned one


def lane_palette() -> list[str]:
    """32 distinct hues (lane 0..31), then the dimmed grey."""
    out = []
    for lane in range(mma.WARP):
        h = (lane * 0.381966) % 1.0  # golden-ratio steps: neighbouring lanes far apart in hue
        r, g, b = colorsys.hls_to_rgb(h, 0.62 if lane % 2 else 0.72, 0.75)
        out.append("#%02x%02x%02x" % (int(r * 255), int(g * 255), int(b * 255)))
    return out + ["#eef0f3"]


def mma_data(warp: int = 0, kern: mma.MmaKernel = mma.KERNEL) -> tuple[dict, dict[str, np.ndarray]]:
    """``(meta, arrays)`` for warp ``warp`` of block (0, 0) of kernel 15 on M = N = 64, K = 32."""
    if not isinstance(warp, (int, np.integer)) or isinstance(warp, bool) or not 0 <= warp < kern.warps:
        raise ValueError(_("warp must be 0..{last}, got {value}", last=kern.warps - 1, value=repr(warp)))
    tr = mma.predict_trace(M, N, K, kern)
    P, S = kern.phases(K), kern.ksteps
    fa, fb, fc = mma.fragment("a"), mma.fragment("b"), mma.fragment("c")
    WM, WN, MI, NI = kern.WM, kern.WN, kern.miter, kern.niter
    lane_a = np.zeros((WM, mma.MMA_K), np.int8)
    reg_a = np.zeros_like(lane_a)
    name_a = np.zeros((WM, mma.MMA_K), np.int16)  # index into meta["reg_names"]["a"]
    a_src = np.zeros((P * S, WM, mma.MMA_K), np.int64)
    for mi in range(MI):
        for lane in range(mma.WARP):
            for i, (r, k) in enumerate(fa[lane]):
                lane_a[mi * 16 + r, k], reg_a[mi * 16 + r, k] = lane, i
                name_a[mi * 16 + r, k] = mma.register_index("a", i, mi=mi, kern=kern)
                a_src[:, mi * 16 + r, k] = tr.a[0, 0, :, :, warp, mi, lane, i].reshape(P * S)
    lane_b = np.zeros((mma.MMA_K, WN), np.int8)
    reg_b = np.zeros_like(lane_b)
    name_b = np.zeros((mma.MMA_K, WN), np.int16)
    b_src = np.zeros((P * S, mma.MMA_K, WN), np.int64)
    for ni in range(NI):
        for lane in range(mma.WARP):
            for i, (k, c) in enumerate(fb[lane]):
                lane_b[k, ni * 8 + c], reg_b[k, ni * 8 + c] = lane, i
                name_b[k, ni * 8 + c] = mma.register_index("b", i, ni=ni, kern=kern)
                b_src[:, k, ni * 8 + c] = tr.b[0, 0, :, :, warp, ni, lane, i].reshape(P * S)
    lane_c = np.zeros((WM, WN), np.int8)
    reg_c, mi_c, ni_c = (np.zeros_like(lane_c) for _ in range(3))
    name_c = np.zeros((WM, WN), np.int16)
    c_dst = np.zeros((WM, WN), np.int64)
    for mi in range(MI):
        for ni in range(NI):
            for lane in range(mma.WARP):
                for i, (r, c) in enumerate(fc[lane]):
                    rr, cc = mi * 16 + r, ni * 8 + c
                    lane_c[rr, cc], reg_c[rr, cc], mi_c[rr, cc], ni_c[rr, cc] = lane, i, mi, ni
                    name_c[rr, cc] = mma.register_index("c", i, mi=mi, ni=ni, kern=kern)
                    c_dst[rr, cc] = tr.c[0, 0, warp, mi, ni, lane, i]
    row0, col0 = kern.warp_origin(warp)

    def split(src, cols):
        return (np.where(src >= 0, src // cols, -1).astype(np.int32),
                np.where(src >= 0, src % cols, -1).astype(np.int32))

    a_row, a_col = split(a_src, K)
    b_row, b_col = split(b_src, N)
    c_row, c_col = split(c_dst, N)
    lanes = np.arange(mma.WARP)
    arrays = {
        "lane_a": lane_a, "reg_a": reg_a, "lane_b": lane_b, "reg_b": reg_b,
        "lane_c": lane_c, "reg_c": reg_c, "mi_c": mi_c, "ni_c": ni_c,
        "name_a": name_a, "name_b": name_b, "name_c": name_c,
        "a_row": a_row, "a_col": a_col, "b_row": b_row, "b_col": b_col, "c_row": c_row, "c_col": c_col,
        "g": (lanes // 4).astype(np.int8), "t": (lanes % 4).astype(np.int8),
    }
    steps = []
    for p in range(P):
        for s in range(S):
            k0 = p * kern.BK + s * mma.MMA_K
            steps.append(_(
                "{count}: {phase} (As / Bs hold K columns {c0}..{c1}), k-step {s} inside it: K = {k0}..{k1}. "
                "The warp issues {n} mma.sync ({mi} m16 tiles × {ni} n8 tiles), each adding a 16 × 8 piece of "
                "A[{r0}..{r1}][{k0}..{k7}] times an 8 × 8 piece of B[{k0}..{k7}][{col0}..{col1}] to 16 × 8 of C.",
                count=count_label('k-step', p * S + s, P * S), phase=phase_label(p, P), c0=p * kern.BK,
                c1=p * kern.BK + kern.BK - 1, s=s, k0=k0, k1=k0 + mma.MMA_K - 1, n=MI * NI, mi=MI, ni=NI,
                r0=row0, r1=row0 + WM - 1, k7=k0 + 7, col0=col0, col1=col0 + WN - 1))
    meta = {
        "view": "mma", "kernel": kern.name, "warp": warp, "warps": kern.warps,
        "launch": {"M": M, "N": N, "K": K}, "origin": [row0, col0],
        "rows": WM, "cols": WN, "kk": mma.MMA_K, "mi": MI, "ni": NI, "steps": steps,
        "palette": lane_palette(), "dim": DIM,
        "reg_names": {w: mma.register_names(w, kern) for w in ("a", "b", "c")},
        "caption": _("Kernel 15, block (0, 0), warp {warp} (its {WM} × {WN} warp tile of C starts at row {row0}, "
                     "column {col0}); M = N = {M}, K = {K}. Colours: the lane whose register holds the element "
                     "(PTX ISA fragment tables; explainer.model.mma, proved equal to the kernel's own trace on the "
                     "GPU). Registers are named as in kernels/{file}: a[mi][i] holds A's register i of m16 tile mi, "
                     "b[ni][i] B's of n8 tile ni, acc[mi][ni][i] C's of m16n8 tile (mi, ni); i is the PTX register "
                     "number (a0..a3, b0, b1, c0..c3 of the fragment table).", warp=warp, WM=WM, WN=WN, row0=row0,
                     col0=col0, M=M, K=K, file=kern.file),
    }
    return meta, arrays


def mma_payload(warp: int = 0, lane: int = 0, step: int = 0) -> tuple[dict, bytes]:
    meta, arrays = mma_data(warp)
    lane, step = _check_lane_step(lane, step, len(meta["steps"]))
    meta["arrays"], buf = pack(arrays)
    meta["start"] = {"lane": lane, "step": step}
    return meta, buf


def _check_lane_step(lane, step, n_steps) -> tuple[int, int]:
    for name, v, hi in ((N_("lane"), lane, mma.WARP - 1), (N_("k-step"), step, n_steps - 1)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not 0 <= v <= hi:
            raise ValueError(_("{name} must be a whole number 0..{hi}, got {value}", name=_(name), hi=hi, value=repr(v)))
    return int(lane), int(step)


class MmaView(BrowserView):
    """Page 09's fragment explorer's front end (``common.js`` + ``mma.js``)."""

    NAME = "mma"
    FRONT_END = ("common.js", "mma.js")
    _esm = resources.front_end(*FRONT_END)


class MmaExplorer:
    """One warp of kernel 15, stepped k-step by k-step, lanes coloured; ``.widget`` displays it.
    Stepping and pinning a lane happen in the browser; :meth:`select` sets them from Python."""

    def __init__(self, warp: int = 0, lane: int = 0, step: int = 0):
        self.view = MmaView()
        self.view.on_msg(self._on_msg)
        self.view.static_store = self.static_store
        meta, buf = mma_payload(warp, lane, step)
        self.warp, self.lane, self.step = warp, meta["start"]["lane"], meta["start"]["step"]
        self.view.show(meta, buf)

    @property
    def widget(self) -> MmaView:
        return self.view

    def data(self):
        """``(meta, arrays)`` the browser was sent last (for tests)."""
        return self.view.meta, unpack(self.view.meta["arrays"], self.view.buf)

    def select(self, warp: int | None = None, lane: int | None = None, step: int | None = None) -> bool:
        """Show ``warp`` / pin ``lane`` / go to k-step ``step``; bad input: one line in the view,
        the last good state stays, False."""
        try:
            w = self.warp if warp is None else warp
            if w != self.warp:
                meta, buf = mma_payload(w, self.lane if lane is None else lane, self.step if step is None else step)
                self.warp, self.lane, self.step = w, meta["start"]["lane"], meta["start"]["step"]
                self.view.show(meta, buf)
                return True
            lane, step = _check_lane_step(self.lane if lane is None else lane, self.step if step is None else step,
                                          len(self.view.meta["steps"]))
        except ValueError as e:
            self.view.fail(e)
            return False
        self.lane, self.step = lane, step
        self.view.error = ""
        self.view.send({"select": {"lane": lane, "step": step}})
        return True

    def _on_msg(self, widget, content, buffers):
        if isinstance(content, dict) and content.get("cmd") == "kernel":  # another warp
            try:
                self.select(warp=int(str(content.get("name")).rsplit(" ", 1)[-1]), lane=content.get("lane", 0),
                            step=content.get("step", 0))
            except ValueError as e:
                self.view.fail(e)

    def static_store(self, budget: int = STATIC_BUDGET) -> dict:
        """What an exported page embeds: every warp's payload (this one first)."""
        names = [f"warp {w}" for w in range(mma.KERNEL.warps)]
        return keyed_store(lambda key: mma_payload(int(key.split()[-1]), self.lane, 0), names,
                           f"warp {self.warp}", budget)


def mma_explorer(**kw):
    return MmaExplorer(**kw).widget
