"""Kernel 03b (``kernels/03b_tiled_rect.cu``): the tiled kernel with a TILE_X x TILE_Y block.

The block is ``blockDim = (TX, TY)`` threads and computes a TY x TX tile of C (thread (tx, ty)
owns ``C[by*TY + ty][bx*TX + tx]``, as in kernel 03 and the naive kernel). K is cut into
phases of ``BK = lcm(TX, TY)`` columns, the smallest width that lets every thread copy a whole
number of elements of each window:

* ``As`` is TY x BK floats (rows ``by*TY ..`` of A, columns ``t*BK ..``): ``BK / TX`` per thread;
* ``Bs`` is BK x TX floats (rows ``t*BK ..`` of B, columns ``bx*TX ..``): ``BK / TY`` per thread.

Thread ``tid = tx + ty*TX`` copies the window elements ``e = tid, tid + TX*TY, ...`` in row-major
order of the window (``As[e / BK][e % BK]``, ``Bs[e / TX][e % TX]``): consecutive lanes copy
consecutive floats of one row of A or B, so every copy is coalesced. Outside A or B a copy stores a
padding zero. A square block (TX = TY = T) gives BK = T and one copy each: kernel 03 exactly.

Its trace (``-DEXPLAINER_TRACE``, ``kernels/common.cuh``) records by shared cell:
``trace_a[(block * phases + t) * (TY*BK) + e] = r * K + c`` (or -1), likewise ``trace_b`` with
``BK*TX`` cells, and ``trace_c`` by thread, as kernel 03.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import gcd

import numpy as np

from ..i18n import _
from .launch import FLOAT_BYTES, MAX_THREADS_PER_BLOCK, PAD, LaunchError, as_count, ceil_div

NEVER = -2  # a trace slot nobody writes


@dataclass(frozen=True)
class RectTile:
    """One instantiation ``tiled_rect_gemm<TX, TY>`` of kernel 03b."""

    TX: int
    TY: int

    def __post_init__(self):
        as_count("TILE_X", self.TX)
        as_count("TILE_Y", self.TY)
        if self.TX * self.TY > MAX_THREADS_PER_BLOCK:
            raise LaunchError(_("a {TX}x{TY} block has {threads} threads; CUDA allows at most {max}", TX=self.TX,
                                TY=self.TY, threads=self.TX * self.TY, max=MAX_THREADS_PER_BLOCK))

    @property
    def BK(self) -> int:
        """The K width of a phase: lcm(TX, TY) (the kernel's ``RECT_BK``)."""
        return self.TX * self.TY // gcd(self.TX, self.TY)

    @property
    def threads(self) -> int:
        return self.TX * self.TY

    @property
    def name(self) -> str:
        return f"tiled_rect_{self.TX}x{self.TY}"

    @property
    def expression(self) -> str:
        return f"tiled_rect_gemm<{self.TX}, {self.TY}>"

    @property
    def a_copies(self) -> int:
        """Elements of A each thread copies per phase (BK / TX)."""
        return self.BK // self.TX

    @property
    def b_copies(self) -> int:
        """Elements of B each thread copies per phase (BK / TY)."""
        return self.BK // self.TY

    @property
    def cells_a(self) -> int:
        return self.TY * self.BK

    @property
    def cells_b(self) -> int:
        return self.BK * self.TX

    @property
    def shared_bytes(self) -> int:
        return (self.cells_a + self.cells_b) * FLOAT_BYTES

    def grid(self, M: int, N: int) -> tuple[int, int]:
        """``(ceil(N / TX), ceil(M / TY))``: one block per TY x TX tile of C."""
        return ceil_div(N, self.TX), ceil_div(M, self.TY)

    def phases(self, K: int) -> int:
        return ceil_div(K, self.BK)

    def global_loads(self, M: int, N: int, K: int) -> int:
        """Elements read from global memory by the whole launch (padding zeros excluded): each
        element of A once per block column, each of B once per block row."""
        gx, gy = self.grid(M, N)
        return gx * M * K + gy * K * N

    def flop_per_byte(self, M: int, N: int, K: int) -> float:
        """2*M*N*K over the bytes of :meth:`global_loads` (DRAM traffic, no caches)."""
        return 2 * M * N * K / (FLOAT_BYTES * self.global_loads(M, N, K))

    # ---- who copies what -----------------------------------------------------------------
    def copies_a(self):
        """``(tid, i) -> (row, col)`` of As: arrays indexed ``[tid, i]``, i the copy loop's step."""
        e = np.arange(self.threads)[:, None] + self.threads * np.arange(self.a_copies)[None, :]
        return e // self.BK, e % self.BK

    def copies_b(self):
        """``(tid, i) -> (row, col)`` of Bs, indexed ``[tid, i]``."""
        e = np.arange(self.threads)[:, None] + self.threads * np.arange(self.b_copies)[None, :]
        return e // self.TX, e % self.TX

    def a_source(self, M: int, K: int, by, t, r, c):
        """The element of A that As[r][c] holds in phase t of block row ``by``, or (-1, -1): a
        padding zero past A's edge."""
        row, col = by * self.TY + r, t * self.BK + c
        ok = (row < M) & (col < K)
        return np.where(ok, row, PAD), np.where(ok, col, PAD)

    def b_source(self, K: int, N: int, bx, t, r, c):
        """The element of B that Bs[r][c] holds in phase t of block column ``bx``, or (-1, -1)."""
        row, col = t * self.BK + r, bx * self.TX + c
        ok = (row < K) & (col < N)
        return np.where(ok, row, PAD), np.where(ok, col, PAD)

    def thread_loads(self, M: int, N: int, K: int, block, thread, t: int) -> dict:
        """What thread (tx, ty) of ``block`` copies in phase t: per copy of A and of B the shared
        cell and the global element (``None``: a padding zero)."""
        bx, by = (int(v) for v in block)
        tx, ty = (int(v) for v in thread)
        gx, gy = self.grid(M, N)
        if not (0 <= bx < gx and 0 <= by < gy):
            raise LaunchError(_("block (x={bx}, y={by}) is outside the {gx}x{gy} grid", bx=bx, by=by, gx=gx, gy=gy))
        if not (0 <= tx < self.TX and 0 <= ty < self.TY):
            raise LaunchError(_("thread (x={tx}, y={ty}) is outside the {TX}x{TY} block", tx=tx, ty=ty, TX=self.TX,
                                TY=self.TY))
        if not 0 <= t < self.phases(K):
            raise LaunchError(_("phase t must be 0..{last}, got {t}", last=self.phases(K) - 1, t=t))
        tid = tx + ty * self.TX
        out = {"a": [], "b": []}
        ar, ac = self.copies_a()
        for r, c in zip(ar[tid], ac[tid]):
            sr, sc = self.a_source(M, K, by, t, r, c)
            out["a"].append({"as": [int(r), int(c)], "a": None if sr == PAD else [int(sr), int(sc)]})
        br, bc = self.copies_b()
        for r, c in zip(br[tid], bc[tid]):
            sr, sc = self.b_source(K, N, bx, t, r, c)
            out["b"].append({"bs": [int(r), int(c)], "b": None if sr == PAD else [int(sr), int(sc)]})
        return out

    def predict_trace(self, M: int, N: int, K: int) -> dict:
        """What the trace build records: ``a`` ``[by, bx, t, cell]`` (r*K + c or -1), ``b`` likewise
        with r*N + c, ``c`` ``[by, bx, ty, tx]`` (row*N + col, or -2 for a thread outside C)."""
        gx, gy = self.grid(M, N)
        P = self.phases(K)
        by = np.arange(gy).reshape(gy, 1, 1, 1)
        bx = np.arange(gx).reshape(1, gx, 1, 1)
        t = np.arange(P).reshape(1, 1, P, 1)
        ea, eb = np.arange(self.cells_a), np.arange(self.cells_b)
        ar, ac = self.a_source(M, K, by, t, (ea // self.BK).reshape(1, 1, 1, -1), (ea % self.BK).reshape(1, 1, 1, -1))
        br, bc = self.b_source(K, N, bx, t, (eb // self.TX).reshape(1, 1, 1, -1), (eb % self.TX).reshape(1, 1, 1, -1))
        a = np.broadcast_to(np.where(ar >= 0, ar * K + ac, PAD), (gy, gx, P, self.cells_a))
        b = np.broadcast_to(np.where(br >= 0, br * N + bc, PAD), (gy, gx, P, self.cells_b))
        ty = np.arange(self.TY).reshape(1, 1, -1, 1)
        tx = np.arange(self.TX).reshape(1, 1, 1, -1)
        row, col = by * self.TY + ty, bx * self.TX + tx
        c = np.where((row < M) & (col < N), row * N + col, NEVER)
        return {"a": np.ascontiguousarray(a), "b": np.ascontiguousarray(b),
                "c": np.ascontiguousarray(np.broadcast_to(c, (gy, gx, self.TY, self.TX)))}

    def replay(self, A: np.ndarray, B: np.ndarray) -> np.ndarray:
        """Run the kernel phase by phase from the copies above (float64, NaN where no thread
        stores): each thread fills its cells of As / Bs, then ``sum += As[ty][k] * Bs[k][tx]``."""
        A, B = np.asarray(A, np.float64), np.asarray(B, np.float64)
        M, K = A.shape
        N = B.shape[1]
        gx, gy = self.grid(M, N)
        C = np.full((M, N), np.nan)
        ar, ac = (v.ravel() for v in self.copies_a())
        br, bc = (v.ravel() for v in self.copies_b())
        for by in range(gy):
            for bx in range(gx):
                acc = np.zeros((self.TY, self.TX))
                for t in range(self.phases(K)):
                    As = np.full((self.TY, self.BK), np.nan)  # a cell nobody stores stays NaN
                    Bs = np.full((self.BK, self.TX), np.nan)
                    sr, sc = self.a_source(M, K, by, t, ar, ac)
                    As[ar, ac] = np.where(sr >= 0, A[np.maximum(sr, 0), np.maximum(sc, 0)], 0.0)
                    sr, sc = self.b_source(K, N, bx, t, br, bc)
                    Bs[br, bc] = np.where(sr >= 0, B[np.maximum(sr, 0), np.maximum(sc, 0)], 0.0)
                    acc += As @ Bs  # thread (tx, ty): sum over k of As[ty][k] * Bs[k][tx]
                r0, c0 = by * self.TY, bx * self.TX
                rows, cols = min(self.TY, M - r0), min(self.TX, N - c0)
                C[r0:r0 + rows, c0:c0 + cols] = acc[:rows, :cols]
        return C


#: The instantiations kernels/03b_tiled_rect.cu compiles (explainer.gpu runs each by name,
#: ``tiled_rect_32x8`` ...): wide and tall blocks of 256 threads, a 64 x 4 one, and a small 4 x 2
#: one whose every copy can be read on screen.
SHAPES = ((32, 8), (8, 32), (64, 4), (16, 4), (4, 2))
TILES = tuple(RectTile(x, y) for x, y in SHAPES)
BY_NAME = {r.name: r for r in TILES}
