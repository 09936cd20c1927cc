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

        shared = _concat(rec.shared_chunks, SHARED_COLUMNS, sh)
        c = _concat(rec.c_chunks, C_COLUMNS, cc)
        phases = None
        if prog.has_phase:
            phases = int(shared["phase"].max()) + 1 if shared["phase"].size else 0
        return cls(launch.M, launch.N, launch.K, launch.tile, launch.grid, arrays, phases, shared, c)

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
                "c": {k: v.tolist() for k, v in self.c.items()}}


__all__ = ["Trace", "NEVER", "SHARED_COLUMNS", "C_COLUMNS"]
