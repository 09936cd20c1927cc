"""What a simulated launch did, in the terms the steppers draw: the trace.

Columns (numpy arrays of one length per table), threads and blocks by linear id as in CUDA:
``block = blockIdx.y * gridDim.x + blockIdx.x``, ``thread = threadIdx.x + threadIdx.y * blockDim.x``.

``shared``: one row per store into a ``__shared__`` array, in program order:
    block, thread, phase, array (index into ``arrays``), cell (flat, row-major in the array),
    matrix (1 A, 2 B, 3 C; 0 a constant such as the padding zero; -1 a computed value),
    index (the linear index in that matrix, ``row * cols + col``; -1 for a constant or computed
    value; an out-of-bounds load keeps the index it tried), line.
``c``: one row per store into C: block, thread, phase, index (linear in C; a store outside C,
    which the simulator reports and skips, keeps the index it tried), line.
``reads`` (only where the launch was run with ``reads_for``, else empty): one row per read of a
    ``__shared__`` cell, in program order: block, thread, phase, array, cell, line, and ``nth``:
    how many reads of that array the thread made before it in that phase (in the tiled kernel's
    compute loop, ``nth`` is ``k``: the k-th read of As is ``As[ty][k]``).

``phase`` counts the iterations of the kernel's phase loop (the outermost loop holding a
``__syncthreads()`` or a store into shared memory: ``for t`` in the tiled kernels), from 0; a
kernel without one (the naive kernels) has ``phases = None`` and phase 0 everywhere.

:meth:`Trace.shared_sources` and :meth:`Trace.c_targets` give the dense arrays
``explainer.model.schedule`` has (``[by, bx, t, row, col]`` and ``[by, bx, ty, tx]``), so the two
compare element by element; -2 marks a cell or thread with no store (as the GPU trace build does).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .values import CONST, MATRIX_SHIFT

NEVER = -2  # no store (the GPU trace build's "never written")

SHARED_COLUMNS = ("block", "thread", "phase", "array", "cell", "matrix", "index", "line")
C_COLUMNS = ("block", "thread", "phase", "index", "line")
READ_COLUMNS = ("block", "thread", "phase", "array", "cell", "line", "nth")


def _concat(chunks, columns, conv):
    if not chunks:
        return {c: np.zeros(0, np.int64) for c in columns}
    out = {}
    for c in columns:
        out[c] = np.concatenate([np.asarray(conv(ch, c), np.int64) for ch in chunks])
    return out


@dataclass
class Trace:
    M: int
    N: int
    K: int
    tile: int
    grid: tuple[int, int]
    arrays: dict[str, tuple]  # shared array name -> dims
    phases: int | None
    shared: dict = field(default_factory=dict)
    c: dict = field(default_factory=dict)
    reads: dict = field(default_factory=dict)

    @classmethod
    def from_recorder(cls, launch, rec, prog) -> "Trace":
        arrays = {m.name: tuple(m.dims) for m in prog.shared}
        names = list(arrays)

        def sh(ch, col):
            n = len(ch["block"])
            if col == "array":
                return np.full(n, names.index(ch["memory"]))
            if col == "line":
                return np.full(n, ch["line"])
            if col in ("matrix", "index"):
                src = ch["src"]
                known = src >= 0
                if col == "matrix":
                    return np.where(known, src >> MATRIX_SHIFT, np.where(src == CONST, 0, -1))
                return np.where(known, src & ((1 << MATRIX_SHIFT) - 1), -1)
            return ch[col]

        def cc(ch, col):
            return np.full(len(ch["block"]), ch["line"]) if col == "line" else ch[col]

        def rd(ch, col):  # a read's columns are a store's, less the source, plus nth (filled below)
            return np.zeros(len(ch["block"])) if col == "nth" else sh(ch, col)

        shared = _concat(rec.shared_chunks, SHARED_COLUMNS, sh)
        c = _concat(rec.c_chunks, C_COLUMNS, cc)
        reads = _concat(getattr(rec, "read_chunks", []), READ_COLUMNS, rd)
        reads["nth"] = _ordinal(reads["block"], reads["thread"], reads["phase"], reads["array"])
        phases = None
        if prog.has_phase:
            phases = int(shared["phase"].max()) + 1 if shared["phase"].size else 0
        return cls(launch.M, launch.N, launch.K, launch.tile, launch.grid, arrays, phases, shared, c, reads)

    # ---- dense views ------------------------------------------------------------------------
    def shared_sources(self, name: str) -> dict[str, np.ndarray]:
        """For array ``name``: ``matrix``, ``index`` and ``thread`` of the last store into each
        cell in each phase, as arrays ``[by, bx, t, *dims]`` (``NEVER`` where nobody stored)."""
        dims = self.arrays[name]
        gx, gy = self.grid
        P = max(self.phases or 0, 1)
        size = int(np.prod(dims))
        sel = self.shared["array"] == list(self.arrays).index(name)
        b, ph, cell = self.shared["block"][sel], self.shared["phase"][sel], self.shared["cell"][sel]
        keep = ph < P
        flat = ((b[keep] * P + ph[keep]) * size + cell[keep])
        out = {}
        for col in ("matrix", "index", "thread"):
            arr = np.full(gx * gy * P * size, NEVER, np.int64)
            arr[flat] = self.shared[col][sel][keep]  # in program order: the last store wins
            out[col] = arr.reshape((gy, gx, P) + tuple(dims))
        return out

    def read_cells(self, name: str, block: tuple[int, int]) -> np.ndarray:
        """For array ``name`` and block ``(bx, by)``: ``[t, thread, n]``, the flat cell of the n-th
        read each thread made of the array in phase t (``NEVER`` past its last read); empty when
        the run kept no reads."""
        gx, _ = self.grid
        bx, by = block
        P = max(self.phases or 0, 1)
        T = self.tile
        r = self.reads
        if not r or not r["block"].size:
            return np.full((P, T * T, 0), NEVER, np.int64)
        sel = (r["array"] == list(self.arrays).index(name)) & (r["block"] == by * gx + bx) & (r["phase"] < P)
        n = int(r["nth"][sel].max()) + 1 if sel.any() else 0
        out = np.full((P, T * T, n), NEVER, np.int64)
        out[r["phase"][sel], r["thread"][sel], r["nth"][sel]] = r["cell"][sel]
        return out

    def c_targets(self) -> np.ndarray:
        """``[by, bx, ty, tx]``: the linear index of the C element each thread stored last
        (``NEVER`` for a thread that stored none)."""
        gx, gy = self.grid
        T = self.tile
        arr = np.full(gx * gy * T * T, NEVER, np.int64)
        arr[self.c["block"] * T * T + self.c["thread"]] = self.c["index"]
        return arr.reshape(gy, gx, T, T)

    def to_dict(self) -> dict:
        return {"M": self.M, "N": self.N, "K": self.K, "tile": self.tile, "grid": list(self.grid),
                "arrays": {k: list(v) for k, v in self.arrays.items()}, "phases": self.phases,
                "shared": {k: v.tolist() for k, v in self.shared.items()},
                "c": {k: v.tolist() for k, v in self.c.items()},
                "reads": {k: v.tolist() for k, v in self.reads.items()}}


def _ordinal(*keys) -> np.ndarray:
    """For rows in program order: how many earlier rows share all of ``keys`` (0 for the first)."""
    if not keys[0].size:
        return np.zeros(0, np.int64)
    order = np.lexsort(keys[::-1])  # stable: program order within a group
    ks = np.stack([k[order] for k in keys])
    start = np.ones(order.size, bool)
    start[1:] = (ks[:, 1:] != ks[:, :-1]).any(axis=0)
    idx = np.arange(order.size)
    first = np.maximum.accumulate(np.where(start, idx, 0))
    out = np.empty(order.size, np.int64)
    out[order] = idx - first
    return out


__all__ = ["Trace", "NEVER", "SHARED_COLUMNS", "C_COLUMNS", "READ_COLUMNS"]
