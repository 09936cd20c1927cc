"""V1 and V2 of the sliding-window write-up stepped side by side, one launch, one block.

V1 (``kernels/02b_strip.cu``) and V2 (``kernels/03_tiled.cu``) run the same loop over K in steps of
T: in iteration t, thread (tx, ty) copies A[row][t*T + tx] and B[t*T + ty][col]. V1 keeps what it
copied: the element goes to column t*T + tx of its T x K strip ``As`` (row t*T + ty of the K x T
strip ``Bs``), so after the last iteration the block holds both strips whole, waits at ONE barrier
and takes every K-long dot product. V2 overwrites: the element goes to ``As[ty][tx]`` of a T x T
window, and the block must wait twice per iteration (the window full; everyone done with it) and
multiply as it goes. The global loads are the same elements in the same order; only what shared
memory holds, and the barriers, differ.

:func:`strip_sources` gives V1's strips (global index of every cell, or a padding zero);
:func:`side_by_side` the steps both kernels take on a common timeline (one step per iteration of
the loop, then V1's compute and the store) with what each holds, what the pinned thread did and
the running counts. V2's windows come from :func:`explainer.model.launch.schedule` (the model
the tiled stepper draws), V1's are derived here; the tests hold V1's against the simulator
running ``kernels/02b_strip.cu`` and both against a direct loop.
"""

from __future__ import annotations

import numpy as np

from ..i18n import _
from .launch import FLOAT_BYTES, PAD, Launch, LaunchError, schedule

#: The largest K the side-by-side view draws (T x K cells per strip); the table covers any K.
MAX_DRAWN_K = 64
#: A cell not written yet (a strip is allocated whole at launch, filled as the loop runs).
EMPTY = -2


def _launch(M: int, N: int, K: int, T: int) -> Launch:
    L = Launch("tiled", M, N, K, T)
    if K > MAX_DRAWN_K:
        raise LaunchError(_("K = {K}: the side-by-side view draws strips of at most K = {most} columns (the table "
                            "above covers any K)", K=K, most=MAX_DRAWN_K))
    return L


def strip_sources(M: int, N: int, K: int, T: int, block: tuple[int, int] = (0, 0)) -> dict:
    """V1's strips of block ``(bx, by)`` after the load loop: ``a`` (T, K) and ``b`` (K, T), each the
    linear index of the global element the cell holds (``row * cols + col``) or ``PAD`` (a padding
    zero), and ``t`` of each cell: the loop iteration that writes it (``k // T``)."""
    Launch("tiled", M, N, K, T)  # checks the launch
    bx, by = (int(v) for v in block)
    rows = by * T + np.arange(T)[:, None]  # (T, 1)
    ks = np.arange(K)[None, :]  # (1, K)
    a = np.where(rows < M, rows * K + ks, PAD)
    cols = bx * T + np.arange(T)[None, :]
    kk = np.arange(K)[:, None]
    b = np.where(cols < N, kk * N + cols, PAD)
    return {"a": a.astype(np.int64), "b": b.astype(np.int64), "t_a": np.broadcast_to(ks // T, (T, K)).copy(),
            "t_b": np.broadcast_to(kk // T, (K, T)).copy()}


def side_by_side(M: int, N: int, K: int, T: int, block: tuple[int, int] = (0, 0),
                 thread: tuple[int, int] = (0, 0)) -> dict:
    """The common timeline of V1 and V2 for block ``(bx, by)``, thread ``(tx, ty)`` pinned.

    Steps: ``index``; one ``loop`` step per iteration t (V1 copies into its strips; V2 copies into
    its window, waits, multiplies T times, waits); ``compute`` (V1's barrier and K multiply-adds;
    V2 has finished); ``store``. Each step gives, per kernel, the state of shared memory after it
    (``as``/``bs``: global index, ``PAD`` or ``EMPTY`` per cell), the cells the pinned thread
    wrote and read in it, and the counts so far (global loads of the block, barriers, multiply-adds
    of the pinned thread, shared bytes allocated and filled)."""
    L = _launch(M, N, K, T)
    bx, by = (int(v) for v in block)
    tx, ty = (int(v) for v in thread)
    L.check_block(bx, by)
    L.check_thread(tx, ty)
    P = L.phases
    S = schedule(L)
    strips = strip_sources(M, N, K, T, (bx, by))
    # V2's window per phase, as linear global indices (PAD outside A or B)
    w_a = np.where(S.a_row[by, bx] >= 0, S.a_row[by, bx] * K + S.a_col[by, bx], PAD)  # (P, T, T)
    w_b = np.where(S.b_row[by, bx] >= 0, S.b_row[by, bx] * N + S.b_col[by, bx], PAD)
    real_a = (strips["a"] != PAD)  # a strip cell read from A (not a padding zero)
    real_b = (strips["b"] != PAD)
    row, col = by * T + ty, bx * T + tx
    inside = row < M and col < N

    v1_as = np.full((T, K), EMPTY, np.int64)
    v1_bs = np.full((K, T), EMPTY, np.int64)
    steps = []
    loads = 0
    v2_barriers = 0

    def state(kind, **kw):
        return {"kind": kind, **kw}

    steps.append(state("index", t=None,
                       v1={"as": v1_as.copy(), "bs": v1_bs.copy(), "wrote": [], "read_row": None, "read_col": None,
                           "barriers": 0, "fma": 0, "filled_bytes": 0},
                       v2={"as": np.full((T, T), EMPTY, np.int64), "bs": np.full((T, T), EMPTY, np.int64),
                           "wrote": [], "read_row": None, "read_col": None, "barriers": 0, "fma": 0},
                       loads=0))
    for t in range(P):
        cols = slice(t * T, min(K, (t + 1) * T))
        v1_as[:, cols] = strips["a"][:, cols]
        v1_bs[cols, :] = strips["b"][cols, :]
        loads += int(real_a[:, cols].sum() + real_b[cols, :].sum())
        v2_barriers += 2
        wrote1 = []
        if t * T + tx < K:
            wrote1.append(("as", ty, t * T + tx))
        if t * T + ty < K:
            wrote1.append(("bs", t * T + ty, tx))
        filled = int(2 * T * min(K, (t + 1) * T) * FLOAT_BYTES)
        steps.append(state("loop", t=t, loads=loads,
                           v1={"as": v1_as.copy(), "bs": v1_bs.copy(), "wrote": wrote1, "read_row": None,
                               "read_col": None, "barriers": 0, "fma": 0, "filled_bytes": filled},
                           v2={"as": w_a[t].copy(), "bs": w_b[t].copy(), "wrote": [("as", ty, tx), ("bs", ty, tx)],
                               "read_row": ty, "read_col": tx, "barriers": v2_barriers, "fma": (t + 1) * T}))
    last_a, last_b = w_a[P - 1].copy(), w_b[P - 1].copy()
    steps.append(state("compute", t=None, loads=loads,
                       v1={"as": v1_as.copy(), "bs": v1_bs.copy(), "wrote": [], "read_row": ty, "read_col": tx,
                           "barriers": 1, "fma": K, "filled_bytes": 2 * T * K * FLOAT_BYTES},
                       v2={"as": last_a, "bs": last_b, "wrote": [], "read_row": None, "read_col": None,
                           "barriers": v2_barriers, "fma": P * T}))
    steps.append(state("store", t=None, loads=loads, stores=inside,
                       v1={**steps[-1]["v1"], "read_row": None, "read_col": None},
                       v2={**steps[-1]["v2"]}))
    return {
        "M": M, "N": N, "K": K, "T": T, "block": (bx, by), "thread": (tx, ty), "phases": P,
        "row": row, "col": col, "inside": inside,
        "v1_bytes": 2 * T * K * FLOAT_BYTES, "v2_bytes": 2 * T * T * FLOAT_BYTES,
        "steps": steps,
    }
