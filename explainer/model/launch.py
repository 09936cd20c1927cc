"""The execution model: pure numpy, mirrors the kernels in ``kernels/`` index for index.

Every picture in the explainer is drawn from this module, and the GPU tests compare it with
what the real kernels recorded (``-DEXPLAINER_TRACE``), so the two cannot drift.

Conventions (CUDA's, spelled out because the course material mixes them):

* ``blockIdx = (x, y)``, ``threadIdx = (x, y)``; x is the column direction.
* A is M x K, B is K x N, C is M x N, all row-major.
* A block is T x T threads (``blockDim = (T, T)``); the grid is ``(ceil(N/T), ceil(M/T))``.
  The naive kernels also take a non-square block ``blockDim = (BX, BY)`` (``Launch.block_dim``,
  the lab report's tile_x x tile_y): ``naive`` then covers a BY x BX tile of C per block,
  ``naive_col`` (row from threadIdx.x) a BX x BY one, and the grid follows that tile.
* Linear thread id ``= tx + ty * blockDim.x``; warp ``= id // 32``, lane ``= id % 32``.
* ``As[ty][tx]``, ``Bs[ty][tx]``; phase index ``t`` (PMPP's ``ph``).

Two levels of answer:

* :class:`Launch` answers questions about single threads in O(phases) time, so a
  4096^3 launch is as cheap to ask about as a 4x4x4 one. It never materialises the launch.
* :func:`schedule` materialises the complete per-thread schedule of a launch (every load into
  ``As``/``Bs``, every C store) as dense numpy arrays, for drawing whole blocks and for the
  replay test. It is meant for launches up to about 128^3.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..i18n import _

#: Kernels the model describes, with the ``kernels/`` file each one mirrors.
KERNELS = {
    "naive": "01_naive.cu",
    "naive_col": "02_naive_col.cu",
    "tiled": "03_tiled.cu",
    # Teaching variants (pages 03 and 04): the tiled kernel with something removed.
    "tiled_unguarded": "06_tiled_unguarded.cu",  # PMPP fig. 5.9 as printed: no boundary checks
    "tiled_no_barrier1": "07_tiled_no_barrier1.cu",
    "tiled_no_barrier2": "08_tiled_no_barrier2.cu",
    "tiled_no_barriers": "09_tiled_no_barriers.cu",
}
#: The tiled kernels and which of the two ``__syncthreads()`` per phase each one keeps.
TILED_BARRIERS = {
    "tiled": (True, True),
    "tiled_unguarded": (True, True),
    "tiled_no_barrier1": (False, True),
    "tiled_no_barrier2": (True, False),
    "tiled_no_barriers": (False, False),
}
MAX_TILE = 32  # T*T <= 1024 threads per block on every CUDA GPU
MAX_THREADS_PER_BLOCK = 1024  # blockDim.x * blockDim.y on every CUDA GPU (and each of x, y at most 1024)
#: The kernels that take a non-square block (``Launch.block_dim``): no shared tile ties them to T x T.
NAIVE_KERNELS = ("naive", "naive_col")
WARP_SIZE = 32
FLOAT_BYTES = 4
#: The kernels index with 32-bit ``int``: every linear index must stay below 2^31.
MAX_INDEX = 2**31 - 1

PAD = -1  # marks a padding zero in load arrays


class LaunchError(ValueError):
    """A launch, block or thread that does not exist. The message is one readable line."""


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def padded_shape(M: int, N: int, K: int) -> tuple[int, int, int]:
    """The shape a padded launch runs (kernel 14's ``+pad``): N and K rounded up to a multiple of
    4, so that every row of A (K floats) and B (N floats) starts 16-byte aligned."""
    return M, ceil_div(N, 4) * 4, ceil_div(K, 4) * 4


# ---- launch geometry: the one place it is computed (Launch and gpu.launch_config use it) ----
def grid_dims(M: int, N: int, T: int) -> tuple[int, int]:
    """``gridDim = (x, y)`` for T x T blocks: x covers the N columns of C, y its M rows."""
    return ceil_div(N, T), ceil_div(M, T)


def phase_count(kernel: str, K: int, T: int) -> int:
    """Phases of a tiled kernel's K loop: ``ceil(K / T)``, or ``K / T`` rounded down for
    ``tiled_unguarded`` (PMPP fig. 5.9 as printed); 0 for the naive kernels."""
    if kernel not in TILED_BARRIERS:
        return 0
    return K // T if kernel == "tiled_unguarded" else ceil_div(K, T)


def count_label(name: str, i: int, n: int) -> str:
    """``name = i of 0..n-1``: how every label shows a loop counter (phase t, k, k-step, stage) to
    a student. Counted from 0 as in the kernel's loop, ``tiled-explainer trace`` and PMPP's ``ph``,
    so that the label's number can go straight into ``a_col = t*TILE + tx``."""
    return _("{name} = {i} of 0..{last}", name=name, i=i, last=n - 1)


def phase_label(t: int, phases: int) -> str:
    """``phase t = t of 0..phases-1`` (:func:`count_label` of the tile loop)."""
    return count_label(_("phase t"), t, phases)


def tile_bytes(kernel: str, T: int) -> int:
    """Shared memory per block: As and Bs, T x T floats each (0 for the naive kernels)."""
    return 2 * T * T * FLOAT_BYTES if kernel in TILED_BARRIERS else 0


def as_int(name: str, value) -> int:
    """``value`` as an int, or a one-line :class:`LaunchError` naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise LaunchError(_("{name} must be a whole number, got {value}", name=name, value=repr(value)))
    return int(value)


def as_count(name: str, value, lo: int = 1) -> int:
    """``value`` as an int of at least ``lo``, or a one-line :class:`LaunchError` naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < lo:
        raise LaunchError(_("{name} must be a whole number >= {lo}, got {value}", name=name, lo=lo, value=repr(value)))
    return int(value)


def block_dims(value) -> tuple[int, int]:
    """``(blockDim.x, blockDim.y)`` of a 2D block, checked: whole numbers >= 1, at most
    :data:`MAX_THREADS_PER_BLOCK` threads together; or a one-line :class:`LaunchError`."""
    try:
        bx, by = value
    except (TypeError, ValueError):
        raise LaunchError(_("a block shape is (blockDim.x, blockDim.y), got {value}", value=repr(value))) from None
    bx, by = as_int("blockDim.x", bx), as_int("blockDim.y", by)
    if bx < 1 or by < 1:
        raise LaunchError(_("blockDim.x and blockDim.y must be at least 1, got ({bx}, {by})", bx=bx, by=by))
    if bx * by > MAX_THREADS_PER_BLOCK:
        raise LaunchError(_("a {bx}x{by} block would have {threads} threads; CUDA allows at most {max} per block",
                            bx=bx, by=by, threads=bx * by, max=MAX_THREADS_PER_BLOCK))
    return bx, by


@dataclass(frozen=True)
class Launch:
    """One kernel launch: which kernel, the problem size and the tile (= block edge) T.

    ``block_dim = (BX, BY)``: a non-square block for the naive kernels (the lab report's
    tile_x x tile_y). A square one is stored as ``tile`` (``block_dim`` None), so both spellings
    of a T x T launch are one launch; a non-square one keeps ``tile = 0`` and has no single edge
    (:attr:`T` raises; read :attr:`BX`, :attr:`BY`)."""

    kernel: str
    M: int
    N: int
    K: int
    tile: int = 16
    block_dim: tuple[int, int] | None = None

    def __post_init__(self):
        if self.kernel not in KERNELS:
            raise LaunchError(_(
                "unknown kernel {kernel}; choose one of {names}", kernel=repr(self.kernel), names=', '.join(KERNELS)
            ))
        for name in ("M", "N", "K"):
            v = as_int(name, getattr(self, name))
            if v < 1:
                raise LaunchError(_("{name} must be at least 1, got {v}", name=name, v=v))
        if self.block_dim is not None:
            bx, by = block_dims(self.block_dim)
            if bx == by:  # square: the T x T launch itself
                object.__setattr__(self, "tile", bx)
                object.__setattr__(self, "block_dim", None)
            elif self.kernel not in NAIVE_KERNELS:
                raise LaunchError(_("{kernel} uses a T x T block (its shared tiles are T x T); only {first} and {second} "
                                    "take a non-square {bx}x{by} block", kernel=self.kernel, first=NAIVE_KERNELS[0],
                                    second=NAIVE_KERNELS[1], bx=bx, by=by))
            else:
                object.__setattr__(self, "tile", 0)
                object.__setattr__(self, "block_dim", (bx, by))
        T = as_int("tile", self.tile)
        if self.block_dim is not None:
            pass  # non-square: checked above
        elif not 1 <= T <= MAX_TILE:
            raise LaunchError(_(
                "tile must be between 1 and {max} (a {T}x{T} block would have "
                "{threads} threads; CUDA allows at most 1024 per block), got {T}", max=MAX_TILE, T=T, threads=T * T))
        M, N, K = int(self.M), int(self.N), int(self.K)
        for what, size in (("A (M*K)", M * K), ("B (K*N)", K * N), ("C (M*N)", M * N)):
            if size > MAX_INDEX:
                raise LaunchError(_(
                    "{what} has {size} elements; the kernels index with 32-bit int (at most {max})",
                    what=what, size=size, max=MAX_INDEX))

    # ---- geometry -------------------------------------------------------------------
    @property
    def T(self) -> int:
        if self.block_dim is not None:
            raise LaunchError(_("a {shape} block has no single edge T; use BX and BY", shape=self.block_label))
        return int(self.tile)

    @property
    def square(self) -> bool:
        return self.block_dim is None

    @property
    def BX(self) -> int:
        """``blockDim.x``."""
        return int(self.tile) if self.block_dim is None else self.block_dim[0]

    @property
    def BY(self) -> int:
        """``blockDim.y``."""
        return int(self.tile) if self.block_dim is None else self.block_dim[1]

    @property
    def block_label(self) -> str:
        """``"16"`` for a 16 x 16 block, ``"16x4"`` for blockDim (16, 4): how keys and labels name the block."""
        return str(self.tile) if self.block_dim is None else f"{self.BX}x{self.BY}"

    @property
    def tile_rows(self) -> int:
        """Rows of C one block covers: blockDim.y (``naive``: row from threadIdx.y), blockDim.x
        (``naive_col``: row from threadIdx.x), T for the tiled kernels."""
        return self.BX if self.kernel == "naive_col" else self.BY

    @property
    def tile_cols(self) -> int:
        """Columns of C one block covers (blockDim.x; blockDim.y for ``naive_col``)."""
        return self.BY if self.kernel == "naive_col" else self.BX

    @property
    def grid(self) -> tuple[int, int]:
        """``gridDim = (x, y)``: x covers the N columns of C, y its M rows."""
        if self.block_dim is None:
            return grid_dims(self.M, self.N, self.T)
        return ceil_div(self.N, self.tile_cols), ceil_div(self.M, self.tile_rows)

    @property
    def block(self) -> tuple[int, int]:
        return self.BX, self.BY

    @property
    def threads_per_block(self) -> int:
        return self.BX * self.BY

    @property
    def num_blocks(self) -> int:
        gx, gy = self.grid
        return gx * gy

    @property
    def is_tiled(self) -> bool:
        return self.kernel in TILED_BARRIERS

    @property
    def guarded(self) -> bool:
        """False for ``tiled_unguarded``: no boundary checks, ``K / T`` phases (rounded down)."""
        return self.kernel != "tiled_unguarded"

    @property
    def barriers(self) -> tuple[bool, bool]:
        """(barrier 1 present, barrier 2 present) in every phase; (False, False) for naive."""
        return TILED_BARRIERS.get(self.kernel, (False, False))

    @property
    def phases(self) -> int:
        """Phases of the tiled kernel's K loop, ``ceil(K / T)``; 0 for the naive kernels.
        The unguarded kernel runs ``K / T`` phases (integer division, PMPP fig. 5.9)."""
        return phase_count(self.kernel, self.K, self.T) if self.is_tiled else 0

    @property
    def barriers_per_block(self) -> int:
        # one after the loads, one after the compute loop (where the variant keeps them)
        return sum(self.barriers) * self.phases

    @property
    def shared_bytes_per_block(self) -> int:
        return tile_bytes(self.kernel, self.T) if self.is_tiled else 0

    # ---- validation of coordinates ------------------------------------------------
    def check_block(self, bx: int, by: int) -> None:
        gx, gy = self.grid
        bx, by = as_int("blockIdx.x", bx), as_int("blockIdx.y", by)
        if not (0 <= bx < gx and 0 <= by < gy):
            raise LaunchError(_(
                "block (x={bx}, y={by}) is outside the grid: blockIdx.x must be 0..{xlast} and blockIdx.y 0..{ylast}",
                bx=bx, by=by, xlast=gx - 1, ylast=gy - 1))

    def check_thread(self, tx: int, ty: int) -> None:
        tx, ty = as_int("threadIdx.x", tx), as_int("threadIdx.y", ty)
        if self.block_dim is not None:
            if not (0 <= tx < self.BX and 0 <= ty < self.BY):
                raise LaunchError(_(
                    "thread (x={tx}, y={ty}) is outside the {shape} block: threadIdx.x must be 0..{xlast} and "
                    "threadIdx.y 0..{ylast}", tx=tx, ty=ty, shape=self.block_label, xlast=self.BX - 1, ylast=self.BY - 1))
            return
        T = self.T
        if not (0 <= tx < T and 0 <= ty < T):
            raise LaunchError(_(
                "thread (x={tx}, y={ty}) is outside the {T}x{T} block: threadIdx.x and threadIdx.y must be 0..{last}",
                tx=tx, ty=ty, T=T, last=T - 1))

    def block_place(self, bx: int, by: int) -> str:
        """Where block (bx, by) sits in the grid, in words: "corner", "edge" or "interior" (a
        grid one block wide or tall has no interior), and how many of its threads are ghosts
        (own no element of C) when some are."""
        self.check_block(bx, by)
        gx, gy = self.grid
        on_x, on_y = bx in (0, gx - 1), by in (0, gy - 1)
        place = _("corner") if on_x and on_y else _("edge") if on_x or on_y else _("interior")
        ty, tx = np.divmod(np.arange(self.BX * self.BY), self.BX)
        ghosts = int(np.count_nonzero(~self.writes_c(bx, by, tx, ty)))
        if ghosts == 1:
            place = _("{place}, {n} ghost thread", place=place, n=ghosts)
        elif ghosts:
            place = _("{place}, {n} ghost threads", place=place, n=ghosts)
        return place

    # ---- per-thread mapping (vectorised: arguments may be numpy arrays) ------------
    def c_index(self, bx, by, tx, ty):
        """The C element ``(row, col)`` that thread (tx, ty) of block (bx, by) owns.

        It may lie outside C (a "ghost" thread of an edge block); see :meth:`writes_c`.
        """
        BX, BY = self.BX, self.BY  # blockDim.x, blockDim.y (T, T for a square block)
        if self.kernel == "naive_col":
            # the lab report's column partition: threadIdx.x walks rows, so the 32 lanes of a warp
            # read 32 different rows of A: the uncoalesced mapping.
            return by * BX + tx, bx * BY + ty  # row = blockIdx.y*blockDim.x + tx, col = blockIdx.x*blockDim.y + ty
        # threadIdx.x walks columns: neighbouring lanes touch neighbouring addresses.
        return by * BY + ty, bx * BX + tx

    def c_owner(self, row: int, col: int) -> tuple[tuple[int, int], tuple[int, int]]:
        """The inverse of :meth:`c_index`: ``((bx, by), (tx, ty))`` of the thread that computes
        ``C[row][col]``."""
        row, col = as_int("row", row), as_int("col", col)
        if not (0 <= row < self.M and 0 <= col < self.N):
            raise LaunchError(_("C[{row}][{col}] is outside the {M}x{N} matrix C", row=row, col=col, M=self.M, N=self.N))
        # every mapping gives block (bx, by) the tile_rows x tile_cols tile of C at (by*rows, bx*cols)
        R, Cw = self.tile_rows, self.tile_cols
        block = (col // Cw, row // R)
        if self.kernel == "naive_col":
            return block, (row % R, col % Cw)
        return block, (col % Cw, row % R)

    def writes_c(self, bx, by, tx, ty):
        row, col = self.c_index(bx, by, tx, ty)
        return (row < self.M) & (col < self.N)

    def linear_thread(self, tx, ty):
        return tx + ty * self.BX  # tx + ty * blockDim.x

    def warp_lane(self, tx, ty):
        lin = self.linear_thread(tx, ty)
        return lin // WARP_SIZE, lin % WARP_SIZE

    def a_load(self, by, t, ty, tx, checked: bool = True):
        """Source ``(r, c)`` in A that thread (tx, ty) of block row ``by`` stores into
        ``As[ty][tx]`` in phase t, or ``(-1, -1)`` where it stores a padding zero. With
        ``checked=False``: the ``(r, c)`` the thread's index arithmetic names, inside A or not (where
        a padding zero stands in for an element past A's edge)."""
        T = self.T
        r = by * T + ty  # (row of C this thread's block row covers)
        c = t * T + tx  # (column of A inside phase t's K slice)
        if not self.guarded or not checked:  # no check: (r, c) may lie outside A (see unguarded_report)
            return np.broadcast_arrays(r, c)
        ok = (r < self.M) & (c < self.K)
        return np.where(ok, r, PAD), np.where(ok, c, PAD)

    def b_load(self, bx, t, ty, tx, checked: bool = True):
        """Source ``(r, c)`` in B stored into ``Bs[ty][tx]`` in phase t, or ``(-1, -1)``; with
        ``checked=False`` the ``(r, c)`` named, inside B or not."""
        T = self.T
        r = t * T + ty  # (row of B inside phase t's K slice)
        c = bx * T + tx  # (column of C this thread's block column covers)
        if not self.guarded or not checked:
            return np.broadcast_arrays(r, c)
        ok = (r < self.K) & (c < self.N)
        return np.where(ok, r, PAD), np.where(ok, c, PAD)

    # ---- whole-launch totals (closed form, instant at any size) ---------------------
    def stats(self) -> dict:
        """Per-launch totals. Loads count elements actually read from global memory
        (padding zeros excluded); ``flop_per_byte`` counts DRAM traffic only (no caches)."""
        M, N, K = self.M, self.N, self.K
        T = self.T if self.square else None  # (a non-square block: the naive kernels, no T)
        gx, gy = self.grid
        flops = 2 * M * N * K
        launched = gx * gy * self.threads_per_block
        if self.is_tiled:
            # Each block column loads all of A once and each block row all of B once:
            # sum over (by, ty) of [row < M] is M, over (t, tx) of [t*T+tx < K] is K.
            a_loads, b_loads = gx * M * K, gy * K * N
            stores_into_shared = launched * self.phases  # per matrix, padding included
            a_pad, b_pad = stores_into_shared - a_loads, stores_into_shared - b_loads
            fmas = launched * self.phases * T  # padding and ghost threads still multiply
            if not self.guarded:  # no padding: every store into As/Bs reads memory
                a_loads = b_loads = stores_into_shared
                a_pad = b_pad = 0
        else:
            a_loads = b_loads = M * N * K  # only threads inside C run the dot product
            a_pad = b_pad = 0
            fmas = M * N * K
        loads = a_loads + b_loads
        useful = M * N * K if self.guarded else M * N * min(K, self.phases * self.T)
        return {
            "kernel": self.kernel,
            "M": M,
            "N": N,
            "K": K,
            "tile": T,
            "grid": [gx, gy],
            "block": [self.BX, self.BY],
            "threads_per_block": self.threads_per_block,
            "blocks": gx * gy,
            "threads": launched,
            "ghost_threads": launched - M * N,
            "phases": self.phases,
            "barriers_per_block": self.barriers_per_block,
            "global_loads": loads,
            "global_loads_a": a_loads,
            "global_loads_b": b_loads,
            "padding_loads": a_pad + b_pad,
            "global_stores": M * N,
            "flops": flops,
            "fmas_executed": fmas,
            # tile quantization: multiply-adds on padding zeros or by ghost threads
            "useful_fmas": useful,
            "wasted_fmas": fmas - useful,
            "wasted_fraction": (fmas - useful) / fmas if fmas else 0.0,
            "padding_loads_a": a_pad,
            "padding_loads_b": b_pad,
            "flop_per_byte": flops / (FLOAT_BYTES * loads) if loads else float("inf"),
            "shared_bytes_per_block": self.shared_bytes_per_block,
        }

    # ---- one thread, instantly -------------------------------------------------------
    def thread(self, block: tuple[int, int], thread: tuple[int, int]) -> "ThreadView":
        self.check_block(*block)
        self.check_thread(*thread)
        return ThreadView(self, int(block[0]), int(block[1]), int(thread[0]), int(thread[1]))


@dataclass(frozen=True)
class ThreadView:
    """Everything one thread of a launch does, computed from the mapping alone."""

    launch: Launch
    bx: int
    by: int
    tx: int
    ty: int

    @property
    def c(self) -> tuple[int, int]:
        r, c = self.launch.c_index(self.bx, self.by, self.tx, self.ty)
        return int(r), int(c)

    @property
    def writes_c(self) -> bool:
        return bool(self.launch.writes_c(self.bx, self.by, self.tx, self.ty))

    @property
    def linear_thread(self) -> int:
        return int(self.launch.linear_thread(self.tx, self.ty))

    @property
    def warp(self) -> int:
        return self.linear_thread // WARP_SIZE

    @property
    def lane(self) -> int:
        return self.linear_thread % WARP_SIZE

    def load(self, t: int) -> dict:
        """Phase t: which A/B element this thread copies into which shared cell (tiled)."""
        L = self.launch
        if not 0 <= t < L.phases:
            raise LaunchError(_("phase must be 0..{last}, got {t}", last=L.phases - 1, t=t))
        ar, ac = L.a_load(self.by, t, self.ty, self.tx)
        br, bc = L.b_load(self.bx, t, self.ty, self.tx)
        return {
            "phase": t,
            "a": None if ar == PAD else [int(ar), int(ac)],
            "b": None if br == PAD else [int(br), int(bc)],
            "as": [self.ty, self.tx],
            "bs": [self.ty, self.tx],
        }

    def compute(self, t: int, k: int) -> dict:
        """Phase t, step k of the compute loop: ``sum += As[ty][k] * Bs[k][tx]``, and the
        global elements those shared cells hold (``None`` for a padding zero)."""
        L = self.launch
        T = L.T
        if not 0 <= k < T:
            raise LaunchError(_("k must be 0..{last}, got {k}", last=T - 1, k=k))
        # As[ty][k] was stored by thread (tx=k, ty) of this block; Bs[k][tx] by (tx, ty=k).
        ar, ac = L.a_load(self.by, t, self.ty, k)
        br, bc = L.b_load(self.bx, t, k, self.tx)
        return {
            "phase": t,
            "k": k,
            "as": [self.ty, k],
            "bs": [k, self.tx],
            "a": None if ar == PAD else [int(ar), int(ac)],
            "b": None if br == PAD else [int(br), int(bc)],
        }

    def phases(self) -> list[dict]:
        return [self.load(t) for t in range(self.launch.phases)]

    def to_dict(self) -> dict:
        L = self.launch
        row, col = self.c
        out = {
            "kernel": L.kernel,
            "M": L.M,
            "N": L.N,
            "K": L.K,
            "tile": L.T if L.square else None,
            "grid": list(L.grid),
            "block": [self.bx, self.by],
            "thread": [self.tx, self.ty],
            "row": row,
            "col": col,
            "linear_thread": self.linear_thread,
            "warp": self.warp,
            "lane": self.lane,
            "writes_c": self.writes_c,
            "barriers": L.barriers_per_block,
            "phases": self.phases(),
        }
        if not L.square:
            out["block_dim"] = [L.BX, L.BY]
        if not L.is_tiled:
            # The naive kernels read straight from global memory: a K-long dot product,
            # or nothing at all for a thread outside C (the guard skips the whole body).
            out["reads"] = (
                {"a_row": row, "b_col": col, "k": [0, L.K]} if self.writes_c else None
            )
        return out


# ---- whole-launch schedule ------------------------------------------------------------
STEP_KINDS = ("load_a", "load_b", "barrier1", "compute", "barrier2", "store")


@dataclass(frozen=True)
class Step:
    """One step of a block's life, in program order. ``k`` is the compute-loop index, or
    ``None`` for a step that runs the whole loop (or is not a compute step)."""

    kind: str
    phase: int | None = None
    k: int | None = None


def steps(launch: Launch, per_k: bool = True) -> list[Step]:
    """The stepper's step list for one block (every block runs the same program)."""
    if not launch.is_tiled:
        return [Step("compute"), Step("store")]
    return steps_of_phases(launch, 0, launch.phases, per_k)[1]


def steps_per_phase(launch: Launch, per_k: bool = True) -> int:
    """How many steps one phase of :func:`steps` has (tiled kernels)."""
    b1, b2 = launch.barriers
    return 2 + b1 + (launch.T if per_k else 1) + b2


def step_count(launch: Launch, per_k: bool = True) -> int:
    """``len(steps(launch, per_k))`` without building the list."""
    if not launch.is_tiled:
        return 2
    return launch.phases * steps_per_phase(launch, per_k) + 1


def steps_of_phases(launch: Launch, p0: int, p1: int, per_k: bool = True) -> tuple[int, list[Step]]:
    """``(s0, steps(launch, per_k)[s0:s1])`` for the steps of phases ``p0 .. p1 - 1`` (the final
    store is included when ``p1`` is the last phase), without building the whole list."""
    n = steps_per_phase(launch, per_k)
    b1, b2 = launch.barriers
    out: list[Step] = []
    for t in range(p0, p1):
        out += [Step("load_a", t), Step("load_b", t)] + ([Step("barrier1", t)] if b1 else [])
        out += [Step("compute", t, k) for k in range(launch.T)] if per_k else [Step("compute", t)]
        out += [Step("barrier2", t)] if b2 else []
    if p1 >= launch.phases:
        out.append(Step("store"))
    return p0 * n, out


def phase_of_step(launch: Launch, index: int, per_k: bool = True) -> int:
    """The phase step ``index`` of :func:`steps` belongs to (the store: the last phase)."""
    return min(index // steps_per_phase(launch, per_k), launch.phases - 1)


@dataclass
class Schedule:
    """The complete schedule of a launch as dense arrays.

    Load arrays are indexed ``[by, bx, t, ty, tx]`` and hold the global ``(row, col)`` each
    thread stores into ``As[ty][tx]`` / ``Bs[ty][tx]`` in phase t (``-1`` = padding zero).
    C arrays are indexed ``[by, bx, ty, tx]`` (``ty < blockDim.y``, ``tx < blockDim.x``).
    """

    launch: Launch
    a_row: np.ndarray | None
    a_col: np.ndarray | None
    b_row: np.ndarray | None
    b_col: np.ndarray | None
    c_row: np.ndarray
    c_col: np.ndarray
    writes_c: np.ndarray

    @cached_property
    def steps(self) -> list[Step]:
        return steps(self.launch)

    def compute_cells(self):
        """Index arrays ``(as_y, as_x, bs_y, bs_x)`` of shape ``(k, ty, tx)``: in compute step
        k, thread (tx, ty) multiplies ``As[as_y][as_x]`` by ``Bs[bs_y][bs_x]``
        (i.e. ``As[ty][k] * Bs[k][tx]``)."""
        T = self.launch.T
        k, ty, tx = np.meshgrid(np.arange(T), np.arange(T), np.arange(T), indexing="ij")
        return ty, k, k, tx

    def counts(self) -> dict:
        """Totals counted from the materialised arrays (the tests compare them with
        :meth:`Launch.stats`' closed forms)."""
        L = self.launch
        out = {"global_stores": int(self.writes_c.sum())}
        if L.is_tiled:
            a = int((self.a_row >= 0).sum())
            b = int((self.b_row >= 0).sum())
            out.update(
                global_loads_a=a,
                global_loads_b=b,
                global_loads=a + b,
                padding_loads=2 * self.a_row.size - a - b,
            )
        return out


def schedule(launch: Launch) -> Schedule:
    """Materialise every load and store of ``launch`` (see :class:`Schedule`)."""
    L = launch
    P = L.phases
    gx, gy = L.grid
    # Broadcastable index grids; only the final arrays are full size.
    by = np.arange(gy, dtype=np.int32).reshape(gy, 1, 1, 1)
    bx = np.arange(gx, dtype=np.int32).reshape(1, gx, 1, 1)
    ty = np.arange(L.BY, dtype=np.int32).reshape(1, 1, L.BY, 1)
    tx = np.arange(L.BX, dtype=np.int32).reshape(1, 1, 1, L.BX)
    c_row, c_col = L.c_index(bx, by, tx, ty)
    shape = (gy, gx, L.BY, L.BX)
    c_row = np.broadcast_to(c_row, shape).astype(np.int32)
    c_col = np.broadcast_to(c_col, shape).astype(np.int32)
    writes = (c_row < L.M) & (c_col < L.N)
    if not L.is_tiled:
        return Schedule(L, None, None, None, None, c_row, c_col, writes)

    T = L.T
    full = (gy, gx, P, T, T)
    t = np.arange(P, dtype=np.int32).reshape(1, 1, P, 1, 1)
    by5, bx5 = by.reshape(gy, 1, 1, 1, 1), bx.reshape(1, gx, 1, 1, 1)
    ty5, tx5 = ty.reshape(1, 1, 1, T, 1), tx.reshape(1, 1, 1, 1, T)
    # A: row depends on (by, ty), column on (t, tx); the same for every bx.
    ar, ac = L.a_load(by5, t, ty5, tx5)
    br, bc = L.b_load(bx5, t, ty5, tx5)
    return Schedule(
        L,
        np.ascontiguousarray(np.broadcast_to(ar, full)),
        np.ascontiguousarray(np.broadcast_to(ac, full)),
        np.ascontiguousarray(np.broadcast_to(br, full)),
        np.ascontiguousarray(np.broadcast_to(bc, full)),
        c_row,
        c_col,
        writes,
    )


def replay(sched: Schedule, A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Execute a schedule on real matrices, barrier by barrier, and return C.

    Every shared store and every FMA comes from the schedule; an element of C no thread
    stores stays NaN, so a gap in the model shows up as a wrong answer, never as a zero.
    """
    L = sched.launch
    if not L.guarded:
        return unguarded_values(L, A, B)["C"]
    gx, gy = L.grid
    # float64 holds small-integer products exactly, and NaN marks an unwritten element.
    A, B = np.asarray(A, dtype=np.float64), np.asarray(B, dtype=np.float64)
    C = np.full((L.M, L.N), np.nan)
    acc = np.zeros((gy, gx, L.BY, L.BX))
    if L.is_tiled:
        T = L.T
        as_y, as_x, bs_y, bs_x = sched.compute_cells()
        for t in range(L.phases):
            # Loads: thread (ty, tx) stores into As[ty][tx] and Bs[ty][tx] (then barrier 1).
            ar, ac = sched.a_row[:, :, t], sched.a_col[:, :, t]
            br, bc = sched.b_row[:, :, t], sched.b_col[:, :, t]
            As = np.where(ar >= 0, A[np.maximum(ar, 0), np.maximum(ac, 0)], 0)
            Bs = np.where(br >= 0, B[np.maximum(br, 0), np.maximum(bc, 0)], 0)
            # Compute loop: step k, every thread multiplies the cells the model names.
            for k in range(T):
                acc += As[:, :, as_y[k], as_x[k]] * Bs[:, :, bs_y[k], bs_x[k]]
            # (barrier 2: the next phase may overwrite As/Bs)
    else:
        rows = np.minimum(sched.c_row, L.M - 1)
        cols = np.minimum(sched.c_col, L.N - 1)
        for k in range(L.K):
            acc += np.where(sched.writes_c, A[rows, k] * B[k, cols], 0)
    w = sched.writes_c
    C[sched.c_row[w], sched.c_col[w]] = acc[w]
    return C


# ---- the kernel without boundary checks (kernels/06_tiled_unguarded.cu) -----------------
def unguarded_extents(launch: Launch) -> dict:
    """How many elements of A, B and C the unguarded kernel touches, counted from element 0:
    the allocation each buffer needs so that every read and store stays inside it."""
    L = launch
    T, P = L.T, L.phases
    gx, gy = L.grid
    a = (gy * T - 1) * L.K + P * T if P else 0  # last A element read, + 1
    b = (P * T - 1) * L.N + gx * T if P else 0
    c = (gy * T - 1) * L.N + gx * T  # every thread stores, ghost or not
    return {"a": max(a, L.M * L.K), "b": max(b, L.K * L.N), "c": max(c, L.M * L.N)}


def _where(name: str, lin: int, rows: int, cols: int) -> str:
    if lin >= rows * cols:
        return _("past the end of {name} ({name} has {size} elements; this is element {index})",
                 name=name, size=rows * cols, index=lin)
    return f"{name}[{lin // cols}][{lin % cols}]"


def unguarded_report(launch: Launch, examples: int = 6) -> dict:
    """What PMPP fig. 5.9 as printed (no guards, ``K / T`` phases) does on this launch.

    * reads that fall outside A or B: their linear address, and where it lands (another row
      of B, or past the end of the allocation);
    * stores of ghost threads: into another row of C (a race with that element's owner) or past
      the end;
    * the C elements whose value is wrong: every element misses the terms k = (K/T)*T .. K-1
      when T does not divide K (all of C stays 0 when K < T), plus the contested ones.
    """
    L = launch
    if L.guarded:
        raise LaunchError(_("{kernel} checks its bounds; the report is for tiled_unguarded", kernel=L.kernel))
    M, N, K, T, P = L.M, L.N, L.K, L.T, L.phases
    gx, gy = L.grid
    R = np.arange(gy * T)  # every row of C a thread covers (ghosts included)
    Cc = np.arange(gx * T)
    kk = np.arange(P * T)
    # A: thread rows R read A[R][kk] (kk < K always); a row >= M is past the end.
    a_lin = R[:, None] * K + kk[None, :]
    a_out = R >= M  # whole rows of reads
    # B: B[kk][Cc]; a column >= N reads the next row of B, or past the end.
    b_lin = kk[:, None] * N + Cc[None, :]
    b_out = np.broadcast_to(Cc[None, :] >= N, b_lin.shape)
    # Each (row, k) of A is read by one thread in each of the gx block columns; each (k, col)
    # of B by one thread in each of the gy block rows.
    a_reads_out = int(a_out.sum()) * len(kk) * gx
    b_reads_out = int(b_out.sum()) * gy
    c_lin = R[:, None] * N + Cc[None, :]
    ghost = (R[:, None] >= M) | (Cc[None, :] >= N)
    owner = ~ghost
    in_c = c_lin < M * N
    contested = ghost & in_c
    past_c = ghost & ~in_c
    wrong = np.zeros((M, N), bool)
    hit = c_lin[contested]
    wrong.flat[hit] = True
    missing = list(range(P * T, K))
    if missing:
        wrong[:] = True

    def ex(mask, lin, name, rows, cols, who):
        out = []
        for idx in zip(*np.nonzero(mask)):
            if len(out) >= examples:
                break
            out.append({**who(idx), "linear": int(lin[idx]), "lands": _where(name, int(lin[idx]), rows, cols)})
        return out

    def thread_of(r, c):
        return {"block": [int(c) // T, int(r) // T], "thread": [int(c) % T, int(r) % T]}

    a_ex = ex(np.broadcast_to(a_out[:, None], a_lin.shape), a_lin, "A", M, K,
              lambda i: {**thread_of(i[0], 0), "phase": int(i[1]) // T, "wants": f"A[{int(R[i[0]])}][{int(kk[i[1]])}]"})
    b_ex = ex(b_out & (Cc[None, :] >= N), b_lin, "B", K, N,
              lambda i: {**thread_of(0, i[1]), "phase": int(i[0]) // T, "wants": f"B[{int(kk[i[0]])}][{int(Cc[i[1]])}]"})
    c_ex = ex(ghost, c_lin, "C", M, N, lambda i: {**thread_of(*i), "wants": f"C[{int(R[i[0]])}][{int(Cc[i[1]])}]"})
    return {
        "kernel": L.kernel, "M": M, "N": N, "K": K, "tile": T, "phases": P,
        "phases_needed": ceil_div(K, T),
        "missing_k": [missing[0], missing[-1]] if missing else None,
        "reads_out_of_range_a": a_reads_out,
        "reads_out_of_range_b": b_reads_out,
        "b_reads_in_other_rows": int(((b_lin < K * N) & b_out).sum()) * gy,
        "reads_past_end_b": int(((b_lin >= K * N) & b_out).sum()) * gy,
        "stores_into_other_c_elements": int(contested.sum()),
        "stores_past_end_c": int(past_c.sum()),
        "contested_c": sorted({(int(v) // N, int(v) % N) for v in hit}),
        "wrong_c": int(wrong.sum()),
        "correct_c": int(M * N - wrong.sum()),
        "extents": unguarded_extents(L),
        "examples": {"a": a_ex, "b": b_ex, "c": c_ex},
        "_wrong_mask": wrong,
        "_owner": owner,
    }


def unguarded_values(launch: Launch, A, B, fill: float = 0.0) -> dict:
    """What the unguarded kernel computes when A, B sit at the start of buffers padded with
    ``fill`` up to :func:`unguarded_extents` (what ``explainer.gpu.edges`` launches).

    ``C``: each element as its owner thread stores it; ``candidates``: for each element a ghost
    thread also stores into, every value that may end up there (block order decides)."""
    L = launch
    M, N, K, T, P = L.M, L.N, L.K, L.T, L.phases
    gx, gy = L.grid
    ext = unguarded_extents(L)
    a = np.full(ext["a"], fill, np.float64)
    a[: M * K] = np.asarray(A, np.float64).ravel()
    b = np.full(ext["b"], fill, np.float64)
    b[: K * N] = np.asarray(B, np.float64).ravel()
    R, Cc, kk = np.arange(gy * T), np.arange(gx * T), np.arange(P * T)
    rows = a[R[:, None] * K + kk[None, :]] if P else np.zeros((gy * T, 0))
    cols = b[kk[:, None] * N + Cc[None, :]] if P else np.zeros((0, gx * T))
    sums = rows @ cols  # (gy*T, gx*T): every thread's sum, ghosts included
    C = sums[:M, :N].copy()
    c_lin = R[:, None] * N + Cc[None, :]
    ghost = (R[:, None] >= M) | (Cc[None, :] >= N)
    cand: dict[tuple[int, int], list[float]] = {}
    for lin, v in zip(c_lin[ghost & (c_lin < M * N)], sums[ghost & (c_lin < M * N)]):
        key = (int(lin) // N, int(lin) % N)
        cand.setdefault(key, [float(C[key])]).append(float(v))
    return {"C": C, "sums": sums, "candidates": cand, "extents": ext}
