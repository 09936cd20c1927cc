"""The naive kernels' explorer (page 01): grid -> block -> thread -> the C element it computes,
the row of A and column of B it reads, and the warp it belongs to (``naive`` vs the
column-mapped ``naive_col``).

:func:`naive_data` computes, from :mod:`explainer.model`, what ``naive.js`` draws for a window
of C around one block: for every thread of every block the window touches, the C element it
computes, its warp and lane, and where its row of A / column of B sit in the window; for every
C cell of the window, the thread that owns it. Pinning a thread (a click on C, or typing
``threadIdx`` or a ``blockIdx`` inside the window) happens in the browser; Python is asked only
for another launch, kernel, or a block outside the window.

The block may be non-square, ``blockDim = (BX, BY)`` (the lab report's tile_x x tile_y): a block
then covers a ``tile_rows x tile_cols`` tile of C (BY x BX for ``naive``, BX x BY for
``naive_col``), and ``meta["T"]`` is the block's label (``16`` or ``"16x4"``: the key a static page
stores it under).

Arrays (``b`` = a block of ``blocks``, ``p`` = a thread of a block, ``tx + ty*BX``):

* ``blocks[b] = (bx, by)``; ``thread_xy[p] = (tx, ty)``;
* per (b, p): ``thr_rc`` its C element (row, col; it may lie outside C), ``thr_writes``,
  ``thr_warp``, ``thr_lane``, ``thr_lin`` (its linear id), ``thr_cell`` (its C cell in the
  window, ``r*nw + c``, -1 if not drawn), ``thr_arow`` / ``thr_bcol`` (the window row of A /
  column of B it reads, -1 if not drawn);
* per C cell of the window: ``c_blk`` and ``c_p``, the thread that computes it;
* ``rows`` / ``cols`` / ``ks``: the global indices the window shows; ``a_text`` / ``b_text``:
  the demo values when the window is small enough to label;
* per (b, warp ``w``) at loop step k = 0 (:func:`explainer.model.blockshape.block_footprints`):
  ``warp_rows[b, w]`` the rows of the block its lanes span, ``warp_sec[b, w, m]`` /
  ``warp_ideal[b, w, m]`` the 32-byte sectors (and the ideal) of its load of A (m = 0), of B (1)
  and its store of C (2); zeros for a warp with no active lane.
"""

from __future__ import annotations

import numpy as np

from .. import resources
from ..i18n import N_, _
import dataclasses

from ..model import WARP_SIZE, Launch, LaunchError, blockshape, ceil_div
from .common import ACTIVE, HAZARD, KERNEL_NAMES, PALETTE, PANEL, PINNED, TEXT_MAX, TILE, demo_matrices, whole, window
from .payload import pack, unpack
from .store import STATIC_BUDGET, BrowserView
from .store import static_store as _static_store

FORMULAS = {
    "naive": ("blockIdx.y*blockDim.y + threadIdx.y", "blockIdx.x*blockDim.x + threadIdx.x"),
    "naive_col": ("blockIdx.y*blockDim.x + threadIdx.x", "blockIdx.x*blockDim.y + threadIdx.y"),
}
#: Names a blank of page 01's exercise may use (then row, col and k where the kernel has them).
_BUILTINS = KERNEL_NAMES


def naive_exercise(kernel: str) -> dict:
    """Page 01's "Your turn" (``views/yourturn.js``): the naive kernel's index lines with the
    indices blank. ``answers`` are the kernel's own (:data:`FORMULAS`, for the mapping shown); the
    browser checks what a student types against the model's arrays, thread by thread."""
    fr, fc = FORMULAS[kernel]
    blanks = {
        "row": ("row", _BUILTINS, fr), "col": ("col", _BUILTINS, fc),
        "a_r": (_("A's row"), _BUILTINS + ["row", "col", "k"], "row"), "a_c": (_("A's column"), _BUILTINS + ["row", "col", "k"], "k"),
        "b_r": (_("B's row"), _BUILTINS + ["row", "col", "k"], "k"), "b_c": (_("B's column"), _BUILTINS + ["row", "col", "k"], "col"),
    }

    def b(i, width=16):
        return {"id": i, "label": blanks[i][0], "width": width}

    return {
        "title": _("Your turn: write the indices of {kernel}", kernel=kernel),
        "intro": _("Fill in each blank with a C expression over blockIdx, threadIdx, blockDim, gridDim, M, N, K "
                   "(and row, col, k where the kernel has them), then Check: your indices are evaluated for every "
                   "thread of the blocks drawn and compared with the kernel's. Enter checks too."),
        "lines": [
            ["const int row = ", b("row", 40), ";"],
            ["const int col = ", b("col", 40), ";"],
            ["if (row < M && col < N) {"],
            ["    for (int k = 0; k < K; ++k)"],
            ["        sum += A[ ", b("a_r"), " ][ ", b("a_c"), " ] * B[ ", b("b_r"), " ][ ", b("b_c"), " ];"],
            ["    C[row][col] = sum;"],
            ["}"],
        ],
        "labels": {i: v[0] for i, v in blanks.items()},
        "names": {i: v[1] for i, v in blanks.items()},
        "answers": {i: v[2] for i, v in blanks.items()},
    }


KERNEL_LABELS = {"naive": N_("naive (threadIdx.x → column)"), "naive_col": N_("naive_col (threadIdx.x → row)")}
LEGEND = [(PANEL, N_("this block's C tile")), (TILE, N_("C elements of the pinned thread's warp")),
          (ACTIVE, N_("what the pinned thread reads")), (PINNED, N_("the pinned thread's C element"))]
WINDOW_CELLS = 32
#: An exported page stores the windows around this many bytes of nearby blocks at most: the
#: blocks next to the page's own are pinnable inside its window already.
STATIC_CAP = 1 << 19


def _small(a) -> np.ndarray:
    """``a`` as int16 when its values fit, else int32 (payloads stay small)."""
    a = np.asarray(a)
    return a.astype(np.int16) if a.size == 0 or (a.min() >= -(1 << 15) and a.max() < (1 << 15)) else a.astype(np.int32)


def naive_data(L: Launch, block, window_cells: int = WINDOW_CELLS) -> tuple[dict, dict[str, np.ndarray]]:
    """``(meta, arrays)`` for the window of C around ``block`` (see the module doc)."""
    if L.kernel not in FORMULAS:
        raise LaunchError(f"the naive explorer draws {' and '.join(FORMULAS)}, not {L.kernel!r}")
    L.check_block(*block)
    R, Cw = L.tile_rows, L.tile_cols  # the tile of C one block covers (T x T for a square block)
    BX, BY = L.block
    bx, by = (int(v) for v in block)
    cells = max(window_cells, R, Cw)
    (m0, m1), (n0, n1) = window(L.M, by * R, R, cells), window(L.N, bx * Cw, Cw, cells)
    k0, k1 = window(L.K, 0, max(R, Cw), cells)
    mw, nw = m1 - m0, n1 - n0
    # Every block whose tile of C meets the window (both mappings give block (x, y) the tile at
    # rows y*R.., columns x*Cw..).
    gys = np.arange(m0 // R, ceil_div(m1, R))
    gxs = np.arange(n0 // Cw, ceil_div(n1, Cw))
    bxs, bys = np.meshgrid(gxs, gys)
    blocks = np.stack([bxs.ravel(), bys.ravel()], axis=1)
    p = np.arange(BX * BY)
    tx, ty = p % BX, p // BX  # thread p of a block is (tx, ty) = the model's linear id p
    assert np.array_equal(L.linear_thread(tx, ty), p)
    B_, P_ = np.meshgrid(np.arange(len(blocks)), p, indexing="ij")
    args = (blocks[B_, 0], blocks[B_, 1], tx[P_], ty[P_])
    rows, cols = L.c_index(*args)
    writes = L.writes_c(*args)
    warp, lane = L.warp_lane(tx[P_], ty[P_])
    in_r = writes & (rows >= m0) & (rows < m1)
    in_c = writes & (cols >= n0) & (cols < n1)
    cell = np.where(in_r & in_c, (rows - m0) * nw + (cols - n0), -1)
    c_blk = np.full(mw * nw, -1, np.int32)
    c_p = np.full(mw * nw, -1, np.int32)
    drawn = cell >= 0
    c_blk[cell[drawn]] = B_[drawn]
    c_p[cell[drawn]] = P_[drawn]
    if (c_blk < 0).any():
        raise AssertionError("a C cell of the window has no owner")
    # Each warp of each block drawn at k = 0: the rows of the block it spans, the sectors of its
    # requests (explainer.model.blockshape, from explainer.model.memory).
    W = ceil_div(BX * BY, WARP_SIZE)
    warp_rows = np.zeros((len(blocks), W), np.int16)
    warp_sec = np.zeros((len(blocks), W, 3), np.int16)
    warp_ideal = np.zeros((len(blocks), W, 3), np.int16)
    for i, (gx_, gy_) in enumerate(blocks):
        for f in blockshape.block_footprints(L, (int(gx_), int(gy_)), 0):
            w = f["warp"]
            warp_rows[i, w] = len(f["block_rows"])
            for j, m in enumerate("ABC"):
                warp_sec[i, w, j], warp_ideal[i, w, j] = f[m]["sectors"], f[m]["ideal"]
    arrays = {
        "blocks": blocks.astype(np.int32),
        "thread_xy": np.stack([tx, ty], axis=1).astype(np.int16),
        "thr_rc": np.stack([rows, cols], axis=-1).astype(np.int32),
        "thr_writes": writes.astype(np.uint8),
        "thr_warp": warp.astype(np.int16),
        "thr_lane": lane.astype(np.int16),
        "thr_lin": L.linear_thread(tx[P_], ty[P_]).astype(np.int16),
        "thr_cell": _small(cell),
        "thr_arow": _small(np.where(in_r, rows - m0, -1)),
        "thr_bcol": _small(np.where(in_c, cols - n0, -1)),
        "c_blk": _small(c_blk.reshape(mw, nw)),
        "c_p": _small(c_p.reshape(mw, nw)),
        "rows": np.arange(m0, m1, dtype=np.int32),
        "cols": np.arange(n0, n1, dtype=np.int32),
        "ks": np.arange(k0, k1, dtype=np.int32),
        "warp_rows": warp_rows,
        "warp_sec": warp_sec,
        "warp_ideal": warp_ideal,
    }
    small = max(mw, nw, k1 - k0) <= TEXT_MAX
    if small:
        A, B = demo_matrices(L.M, L.N, L.K)
        arrays["a_text"] = A[m0:m1, k0:k1]
        arrays["b_text"] = B[k0:k1, n0:n1]
    st = L.stats()
    gx, gy = L.grid

    def clip(lo, hi, n):
        return "" if (lo == 0 and hi == n) else _(" (showing {lo}..{last} of {n})", lo=lo, last=hi - 1, n=n)

    fr, fc = FORMULAS[L.kernel]
    meta = {
        "view": "naive", "kernel": L.kernel, "M": L.M, "N": L.N, "K": L.K,
        "T": L.T if L.square else L.block_label, "BX": BX, "BY": BY, "grid": [gx, gy],
        "block": [bx, by], "mwin": [m0, m1], "nwin": [n0, n1], "kwin": [k0, k1],
        "formula_row": fr, "formula_col": fc, "loads_per_output": 2 * L.K,
        "exercise": naive_exercise(L.kernel),
        "palette": PALETTE, "legend": [(c, _(t)) for c, t in LEGEND],
        "colours": {"IDLE": 0, "PANEL": PANEL, "TILE": TILE, "ACTIVE": ACTIVE, "PINNED": PINNED, "HAZARD": HAZARD},
        "title": _("{kernel}: grid {gx}×{gy} blocks of {bx}×{by} threads", kernel=L.kernel, gx=gx, gy=gy, bx=BX, by=BY),
        "title_k": _("A: column k") + clip(k0, k1, L.K),
        "title_m": _("A / C: row") + clip(m0, m1, L.M),
        "title_n": _("B / C: column") + clip(n0, n1, L.N),
        "warp_size": WARP_SIZE,
        "thread_range": _("threadIdx.x must be 0..{xlast} and threadIdx.y 0..{ylast}", xlast=BX - 1, ylast=BY - 1),
        "launch_html": _("whole launch: {threads} threads, {loads} global loads (2·M·N·K), {flops} flops → {fpb} FLOP "
                         "per byte of DRAM traffic (a bound that ignores caches)", threads=f"{st['threads']:,}",
                         loads=f"{st['global_loads']:,}", flops=f"{st['flops']:,}", fpb=f"{st['flop_per_byte']:.2f}"),
        "warps_html": (
            _("neighbouring lanes of a warp (consecutive threadIdx.x) share a row of C: they read the <i>same</i> A "
              "element (a broadcast) and <i>neighbouring</i> B elements (coalesced)") if L.kernel == "naive" else
            _("neighbouring lanes of a warp (consecutive threadIdx.x) walk down a column of C: they read A elements "
              "<i>K floats apart</i>, one memory transaction each (uncoalesced)")),
        "kernel_labels": {k: _(v) for k, v in KERNEL_LABELS.items()},
    }
    return meta, arrays


def naive_payload(L: Launch, block, thread=(0, 0), pinned=None, window_cells: int = WINDOW_CELLS) -> tuple[dict, bytes]:
    """:func:`naive_data` packed for the browser, starting with ``thread`` of block ``pinned``
    (default: ``block``) pinned."""
    meta, arrays = naive_data(L, block, window_cells)
    pinned = tuple(pinned) if pinned is not None else tuple(block)
    L.check_thread(*thread)
    meta["arrays"], buf = pack(arrays)
    meta["start"] = {"thread": int(L.linear_thread(*thread)), "pinned": [int(pinned[0]), int(pinned[1])]}
    return meta, buf


class NaiveView(BrowserView):
    """The naive explorer's front end (``common.js`` + ``present.js`` + ``naive.js``); :class:`NaiveExplorer`
    fills it."""

    NAME = "naive"
    FRONT_END = ("common.js", "present.js", "yourturn.js", "naive.js")
    _esm = resources.front_end(*FRONT_END)


class NaiveExplorer:
    """Pick a kernel, a launch, a block and a thread (or click a C cell); display ``.widget``.

    Pinning happens in the browser (``views/naive.js``) over :func:`naive_data`'s arrays; this
    object answers a new launch, kernel or a block outside the window. ``block`` / ``thread``
    are the last ones set from Python (the browser does not report its pins back)."""

    #: Non-square blocks an exported page stores for its own M, N, K and block (in both mappings,
    #: bytes kept aside from the rings of nearby blocks): typed into blockDim.x / blockDim.y.
    STATIC_BLOCKS = ((16, 4), (32, 8))

    def __init__(self, M=1024, N=1024, K=1024, tile=16, block=(2, 1), thread=(4, 3), kernel="naive",
                 window_cells=WINDOW_CELLS, block_dim=None):
        self.window_cells = window_cells
        L = Launch(kernel, M, N, K, tile, block_dim)
        L.check_block(*block)
        L.check_thread(*thread)
        self.view = NaiveView(kernels=list(FORMULAS))
        self.view.on_msg(self._on_msg)
        self.view.static_store = self.static_store
        self._set(L, tuple(block), tuple(thread))

    @property
    def widget(self) -> NaiveView:
        return self.view

    def data(self):
        """``(meta, arrays)`` the browser was sent last (for tests)."""
        return self.view.meta, unpack(self.view.meta["arrays"], self.view.buf)

    def _set(self, L: Launch, block, thread, centre=None):
        """Send the window around ``centre`` (default ``block``) with ``thread`` of ``block`` pinned."""
        meta, buf = naive_payload(L, centre if centre is not None else block, thread, block, self.window_cells)
        self.L, self.block, self.thread = L, (int(block[0]), int(block[1])), (int(thread[0]), int(thread[1]))
        self.view.show(meta, buf)

    # ---- what Python callers (notebooks, tests) do --------------------------------------
    def set_launch(self, M, N, K, tile=None, kernel=None, block_dim=None):
        """A new launch (T x T blocks, or ``block_dim = (BX, BY)``); the block and thread are kept
        where they still exist."""
        if tile is None and block_dim is None:
            raise LaunchError("give the block: tile T, or block_dim (blockDim.x, blockDim.y)")
        L = Launch(kernel or self.L.kernel, M, N, K, tile if tile is not None else 0, block_dim)
        gx, gy = L.grid
        block = (min(self.block[0], gx - 1), min(self.block[1], gy - 1))
        thread = (min(self.thread[0], L.BX - 1), min(self.thread[1], L.BY - 1))
        self._set(L, block, thread)

    def set_kernel(self, kernel: str, block=None, thread=None):
        """The other mapping on the same launch: the same thread of the same block, now
        computing another element of C (the page's point)."""
        if kernel not in FORMULAS:
            raise LaunchError(f"unknown kernel {kernel!r}: this view offers {', '.join(FORMULAS)}")
        L = dataclasses.replace(self.L, kernel=kernel)  # the same launch and block shape
        block = tuple(block) if block is not None else self.block
        thread = tuple(thread) if thread is not None else self.thread
        L.check_block(*block)
        L.check_thread(*thread)
        self._set(L, block, thread, centre=self.view.meta["block"])

    def pin(self, block, thread):
        """Pin thread (x, y) of block (x, y), moving the window there if it is not drawn."""
        self.L.check_block(*block)
        self.L.check_thread(*thread)
        meta, arrays = self.data()
        hit = np.flatnonzero((arrays["blocks"][:, 0] == block[0]) & (arrays["blocks"][:, 1] == block[1]))
        if len(hit):
            self.block, self.thread = (int(block[0]), int(block[1])), (int(thread[0]), int(thread[1]))
            self.view.send({"pin": [int(hit[0]), int(self.L.linear_thread(*thread))]})
        else:
            self._set(self.L, tuple(block), tuple(thread))

    def pin_c(self, row: int, col: int):
        """Pin the thread that computes C[row][col] (the model's :meth:`Launch.c_owner`)."""
        block, thread = self.L.c_owner(row, col)
        self.pin(block, thread)

    # ---- what the browser asks for ------------------------------------------------------
    def _on_msg(self, widget, content, buffers):
        if not isinstance(content, dict):
            return
        cmd = content.get("cmd")
        try:
            p = whole("thread", content.get("thread", 0))
            _, arrays = self.data()
            if not 0 <= p < len(arrays["thread_xy"]):
                raise LaunchError(f"thread {p} is not a thread of a {self.L.BX}x{self.L.BY} block")
            thread = tuple(int(v) for v in arrays["thread_xy"][p])
            pinned = content.get("pinned") or self.block
            pinned = tuple(whole(f"blockIdx.{a}", v) for a, v in zip("xy", pinned))
            if cmd == "launch":
                M, N, K = (whole(n, content.get(n)) for n in ("M", "N", "K"))
                if "BX" in content or "BY" in content:  # blockDim.x and blockDim.y, typed apart
                    dims = tuple(whole(f"blockDim.{a}", content.get(f"B{a.upper()}")) for a in "xy")
                    Launch(self.L.kernel, M, N, K, block_dim=dims)  # (checked before anything moves)
                    self.block, self.thread = pinned, thread
                    self.set_launch(M, N, K, block_dim=dims)
                else:
                    T = whole("T", content.get("T"))
                    Launch(self.L.kernel, M, N, K, T)
                    self.block, self.thread = pinned, thread
                    self.set_launch(M, N, K, T)
            elif cmd == "kernel":
                self.set_kernel(content.get("name"), pinned, thread)
            elif cmd == "block":
                bx, by = (whole(f"blockIdx.{a}", v) for a, v in zip("xy", content.get("block", ())))
                self.L.check_block(bx, by)
                self._set(self.L, (bx, by), thread)
        except (LaunchError, ValueError, TypeError) as e:
            self.view.fail(e)

    def static_store(self, budget: int = STATIC_BUDGET) -> dict:
        """What an exported page embeds: the page's launch in both mappings, then the windows
        around the blocks nearest to it, within ``budget`` bytes (at most :data:`STATIC_CAP`)."""
        def payload(kernel, L, block, thread):
            return naive_payload(L, block, thread, block, self.window_cells)

        extras = []
        for dims in self.STATIC_BLOCKS:  # the page's M, N, K with the lab report's block shapes
            L = Launch(self.L.kernel, self.L.M, self.L.N, self.L.K, block_dim=dims)
            if L == self.L:
                continue
            gx, gy = L.grid
            block = (min(self.block[0], gx - 1), min(self.block[1], gy - 1))
            extras.append((L.block_label, L, block, (min(self.thread[0], L.BX - 1), min(self.thread[1], L.BY - 1))))
        return _static_store(payload, tuple(FORMULAS), [(None, self.L, self.block, self.thread)],
                             (self.L.kernel, self.L, self.block, self.thread), min(budget, STATIC_CAP), extras=extras)


def naive_explorer(**kw):
    return NaiveExplorer(**kw).widget
