"""The tiled-kernel stepper's data: everything its front end (``tiled.js``) draws, for every step
of one block, as compact arrays computed from :mod:`explainer.model` (and
:mod:`explainer.model.hazards` for the barrier-less variants).

The browser steps, plays, hovers and pins threads of the block on its own; Python is asked again
only for a new launch, another block, or (on launches with very many phases) the next chunk of
phases. The front end looks things up in these arrays and draws them: every index, owner, source
element, running sum and hazard comes from here.

Arrays (``p`` = a thread of the block, ``tx + ty*T``; ``cell`` = a shared cell, ``row*T + col``;
phases are those of the chunk, ``p0 .. p1 - 1``):

* per step, for each mode (``k``: one k per step, ``loop``: the whole loop per step):
  ``kind``, ``phase`` (whose tiles are current), ``k`` (-1: the whole loop), the colours of A's
  and B's tile rectangles and of C's rectangle, the phase and colour of what sits in As / Bs
  (-1: nothing yet), the pinned thread's part (``pin``), where its running sum stands (``sum``:
  an index into ``sums``' first two axes flattened, -1: 0), whether every thread waits at a
  barrier, and which hazard table applies (-1: none);
* per phase (from ``pbase = max(p0 - 1, 0)``: the chunk's first load still shows phase p0 - 1
  in Bs): ``a_src`` / ``b_src`` ``[phase, cell, (row, col)]`` the global element each shared
  cell holds (-1: a padding zero), their values, the window of K drawn, A's / B's tile columns;
* per thread: the cell it stores into, the cells it reads at each k, its C element, whether it
  writes C, its warp, whether it is a ghost, and ``sums[phase, k, p]``, its running sum;
* per cell: the thread that stores it, and its (row, col) for labels;
* the C window: the (block x, block y, thread) that owns each cell, for clicks.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..model import hazards as hz
from .. import resources
from ..i18n import N_, _
from ..model import (KERNELS, PAD, STEP_KINDS, Launch, Step, count_label, phase_label, phase_of_step, step_count,
                     steps_of_phases)
from .common import (ACTIVE, HAZARD, IDLE, KERNEL_NAMES, LEGEND, OUTSIDE, PADDING, PALETTE, PANEL, PINNED, STALE, STEP_WORDS, STORED, WAITING,
                     TEXT_MAX, TILE, demo_matrices, source_lines, window)
from .payload import narrow, pack
from .store import STATIC_BUDGET, BrowserView, state_key
from .store import static_store as _static_store

#: The most ``phases * T * T * T`` (the running sums' size) sent at once; launches with more
#: phases are sent in chunks of whole phases as the student steps into them.
CHUNK_BUDGET = 1 << 19
MODES = {"k": True, "loop": False}  # mode name -> per_k
#: What the pinned thread does in a step (the front end's ``pin`` codes).
PIN_NONE, PIN_STORE_A, PIN_STORE_B, PIN_READ_K, PIN_READ_ALL, PIN_C = range(6)


@dataclass(frozen=True)
class Chunk:
    p0: int
    p1: int


def chunk_of(L: Launch, phase: int) -> Chunk:
    """The chunk of phases that holds ``phase``."""
    size = max(1, CHUNK_BUDGET // (L.T ** 3))
    p0 = (phase // size) * size
    return Chunk(p0, min(L.phases, p0 + size))


def step_label(L: Launch, block, s: Step) -> str:
    """The label of step ``s``: ``block (x=.., y=..) · phase t = t of 0..P-1 · what happens``
    (phases and k counted from 0, as in the kernel's loop and ``tiled-explainer trace``)."""
    bx, by = block
    where = _("block (x={bx}, y={by})", bx=bx, by=by)
    if s.kind == "store":
        return f"{where} · {_store_text()}"
    what = f"{phase_label(s.phase, L.phases)} · {_(STEP_WORDS[s.kind])}"
    if s.kind == "compute":
        what += f" ({count_label('k', s.k, L.T)})" if s.k is not None else _loop_text(L.T)
    return f"{where} · {what}"


def _store_text() -> str:
    return _("after the last phase · {what}", what=_(STEP_WORDS["store"]))


def _loop_text(T: int) -> str:
    return _(" (the whole loop, k = 0..{last})", last=T - 1)


def _step_arrays(L: Launch, steps: list[Step]) -> dict[str, np.ndarray]:
    """Per step: what the block's tiles, C and the pinned thread show (see the module doc)."""
    P, T = L.phases, L.T
    b1, b2 = L.barriers
    n = len(steps)
    out = {name: np.full(n, -1, np.int32) for name in
           ("kind", "phase", "k", "a_tile", "b_tile", "c_rect", "as_phase", "as_col", "bs_phase", "bs_col",
            "pin", "sum", "barrier", "hz", "hz_threads")}
    for i, s in enumerate(steps):
        t = P - 1 if s.kind == "store" else s.phase  # the phase whose tiles are current
        out["kind"][i] = STEP_KINDS.index(s.kind)
        out["phase"][i] = t
        out["k"][i] = -1 if s.k is None else s.k
        # A's and B's tile of phase t in global memory; B's is not loaded yet while A's is copied.
        out["a_tile"][i] = ACTIVE if s.kind == "load_a" else TILE
        out["b_tile"][i] = {"load_a": PANEL, "load_b": ACTIVE}.get(s.kind, TILE)
        out["c_rect"][i] = STORED if s.kind == "store" else PANEL
        # Shared memory: in load_a As receives phase t while Bs still holds phase t-1 (or nothing).
        out["as_phase"][i], out["as_col"][i] = t, ACTIVE if s.kind == "load_a" else TILE
        if s.kind == "load_a":
            out["bs_phase"][i], out["bs_col"][i] = (t - 1, STALE) if t > 0 else (-1, IDLE)
        else:
            out["bs_phase"][i], out["bs_col"][i] = t, ACTIVE if s.kind == "load_b" else TILE
        out["pin"][i] = {"load_a": PIN_STORE_A, "load_b": PIN_STORE_B, "store": PIN_C}.get(
            s.kind, (PIN_READ_ALL if s.k is None else PIN_READ_K) if s.kind == "compute" else PIN_NONE)
        # The running sum after this step, as (phase, k) flattened; -1 before any multiply-add.
        if s.kind == "store":
            done = (P - 1, T - 1)
        elif s.kind == "compute":
            done = (t, T - 1 if s.k is None else s.k)
        elif s.kind == "barrier2":
            done = (t, T - 1)
        else:
            done = (t - 1, T - 1) if t > 0 else None
        out["sum"][i] = -1 if done is None else done[0] * T + done[1]
        out["barrier"][i] = int(s.kind in ("barrier1", "barrier2"))
        # Hazards (barrier-less variants): reads of phase t may come before its stores (no
        # barrier 1); phase t's stores may overwrite phase t-1 while it is read (no barrier 2).
        if s.kind == "compute" and not b1:
            out["hz"][i], out["hz_threads"][i] = 2 * t, 1
        elif s.kind in ("load_a", "load_b") and t > 0 and not b2:
            out["hz"][i], out["hz_threads"][i] = 2 * (t - 1) + 1, 0
        else:
            out["hz_threads"][i] = 0
    return out


def tiled_data(L: Launch, block, thread=(0, 0), phase: int = 0, window_cells: int = 48,
               mark_ghosts: bool = False, seed: int = 7, exercise: bool = False) -> tuple[dict, dict[str, np.ndarray]]:
    """``(meta, arrays)`` for block ``block`` of ``L``, for the chunk of phases that holds
    ``phase``. ``meta`` is JSON; ``arrays`` go to the browser packed (:func:`payload.pack`)."""
    if not L.is_tiled or not L.guarded:
        raise ValueError(_("the tiled view draws the guarded tiled kernels (see model.unguarded_report)"))
    L.check_block(*block)
    L.check_thread(*thread)
    bx, by = int(block[0]), int(block[1])
    T, P = L.T, L.phases
    outside = mark_ghosts  # page 03: ghost threads marked, and the tiles drawn whole, past the matrices' edges
    ch = chunk_of(L, min(max(phase, 0), P - 1))
    # Per-phase arrays also hold phase p0 - 1: at the chunk's first load Bs still holds it, and
    # phase p0's stores race with its reads in the variants without barrier 2.
    pbase = max(ch.p0 - 1, 0)
    phases = np.arange(pbase, ch.p1)
    A, B = demo_matrices(L.M, L.N, L.K, seed)
    arrays: dict[str, np.ndarray] = {}

    # ---- steps, both modes -------------------------------------------------------------
    meta_steps = {}
    for mode, per_k in MODES.items():
        s0, chunk_steps = steps_of_phases(L, ch.p0, ch.p1, per_k)
        meta_steps[mode] = {"s0": s0, "s1": s0 + len(chunk_steps), "total": step_count(L, per_k)}
        for name, a in _step_arrays(L, chunk_steps).items():
            arrays[f"{mode}_{name}"] = a

    # ---- the block's threads and shared cells ------------------------------------------
    ty, tx = np.divmod(np.arange(T * T), T)  # thread p = tx + ty*T; cell = row*T + col
    cell_of = lambda r, c: (np.asarray(r) * T + np.asarray(c)).astype(np.int32)  # noqa: E731
    arrays["thread_xy"] = np.stack([tx, ty], 1).astype(np.int32)
    arrays["cell_rc"] = np.stack([ty, tx], 1).astype(np.int32)  # cell -> (row, col) of As / Bs
    # Thread (tx, ty) stores As[ty][tx] and Bs[ty][tx] (ThreadView.load's "as" / "bs").
    views = [L.thread((bx, by), (int(x), int(y))) for x, y in zip(tx, ty)]
    first = [v.load(ch.p0) for v in views]
    arrays["store_cell"] = np.array([cell_of(*d["as"]) for d in first], np.int32)
    assert all(d["as"] == d["bs"] for d in first)
    writer = np.empty(T * T, np.int32)
    writer[arrays["store_cell"]] = np.arange(T * T)
    arrays["writer"] = writer
    # At step k thread p multiplies As[ty][k] by Bs[k][tx] (ThreadView.compute).
    read_as = np.empty((T, T * T), np.int32)
    read_bs = np.empty((T, T * T), np.int32)
    for k in range(T):
        for p, v in enumerate(views):
            c = v.compute(ch.p0, k)
            read_as[k, p], read_bs[k, p] = cell_of(*c["as"]), cell_of(*c["bs"])
    arrays["read_as"], arrays["read_bs"] = read_as, read_bs
    c_rc = np.array([v.c for v in views], np.int32)
    arrays["c_rc"] = c_rc
    arrays["writes"] = np.array([v.writes_c for v in views], np.uint8)
    arrays["warp"] = np.array([v.warp for v in views], np.int32)
    arrays["warp_col"] = np.where(arrays["warp"] % 2 == 0, PANEL, TILE).astype(np.int8)  # stripes
    thread_grid = np.empty((T, T), np.int32)  # the thread drawn at (row threadIdx.y, col threadIdx.x)
    thread_grid[ty, tx] = np.arange(T * T)
    arrays["thread_grid"] = thread_grid
    arrays["ghost"] = (~arrays["writes"].astype(bool)).astype(np.uint8) if mark_ghosts else np.zeros(T * T, np.uint8)

    # ---- per phase: what each shared cell holds, and its value ---------------------------
    r_, c_ = ty[None, :], tx[None, :]
    ar, ac = L.a_load(by, phases[:, None], r_, c_)
    br, bc = L.b_load(bx, phases[:, None], r_, c_)
    arrays["a_src"] = np.stack(np.broadcast_arrays(ar, ac), -1).astype(np.int32)
    arrays["b_src"] = np.stack(np.broadcast_arrays(br, bc), -1).astype(np.int32)
    if outside or exercise:  # where the index arithmetic points when a padding zero is stored (past A's / B's edge)
        arrays["a_want"] = np.stack(np.broadcast_arrays(*L.a_load(by, phases[:, None], r_, c_, checked=False)), -1).astype(np.int32)
        arrays["b_want"] = np.stack(np.broadcast_arrays(*L.b_load(bx, phases[:, None], r_, c_, checked=False)), -1).astype(np.int32)
    a_val = np.where(ar == PAD, 0, A[np.maximum(ar, 0), np.maximum(ac, 0)]).astype(np.int64)
    b_val = np.where(br == PAD, 0, B[np.maximum(br, 0), np.maximum(bc, 0)]).astype(np.int64)
    arrays["a_val"], arrays["b_val"] = a_val.astype(np.int8), b_val.astype(np.int8)
    # Running sums: replay the compute loop on the shared tiles (padding zeros included), starting
    # from the sum the thread had after phase p0 - 1.
    before = np.zeros(T * T, np.int64)
    if pbase > 0:
        K0 = min(pbase * T, L.K)
        rows, cols = c_rc[:, 0], c_rc[:, 1]
        ok = (rows < L.M) & (cols < L.N)
        for p in np.nonzero(ok)[0]:  # only threads inside C have nonzero operands
            before[p] = int(A[int(rows[p]), :K0].astype(np.int64) @ B[:K0, int(cols[p])].astype(np.int64))
    terms = a_val[:, read_as] * b_val[:, read_bs]  # [phase, k, p]
    sums = before + np.cumsum(terms.reshape(len(phases) * T, T * T), axis=0).reshape(len(phases), T, T * T)
    bound = 16 * L.K  # |value| <= 4, so |sum| <= 16 K
    sum_t = np.int16 if bound < 2 ** 15 else np.int32 if bound < 2 ** 31 else np.float64
    big = sum_t is np.float64
    arrays["sums"] = sums.astype(sum_t)
    # What numpy says each thread's C element is (checked against the last running sum).
    numpy_c = np.zeros(T * T, np.int64)
    for p in np.nonzero(arrays["writes"])[0]:
        r, c = int(c_rc[p, 0]), int(c_rc[p, 1])
        numpy_c[p] = int(A[r].astype(np.int64) @ B[:, c].astype(np.int64))
    arrays["numpy_c"] = numpy_c.astype(np.float64 if big else np.int32)

    # ---- hazards of the barrier-less variants: table 2t (read-before-write in phase t) and
    # 2t + 1 (write-before-read: phase t + 1 overwrites phase t) ---------------------------
    hz_phases = phases if not all(L.barriers) else []
    haz_as = np.zeros((max(2 * len(hz_phases), 1), T * T), np.uint8)
    haz_bs = np.zeros_like(haz_as)
    for j, t in enumerate(hz_phases):
        for kind_i, kind in enumerate((hz.READ_BEFORE_WRITE, hz.WRITE_BEFORE_READ)):
            cells = hz.cells_at(L, int(t), kind)
            for (i, jj) in cells["As"]:
                haz_as[2 * j + kind_i, cell_of(i, jj)] = 1
            for (i, jj) in cells["Bs"]:
                haz_bs[2 * j + kind_i, cell_of(i, jj)] = 1
    arrays["haz_as"], arrays["haz_bs"] = haz_as, haz_bs
    for mode in MODES:  # sums and hazard tables are numbered from phase pbase
        sm = arrays[f"{mode}_sum"]
        arrays[f"{mode}_sum"] = np.where(sm >= 0, sm - pbase * T, -1).astype(np.int32)
        hzc = arrays[f"{mode}_hz"]
        arrays[f"{mode}_hz"] = np.where(hzc >= 0, hzc - 2 * pbase, -1).astype(np.int32)
        arrays[f"{mode}_tp"] = (arrays[f"{mode}_phase"] - pbase).astype(np.int32)  # row of per-phase arrays

    # ---- global memory: windows, panels, tiles ------------------------------------------
    # With ``outside`` (page 03) the windows reach the last tile's far edge, past A, B and C: the
    # part of a tile that lies outside a matrix is drawn (where the padding zeros and the ghost
    # threads' elements would be).
    cells = max(window_cells, T)
    ext = tuple(-(-n // T) * T for n in (L.M, L.N, L.K)) if outside else (L.M, L.N, L.K)
    mw = window(ext[0], by * T, T, cells)
    nw = window(ext[1], bx * T, T, cells)
    kwins = np.array([window(ext[2], int(t) * T, T, cells) for t in phases], np.int32)
    arrays["kwin"] = kwins
    arrays["k_tile"] = np.stack([phases * T, np.minimum(ext[2], phases * T + T)], 1).astype(np.int32)
    a_panel = (by * T, min(ext[0], by * T + T))  # rows of A (and C) this block covers
    b_panel = (bx * T, min(ext[1], bx * T + T))  # columns of B (and C)
    # C window: the (block x, block y, thread) that owns each cell (scatter of model.c_index).
    gx, gy = L.grid
    owner = np.full((mw[1] - mw[0], nw[1] - nw[0], 3), -1, np.int32)
    for oby in range(mw[0] // T, -(-mw[1] // T)):
        for obx in range(nw[0] // T, -(-nw[1] // T)):
            if obx >= gx or oby >= gy:
                continue
            rr, cc = L.c_index(obx, oby, tx, ty)
            inside = (rr >= mw[0]) & (rr < mw[1]) & (cc >= nw[0]) & (cc < nw[1])
            owner[rr[inside] - mw[0], cc[inside] - nw[0]] = np.stack(
                [np.full(inside.sum(), obx), np.full(inside.sum(), oby), np.arange(T * T)[inside]], 1)
    arrays["c_owner"] = owner
    # Tile boundaries (global) inside the windows, for the grid lines.
    klo, khi = int(kwins[:, 0].min()), int(kwins[:, 1].max())
    lines = {ax: [v for v in range(-(-lo // T) * T, hi + 1, T)] for ax, (lo, hi) in
             (("m", mw), ("n", nw), ("k", (klo, khi)))}
    drawn = {ax: (len(v) <= 100) for ax, v in lines.items()}
    small_a = (mw[1] - mw[0]) <= TEXT_MAX and ext[2] <= TEXT_MAX
    small_b = (nw[1] - nw[0]) <= TEXT_MAX and ext[2] <= TEXT_MAX
    # Values of the window's elements (none past a matrix's edge: the view leaves those cells blank).
    m_in, n_in = (min(mw[1], L.M) - mw[0]), (min(nw[1], L.N) - nw[0])
    if small_a:
        a_text = np.zeros((mw[1] - mw[0], ext[2]), np.int8)
        a_text[:m_in, :L.K] = A[mw[0]:mw[0] + m_in, 0:L.K]
        arrays["a_text"] = a_text
    if small_b:
        b_text = np.zeros((ext[2], nw[1] - nw[0]), np.int8)
        b_text[:L.K, :n_in] = B[0:L.K, nw[0]:nw[0] + n_in]
        arrays["b_text"] = b_text
    if (mw[1] - mw[0]) <= TEXT_MAX and (nw[1] - nw[0]) <= TEXT_MAX:
        C = np.zeros((mw[1] - mw[0], nw[1] - nw[0]), np.int64)
        C[:m_in, :n_in] = A[mw[0]:mw[0] + m_in].astype(np.int64) @ B[:, nw[0]:nw[0] + n_in].astype(np.int64)
        arrays["c_text"] = C.astype(np.float64 if big else np.int32)

    def clip(lo, hi, n):
        return "" if (lo == 0 and hi == n) else _(" (showing {lo}..{last} of {n})", lo=lo, last=hi - 1, n=n)

    warps = -(-T * T // 32)
    meta = {
        "kernel": L.kernel, "file": KERNELS[L.kernel],
        "M": L.M, "N": L.N, "K": L.K, "T": T, "P": P, "p0": ch.p0, "p1": ch.p1, "pbase": pbase,
        "grid": list(L.grid), "block": [bx, by], "steps": meta_steps,
        "where": _("block (x={bx}, y={by})", bx=bx, by=by),
        "kinds": list(STEP_KINDS),
        "words": {kind: _(text) for kind, text in STEP_WORDS.items()},
        "phase_text": [phase_label(int(t), P) for t in phases],
        "hold_text": [phase_label(int(t), P) for t in phases],
        "k_text": [f" ({count_label('k', k, T)})" for k in range(T)],
        "loop_text": _loop_text(T),
        "store_text": _store_text(),
        "mwin": list(mw), "nwin": list(nw),
        "a_panel": list(a_panel), "b_panel": list(b_panel),
        "lines": {ax: v if drawn[ax] else [] for ax, v in lines.items()},
        "title_global": _("Global memory · A is {M}×{K}, B is {K}×{N}, C is {M}×{N}", M=L.M, N=L.N, K=L.K),
        "title_k": [_("A: column k") + clip(int(lo), int(hi), ext[2]) for lo, hi in kwins],
        "title_m": _("A / C: row") + clip(*mw, ext[0]),
        "title_n": _("B / C: column") + clip(*nw, ext[1]),
        # where A, B and C end inside the drawn tiles (a dark line; past it, white: outside)
        "edges": {"m": L.M, "n": L.N, "k": L.K} if outside else None,
        # (the front end splits it at " · ": the block, then its threads)
        "title_shared": _("Shared memory of block (x={bx}, y={by}) · its {n} threads ({warps})", bx=bx, by=by, n=T * T,
                          warps=_("{n} warps", n=warps) if warps > 1 else _("{n} warp", n=warps)),
        "label_all": T <= 8,  # names fit in every As / Bs cell
        "thread_text": T <= 16,
        "palette": PALETTE,
        "colours": {"IDLE": IDLE, "PANEL": PANEL, "TILE": TILE, "ACTIVE": ACTIVE, "PINNED": PINNED,
                    "PADDING": PADDING, "STORED": STORED, "STALE": STALE, "HAZARD": HAZARD, "WAITING": WAITING, "OUTSIDE": OUTSIDE},
        "legend": [[c, _(t)] for c, t in LEGEND] + ([[OUTSIDE, _("outside A, B or C (past the dark line)")]] if outside else []),
        "code": [[no, text, kind] for no, text, kind in source_lines(KERNELS[L.kernel])],
        "summary": summary_html(L),
        "exercise": index_exercise() if exercise else None,
        "thread_range": _("threadIdx.x and threadIdx.y must be 0..{last}", last=T - 1),
        "block_range": _("blockIdx.x must be 0..{xlast} and blockIdx.y 0..{ylast}", xlast=gx - 1, ylast=gy - 1),
    }
    return meta, arrays


#: Names a blank of the exercise may use: the kernel's built-ins and parameters, then what the
#: kernel has defined by that line (row and col; the phase t; the step k of the compute loop).
_BUILTINS = KERNEL_NAMES + ["tx", "ty", "TILE"]


def index_exercise() -> dict:
    """The "Your turn" panel of page 02 (``views/yourturn.js``): kernel 03's index lines with the
    indices blank. ``answers`` are the kernel's own expressions (kernels/03_tiled.cu); the
    browser checks what a student types against the model's arrays, not against these strings."""
    blanks = {  # id: (label, names it may use, the kernel's expression)
        "row": ("row", _BUILTINS, "blockIdx.y * TILE + threadIdx.y"),
        "col": ("col", _BUILTINS, "blockIdx.x * TILE + threadIdx.x"),
        "a_r": (_("A's row"), _BUILTINS + ["row", "col", "t"], "row"),
        "a_c": (_("A's column"), _BUILTINS + ["row", "col", "t"], "t * TILE + threadIdx.x"),
        "b_r": (_("B's row"), _BUILTINS + ["row", "col", "t"], "t * TILE + threadIdx.y"),
        "b_c": (_("B's column"), _BUILTINS + ["row", "col", "t"], "col"),
        "as_r": (_("As row"), _BUILTINS + ["row", "col", "t", "k"], "threadIdx.y"),
        "as_c": (_("As column"), _BUILTINS + ["row", "col", "t", "k"], "k"),
        "bs_r": (_("Bs row"), _BUILTINS + ["row", "col", "t", "k"], "k"),
        "bs_c": (_("Bs column"), _BUILTINS + ["row", "col", "t", "k"], "threadIdx.x"),
    }

    def b(i, width=26):
        return {"id": i, "label": blanks[i][0], "width": width}

    return {
        "title": _("Your turn: write the tiled kernel's indices"),
        "intro": _("Fill in each blank with a C expression over blockIdx, threadIdx, blockDim, TILE, M, N, K "
                   "(and row, col, t, k where the kernel has them), then Check: your indices are evaluated for "
                   "every thread of this block, in every phase, and compared with the kernel's. Enter checks too."),
        "lines": [
            ["const int row = ", b("row", 34), ";"],
            ["const int col = ", b("col", 34), ";"],
            ["for (int t = 0; t < phases; ++t) {"],
            ["    As[ty][tx] = A[ ", b("a_r", 22), " ][ ", b("a_c", 22), " ];   // a padding zero past A's edge"],
            ["    Bs[ty][tx] = B[ ", b("b_r", 22), " ][ ", b("b_c", 22), " ];   // a padding zero past B's edge"],
            ["    __syncthreads();"],
            ["    for (int k = 0; k < TILE; ++k)"],
            ["        sum += As[ ", b("as_r", 14), " ][ ", b("as_c", 14), " ] * Bs[ ", b("bs_r", 14), " ][ ", b("bs_c", 14), " ];"],
            ["    __syncthreads();"],
            ["}"],
        ],
        "labels": {i: v[0] for i, v in blanks.items()},
        "names": {i: v[1] for i, v in blanks.items()},
        "answers": {i: v[2] for i, v in blanks.items()},
    }


def summary_html(L: Launch) -> str:
    st = L.stats()
    naive = Launch("naive", L.M, L.N, L.K, L.T).stats()
    T = L.T
    return (
        '<div style="font-size:13px;line-height:1.5">'
        + _("<b>Data reuse.</b> Each element copied into As is read by the {T} threads of its row, and each "
            "element of Bs by the {T} threads of its column: {T} multiply-adds per shared load. "
            "Global loads for this launch: naive {naive}, tiled {tiled} ({ratio}× fewer); "
            "FLOP per byte of DRAM traffic {fb_naive} → {fb_tiled} (a bound that ignores caches). "
            "Grid {gx}×{gy} blocks of {T}×{T} threads, {phases} phases, {barriers} barriers per block, "
            "{padding} padding zeros stored, {ghosts} threads outside C.",
            T=T, naive=f"{naive['global_loads']:,}", tiled=f"{st['global_loads']:,}",
            ratio=f"{naive['global_loads'] / st['global_loads']:.1f}", fb_naive=f"{naive['flop_per_byte']:.2f}",
            fb_tiled=f"{st['flop_per_byte']:.2f}", gx=L.grid[0], gy=L.grid[1], phases=L.phases,
            barriers=L.barriers_per_block, padding=f"{st['padding_loads']:,}", ghosts=f"{st['ghost_threads']:,}")
        + "</div>"
    )


def tiled_payload(L: Launch, block, thread=(0, 0), phase: int = 0, **kw) -> tuple[dict, bytes]:
    """:func:`tiled_data`, packed for the browser: ``(meta with the array index, buffer)``."""
    meta, arrays = tiled_data(L, block, thread, phase, **kw)
    index, buf = pack(narrow(arrays))
    meta["arrays"] = index
    return meta, buf


def static_store(kernels, launches, initial, budget: int = STATIC_BUDGET, **kw) -> dict:
    """What an exported page embeds for one stepper (:func:`explainer.views.store.static_store`).
    Launches too long for one payload (see :data:`CHUNK_BUDGET`) are left to the live app.
    ``kw`` goes to :func:`tiled_data` (window, ghosts)."""

    def payload(kernel, L, block, thread):
        meta, buf = tiled_payload(L, block, thread, 0, **kw)
        whole = all(meta["steps"][m]["s1"] == meta["steps"][m]["total"] for m in MODES)
        return (meta, buf) if whole or state_key(kernel, L, block) == state_key(*initial[:3]) else None

    return _static_store(payload, kernels, launches, initial, budget)


class TiledView(BrowserView):
    """The stepper's front end (``common.js`` + ``present.js`` + ``tiled.js``);
    :class:`explainer.views.stepper.TiledStepper` fills it."""

    NAME = "tiled"
    FRONT_END = ("common.js", "present.js", "yourturn.js", "tiled.js")
    _esm = resources.front_end(*FRONT_END)


__all__ = ["TiledView", "static_store", "state_key", "STATIC_BUDGET", "tiled_data", "tiled_payload", "step_label", "chunk_of", "phase_of_step", "CHUNK_BUDGET"]
