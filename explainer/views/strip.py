"""V1 against V2 stepped side by side (page 02): one launch, one block, the two kernels' shared
memory after every step of their common loop.

:func:`strip_view_data` takes the steps from :func:`explainer.model.strip_steps.side_by_side` and
sends, per kernel, what ``strip.js`` draws: V1's two strips once, each cell with the step that
fills it (``at``: a cell is drawn filled from that step on), V2's window of each phase, and per
step the kernel's line of text and its counts. Stepping is a lookup in the browser; Python is
asked only for another launch or block (``{cmd: "kernel", name: "M,N,K,T,bx,by"}``; a static
page's keyed store holds the presets' blocks).
"""

from __future__ import annotations

import numpy as np

from .. import resources
from ..i18n import N_, _
from ..model import LaunchError
from ..model import strip_steps as ss
from ..model.launch import PAD, Launch
from .store import STATIC_BUDGET, BrowserView, keyed_store

#: The launches the page offers (M, N, K, T): K a few windows long, one shape with ragged edges.
PRESETS = ((8, 8, 16, 4), (5, 7, 19, 4), (16, 16, 48, 8), (32, 32, 64, 16))
OPENING = PRESETS[0]
#: Cell colours: empty (allocated, not written yet), padding zero, an element of A, of B.
PALETTE = {"empty": "#ffffff", "pad": "#e5e7eb", "a": "#93c5fd", "b": "#fdba74"}
STATE_TEXT = (N_("allocated, not written yet"), N_("padding zero"), N_("element of A"), N_("element of B"),
              N_("written in this step"))


def key_of(M, N, K, T, bx=0, by=0) -> str:
    return f"{M},{N},{K},{T},{bx},{by}"


def parse_key(key: str) -> tuple[int, ...]:
    try:
        vals = tuple(int(v) for v in str(key).split(","))
    except ValueError:
        vals = ()
    if len(vals) != 6:
        raise LaunchError(_("a launch is M,N,K,T,bx,by; got {key}", key=repr(key)))
    return vals


def _labels(ids: np.ndarray, cols: int, name: str) -> dict[str, str]:
    return {str(int(i)): f"{name}[{int(i) // cols}][{int(i) % cols}]" for i in np.unique(ids) if i >= 0}


def strip_view_data(M: int, N: int, K: int, T: int, block=(0, 0)) -> dict:
    """What ``strip.js`` draws for block ``(bx, by)`` of the launch (see the module doc)."""
    d = ss.side_by_side(M, N, K, T, block)
    P = d["phases"]
    src = ss.strip_sources(M, N, K, T, block)
    steps = d["steps"]
    gx, gy = Launch("tiled", M, N, K, T).grid
    windows_a = np.stack([s["v2"]["as"] for s in steps[1:1 + P]])
    windows_b = np.stack([s["v2"]["bs"] for s in steps[1:1 + P]])
    phase_of_step = [-1] + list(range(P)) + [P - 1, P - 1]
    bx, by = d["block"]

    def v1_text(s):
        if s["kind"] == "index":
            return _("allocates {bytes} bytes of shared memory: a {T}×{K} strip of A and a {K}×{T} strip of B",
                     bytes=f"{d['v1_bytes']:,}", T=T, K=K)
        if s["kind"] == "loop":
            lo, hi = s["t"] * T, min(K, (s["t"] + 1) * T) - 1
            return _("copies columns {lo}..{hi} of its A strip and rows {lo}..{hi} of its B strip, and keeps them; "
                     "no barrier yet", lo=lo, hi=hi)
        if s["kind"] == "compute":
            return _("one __syncthreads(), then each thread takes its whole dot product: {K} multiply-adds from "
                     "shared memory", K=K)
        return _("each thread inside C stores its element")

    def v2_text(s):
        if s["kind"] == "index":
            return _("allocates {bytes} bytes of shared memory: a {T}×{T} window of A and one of B",
                     bytes=f"{d['v2_bytes']:,}", T=T)
        if s["kind"] == "loop":
            return _("phase t = {t}: copies window {t} over the last one, __syncthreads(), {T} multiply-adds, "
                     "__syncthreads()", t=s["t"], T=T)
        if s["kind"] == "compute":
            return _("has finished: its last phase did the last multiply-adds")
        return _("each thread inside C stores its element")

    def title(s):
        if s["kind"] == "index":
            return _("block (x={bx}, y={by}) · each thread finds its row and column", bx=bx, by=by)
        if s["kind"] == "loop":
            return _("block (x={bx}, y={by}) · loop iteration t = {t} of 0..{last}: the same elements of A and B "
                     "reach shared memory in both kernels", bx=bx, by=by, t=s["t"], last=P - 1)
        if s["kind"] == "compute":
            return _("block (x={bx}, y={by}) · V1 computes; V2 is already done", bx=bx, by=by)
        return _("block (x={bx}, y={by}) · the store", bx=bx, by=by)

    return {
        "view": "strip", "key": key_of(M, N, K, T, bx, by), "launch": [M, N, K, T], "block": [bx, by],
        "grid": [gx, gy], "phases": P, "pad": PAD,
        "presets": [[key_of(*p), f"M={p[0]} N={p[1]} K={p[2]} T={p[3]}"] for p in PRESETS],
        "palette": PALETTE, "states": [_(t) for t in STATE_TEXT],
        "v1": {"a": src["a"].tolist(), "b": src["b"].tolist(),
               "a_at": (1 + src["t_a"]).tolist(), "b_at": (1 + src["t_b"]).tolist(), "bytes": d["v1_bytes"]},
        "v2": {"a": windows_a.tolist(), "b": windows_b.tolist(), "bytes": d["v2_bytes"],
               "phase_of_step": phase_of_step},
        "labels_a": _labels(src["a"], K, "A"), "labels_b": _labels(src["b"], N, "B"),
        "steps": [{"kind": s["kind"], "title": title(s), "v1_text": v1_text(s), "v2_text": v2_text(s),
                   "loads": s["loads"], "v1_barriers": s["v1"]["barriers"], "v2_barriers": s["v2"]["barriers"],
                   "v1_fma": s["v1"]["fma"], "v2_fma": s["v2"]["fma"],
                   "v1_filled": s["v1"]["filled_bytes"]} for s in steps],
        "names": {"v1": _("V1: the whole strips (kernels/02b_strip.cu)"),
                  "v2": _("V2: the sliding window (kernels/03_tiled.cu)")},
        "counts": {"loads": _("global loads by the block so far"), "barriers": _("barriers passed"),
                   "fma": _("multiply-adds per thread so far"), "shared": _("shared memory allocated"),
                   "filled": _("of it written")},
        "caption": _("Both kernels copy the same elements of A and B in the same loop over K, one element of each "
                     "per thread and iteration; V1 keeps them all ({v1} bytes per block, growing with K), V2 "
                     "keeps one window ({v2} bytes whatever K is) and waits twice per phase instead of once. "
                     "Computed by explainer.model.strip_steps; V1's strips are checked against the simulator "
                     "running kernels/02b_strip.cu.", v1=f"{d['v1_bytes']:,}", v2=f"{d['v2_bytes']:,}")
        + ("" if K % T == 0 else " " + _("K is not a multiple of T: V2's last phase multiplies {pad} padding "
                                         "zeros per thread, V1 none.", pad=P * T - K)),
    }


#: The presets whose every block a static page holds (the others: block (0, 0)).
STATIC_ALL_BLOCKS = PRESETS[:2]


def static_keys() -> list[str]:
    keys = []
    for M, N, K, T in PRESETS:
        gx, gy = Launch("tiled", M, N, K, T).grid
        blocks = [(bx, by) for by in range(gy) for bx in range(gx)] if (M, N, K, T) in STATIC_ALL_BLOCKS else [(0, 0)]
        keys += [key_of(M, N, K, T, bx, by) for bx, by in blocks]
    return keys


class StripView(BrowserView):
    """Page 02's V1-against-V2 stepper (``common.js`` + ``present.js`` + ``strip.js``)."""

    NAME = "strip"
    FRONT_END = ("common.js", "present.js", "strip.js")
    _esm = resources.front_end(*FRONT_END)


class StripExplorer:
    """V1 and V2 side by side for one launch and block; ``.widget`` displays it."""

    def __init__(self, M: int = OPENING[0], N: int = OPENING[1], K: int = OPENING[2], T: int = OPENING[3],
                 block=(0, 0)):
        self.view = StripView()
        self.view.on_msg(self._on_msg)
        self.view.static_store = self.static_store
        self.key = None
        if not self.select(key_of(M, N, K, T, *block)):
            raise LaunchError(self.view.error)

    @property
    def widget(self) -> StripView:
        return self.view

    def select(self, key: str) -> bool:
        """Show launch and block ``key`` ("M,N,K,T,bx,by"); on bad input one line in the view, the
        last good state stays."""
        try:
            M, N, K, T, bx, by = parse_key(key)
            meta = strip_view_data(M, N, K, T, (bx, by))
        except LaunchError as e:
            self.view.fail(e)
            return False
        self.key = meta["key"]
        self.view.show(meta, b"")
        return True

    def _on_msg(self, widget, content, buffers):
        if isinstance(content, dict) and content.get("cmd") == "kernel":
            self.select(str(content.get("name", "")))

    def static_store(self, budget: int = STATIC_BUDGET) -> dict:
        """The page's own launch and block first, every block of the small presets, block (0, 0) of
        the larger ones (whose strips take tens of KB a block), within ``budget`` bytes."""
        keys = static_keys()
        return keyed_store(lambda k: (strip_view_data(*parse_key(k)[:4], parse_key(k)[4:]), b""), keys, self.key,
                           min(budget, 1 << 20))
