"""The tuning engine's kernel: configurations of a tuned kernel 14 and their model.

``kernels/tuned/warptile_tuned.cu`` is kernel 14 (warp tiling, double buffering) grown to reach
cuBLAS at every shape: a block tile chosen per shape among :data:`CONFIGS`, split-K and the split
tail, rows padded to 16 bytes (``+pad``), and edge blocks treated one by one (``GUARD`` 0-6, + 16).
It is not part of the lesson: the rungs (:mod:`explainer.model.ladder`, ``kernels/*.cu``) never
import, compile or draw it. :class:`TunedConfig` is a :class:`~explainer.model.ladder.Rung` (the
same thread layout, the same slot layout of As and Bs) with what the tuned kernel adds; the GPU
tests compare :func:`predict_trace` with what its trace build records.
"""

from __future__ import annotations

import numpy as np

from ..model import hardware
from ..model.ladder import NEVER, WARP, LadderTrace, Rung, slot_coords_a, slot_coords_b, thread_outputs
from ..model.launch import PAD, ceil_div, padded_shape

#: The tuned kernel's source, relative to ``kernels/``.
FILE = "tuned/warptile_tuned.cu"
#: The GPU these configurations were tuned on (its registers per SM and per thread: ``TunedConfig.has_roomy``).
HOPPER = hardware.arch("hopper")


class TunedConfig(Rung):
    """One configuration of the tuned kernel 14: a rung's geometry plus split-K, the split tail,
    padded rows and its edge bodies (``int GUARD``)."""

    @property
    def splits_k(self) -> bool:
        """Every configuration of the tuned kernel can cut its K loop into slices (split-K,
        ``warptile_splitk_gemm``; the split tail, ``warptile_splittail_gemm``)."""
        return True

    @property
    def swizzled(self) -> bool:
        """BK = 32: in every other 8 rows of As the float4s of each pair swap places
        (:func:`explainer.model.ladder.as_swizzle`)."""
        return self.BK == 32

    def expression(self, guard: bool, split: bool = False, tail: bool = False, aligned: bool = True,
                   c_aligned: bool = True, roomy: bool = False, even: bool = False, wide: bool = False) -> str:
        """The template instantiation a launch names: ``split`` the split-K entry point, with
        ``tail`` the split tail's (only the tiles of the last, partial round split). Kernel 14's
        guarded instantiations come in three (its ``int GUARD``: 1 where the rows of A, B and C
        are 16-byte aligned, ``aligned``: K and N multiples of 4; 2 where not; 3 where those of A
        and B are, read from padded copies, and C's are not, ``c_aligned`` false: N not a multiple
        of 4), the other rungs' one (``bool GUARD``). ``roomy`` (kernel 14, rows not aligned, no
        tail): GUARD 4, the instantiation of GUARD 2 that leaves room for one block per SM fewer
        (see :meth:`roomy`). ``even`` (rows not aligned, but K and N even: every row starts 8-byte
        aligned): GUARD 5 (roomy: 6), GUARD 2's bodies copying pairs of elements. ``wide`` (kernel 14's
        whole-K entry point where C's rows are not aligned, GUARD 2 to 6: :func:`wide_rows`): GUARD + 16,
        the same bodies with C's rows staged a whole warp tile (with 4 warps or more, block tile) wide."""
        args = ", ".join(str(v) for _, v in self.params)
        symbol = self.symbol
        if tail:
            symbol = self.symbol.replace("_gemm", "_splittail_gemm")
        elif split:
            symbol = self.symbol.replace("_gemm", "_splitk_gemm")
        if roomy and not (guard and not aligned and not tail and self.has_roomy):
            raise ValueError(f"{self.name}: only a guarded launch on unaligned rows, without a split tail, "
                             "of a configuration with MINB >= 2 and registers to gain has a roomy instantiation")
        unaligned = (6 if roomy else 5) if even else (4 if roomy else 2)
        value = ((1 if c_aligned else 3) if aligned else unaligned) if guard else 0
        if wide:
            if split or tail or value < 2:
                raise ValueError(f"{self.name}: only the whole-K entry point on rows of C that are not aligned "
                                 "stages them a warp tile wide (GUARD + 16)")
            value += WIDE
        return f"{symbol}<{args}, {value}>"

    @property
    def expressions(self) -> list[str]:
        out = [self.expression(g, s, t, a, c) for s, t in ((False, False), (True, False), (True, True))
               for g, a, c in ((False, True, True), (True, True, True), (True, False, True), (True, True, False))]
        out += [self.expression(True, s, t, False, True, even=True) for s, t in ((False, False), (True, False), (True, True))]
        if self.has_roomy:
            out += [self.expression(True, s, False, False, True, roomy=True, even=e) for e in (False, True)
                    for s in (False, True)]
        # the whole-K entry point's wide twins (short K, C's rows not aligned): GUARD 2, 5, 3, 4, 6 + 16
        out += [self.expression(True, aligned=False, even=e, wide=True) for e in (False, True)]
        out += [self.expression(True, c_aligned=False, wide=True)]
        if self.has_roomy:
            out += [self.expression(True, aligned=False, roomy=True, even=e, wide=True) for e in (False, True)]
        return list(dict.fromkeys(out))

    @property
    def has_roomy(self) -> bool:
        """Whether kernel 14 has a roomy instantiation of this configuration that differs from the
        tight one: ``MINB >= 2`` and ``MINB``'s share of an SM's 65 536 registers below the 255 a
        thread can have (warptile_128x48_t64, 64 threads, MINB 4: 256 either way, the same build,
        and 4 blocks an SM run in both)."""
        share = HOPPER["regs_per_sm"] // (self.threads * self.min_blocks)
        return self.min_blocks > 1 and share < HOPPER["max_regs_per_thread"]

    def roomy(self, blocks: int, sms: int) -> bool:
        """Whether a launch of ``blocks`` blocks on unaligned rows runs kernel 14's roomy
        instantiation (GUARD 4: registers for ``MINB - 1`` blocks per SM instead of ``MINB``).
        The element copies of GUARD 2 spilled to local memory at ``MINB``'s share of registers
        (warptile_64x128, warptile_128x64, warptile_64x64_bk32, warptile_128x128); with one block
        fewer per SM they do not, but a launch that needed every slot would run a round more. So
        only where the busiest SM's ``ceil(blocks / sms)`` blocks take as many rounds either way
        (benchmarks/results/splitk_2026-11-23.md)."""
        if not self.has_roomy or blocks < 1 or sms < 1:
            return False
        busiest = ceil_div(blocks, sms)
        return ceil_div(busiest, self.min_blocks - 1) == ceil_div(busiest, self.min_blocks)

    def runs_roomy(self, M: int, N: int, K: int, sms: int, splits: int = 1, tail: int = 0) -> bool:
        """Whether the launch of this shape (rows as the kernel reads them: a padded launch's are
        aligned) runs the roomy instantiation on a device of ``sms`` SMs: the guarded path on
        unaligned rows (GUARD 2), no split tail, and :meth:`roomy` for its blocks."""
        if tail or self.fast(M, N, K) or (K % 4 == 0 and N % 4 == 0):
            return False
        gx, gy = self.grid(M, N)
        return self.roomy(gx * gy * splits, sms)

    def tail_tiles(self, M: int, N: int, slots: int) -> int:
        """The tiles of C in the last, partial round of a device that runs ``slots`` blocks at once
        (SMs x blocks per SM): ``tiles mod slots``, 0 when they fill every round or do not fill one."""
        gx, gy = self.grid(M, N)
        return (gx * gy) % slots if gx * gy > slots else 0

    def split_ranges(self, K: int, splits: int) -> list[tuple[int, int]]:
        """The phases ``[t_begin, t_end)`` that block ``z`` of a split-K launch sums, for
        ``z = 0 .. splits - 1`` (the kernel's own formula, ``floor(z * P / S)``): every phase
        belongs to exactly one slice, and each slice gets at least one when ``splits <= P``."""
        P = self.phases(K)
        if not 1 <= splits <= P:
            raise ValueError(f"splits must be between 1 and the {P} phases of K = {K} (BK = {self.BK}), got {splits}")
        return [(z * P // splits, (z + 1) * P // splits) for z in range(splits)]

    def shifts(self, M: int, N: int) -> bool:
        """Whether kernel 14's blocks at C's edge shift back inside C at this shape (C at least one
        tile tall and wide): every block then runs the interior body, an edge block on the last
        whole tile inside C, storing only its own outputs (:func:`predict_trace`). Elsewhere its
        edge blocks copy from rows and columns clamped into A and B."""
        return M >= self.BM and N >= self.BN

    def lead(self, K: int) -> int:
        """How many padding zeros come before column 0 of A (row 0 of B) in phase 0. Kernel 14
        copies K's partial phase first (the residue first, as CUTLASS does), so that its loop
        never checks K: phase ``t`` covers ``t*BK - lead .. (t+1)*BK - lead - 1``. Kernels
        10-13 put the zeros after column K - 1, in their last phase (lead 0)."""
        return self.phases(K) * self.BK - K

    def launch_expression(self, M: int, N: int, K: int, splits: int = 1, tail: int = 0, pad: bool = False) -> str:
        """The instantiation a launch of (M, N, K) names: the entry point (whole K, split-K, split
        tail) and the body its rows need (:meth:`expression`); a padded launch (``pad``) reads rows
        of a multiple of 4 floats, so only C's alignment is the shape's."""
        if pad:
            return self.expression(True, splits > 1, tail > 0, True, N % 4 == 0, wide=wide_rows(N, K, splits, tail))
        width = copy_width(K, N)
        return self.expression(not self.fast(M, N, K), splits > 1, tail > 0, width == 4, even=width == 2,
                               wide=wide_rows(N, K, splits, tail))

    def device_expression(self, cfg, sms: int) -> str:
        """The instantiation that runs launch ``cfg`` on a device of ``sms`` SMs: ``cfg.expression``,
        but the roomy one (GUARD 4 for GUARD 2, 6 for 5: registers for a block per SM fewer, no
        spills) where the busiest SM's blocks take as many rounds either way (:meth:`runs_roomy`)."""
        if cfg.pad or not self.runs_roomy(cfg.M, cfg.N, cfg.K, sms, cfg.splits, cfg.tail):
            return cfg.expression
        return self.expression(True, cfg.splits > 1, False, False, True, roomy=True,
                               even=copy_width(cfg.K, cfg.N) == 2, wide=wide_rows(cfg.N, cfg.K, cfg.splits, cfg.tail))

    def trace(self, M: int, N: int, K: int, **launch) -> LadderTrace:
        """What a trace build of this launch records (:func:`predict_trace`)."""
        return predict_trace(self, M, N, K, **launch)


def _c(name, file, symbol, params, title, idea) -> TunedConfig:
    return TunedConfig(name, file, symbol, tuple(params), title, idea)


#: Kernel 14's GUARD flag for the wide epilogue (:func:`wide_rows`).
WIDE = 16
#: K up to which a whole-K launch of kernel 14 on rows of C that are not 16-byte aligned stages them a
#: whole warp tile wide (WN floats a row, GUARD + 16; with 4 warps or more the whole block tile, BN floats
#: a row: the kernel's BLOCK_ROWS) instead of a sub-tile (WSUBN). Measured on the H100 (the warp-wide rows)
#: (benchmarks/results/splitk_2026-11-23.md), points of cuBLAS: at K = 64-72 +2 to +11 (the
#: best launch at 2490x2974x64 88.8 -> 95.8%), at K = 181-188 -1 to +3 (128x128's spilling GUARD 2 body
#: -3), at K = 282 +0.5; at K = 800-2000 the wide stores ran 2-9% slower (128x256, t64, 128x128): the
#: epilogue matters where the K loop is short.
WIDE_ROWS_K = 256


def wide_rows(N: int, K: int, splits: int = 1, tail: int = 0) -> bool:
    """Whether kernel 14's launch stages C's rows a whole warp tile wide, or with 4 warps or more the
    whole block tile (GUARD + 16): the whole-K entry point (no split-K, no split tail), C's rows not
    16-byte aligned (N not a multiple of 4: its stores go through shared memory) and K at most
    :data:`WIDE_ROWS_K`."""
    return splits == 1 and not tail and N % 4 != 0 and K <= WIDE_ROWS_K


def copy_width(K: int, N: int) -> int:
    """How many consecutive floats kernel 14 copies at a time from rows of A (K floats long) and
    B (N floats): 4 where K and N are multiples of 4 (16-byte granules), 2 where both are even
    (pairs: GUARD 5, 6), else 1 (elements: GUARD 2, 4)."""
    return 4 if K % 4 == 0 and N % 4 == 0 else 2 if K % 2 == 0 and N % 2 == 0 else 1


def warp_store_sectors(r: Rung, staged: bool) -> int:
    """32-byte sectors of C that one store instruction of warp 0 writes (128 bytes of outputs: one
    float per lane) where C's rows are not 16-byte aligned and a thread's TN outputs cannot go as
    one float4 (kernel 14, ``put``). Not staged: the j-th output of each lane's thread tile, row 0
    of sub-tile (0, 0) (lanes TN floats apart, in WSUBM / TM rows); staged through shared memory:
    floats f = lane of the warp's row segment (WSUBM / TM rows of WSUBN, read back along the rows).
    Counted as distinct (row, column // 8) with rows starting on a sector (unaligned rows can add
    one per row)."""
    lanes = np.arange(WARP)
    if staged:
        w = r.warp_dims
        rows, cols = lanes // w["WSUBN"], lanes % w["WSUBN"]
    else:
        rows, cols = thread_outputs(r, lanes)
        rows, cols = rows[:, 0], cols[:, 0]  # output 0 of each lane: row 0, its first column
    return len(set(zip(rows.tolist(), (cols // 8).tolist())))


def predict_trace(r: TunedConfig, M: int, N: int, K: int, reduce: bool = False, pad: bool = False,
                  split: bool = False) -> LadderTrace:
    """What every slot held in every phase and which outputs every thread stored, for the
    launch of ``r`` on C = A (M x K) @ B (K x N), whole or split (split-K and the split tail
    record each phase once, by the block of its slice, in the same layout); ``reduce``: split-K
    whose slices a separate kernel adds (kernels/splitk_reduce.cu): the same slots, and no
    thread of the launch stores an output of C; ``pad``: kernel 14 reading copies of A and / or B
    whose rows are padded to 4 floats (``+pad``): the same elements, but B's granules clamp into
    its padded rows; ``split``: one of kernel 14's split entry points (split-K, the split tail),
    which on unaligned rows copies B element by element (by pairs where K and N are even, GUARD 5)
    even where N is a multiple of 4."""
    gx, gy = r.grid(M, N)
    P = r.phases(K)
    by = np.arange(gy)[:, None, None, None]
    bx = np.arange(gx)[None, :, None, None]
    t = np.arange(P)[None, None, :, None]

    lead = r.lead(K)
    # Kernel 14, where C has at least BM rows and BN columns (shift): a block whose tile would
    # cross C's last row (column) computes the last whole tile inside C instead, shifted back
    # (origin), and stores only its own outputs, rows from by * BM and columns from bx * BN. Its
    # columns end at N rounded up to the width of B's copies (granules of 4 in B's rows of ldb
    # floats, a padded copy's zeros past N included; pairs; elements).
    # Elsewhere (M < BM or N < BN) its edge blocks copy from rows of A and columns of B clamped
    # into the matrix (EDGE_CLAMPED, EDGE_CLAMPED_ANY): past C's edge a slot holds A's last row,
    # or B's last four columns where B's rows are 16-byte aligned (N a multiple of 4: granules),
    # else its last column (element copies); only outputs outside C read them; whole or split, on
    # any rows. B's padded copy (N not a multiple of 4) has rows of ldb = N rounded up to 4
    # floats, zeros past N: its granules clamp to ldb - 4 .. ldb - 1. The split entry points copy
    # B element by element wherever K or N is not a multiple of 4 (unpadded), so clamp its
    # columns one by one.
    ldb = padded_shape(M, N, K)[1] if pad else N
    shift = r.shifts(M, N)
    clamp = r.splits_k and not shift
    b_elems = ldb % 4 != 0 or (split and not pad and K % 4 != 0)
    # where K and N are even (unpadded) the element copies go by pairs (GUARD 5): a pair of B's
    # columns clamps to N - 2, N - 1
    width = copy_width(K, N)  # (where B is copied element by element: 1 or 2)
    row0, col0 = by * r.BM, bx * r.BN  # the block's own tile
    if shift:
        bw = width if b_elems else 4
        row0 = np.minimum(row0, M - r.BM)
        col0 = np.minimum(col0, -(-N // bw) * bw - r.BN)
    m, k = slot_coords_a(r)
    row = row0 + m
    if clamp:
        row = np.minimum(row, M - 1)
    col = t * r.BK + k - lead
    a = np.where((row < M) & (col >= 0) & (col < K), row * K + col, PAD)
    a = np.where(m < 0, NEVER, a)
    a = np.broadcast_to(a, (gy, gx, P, r.slots_a))

    k, n = slot_coords_b(r)
    row = t * r.BK + k - lead
    col = col0 + n
    if clamp and not b_elems:  # the granule of 4 columns moved back to ldb - 4 .. ldb - 1
        col = np.minimum(col - col % 4, ldb - 4) + col % 4
    elif clamp:  # an element (a pair) moved back to column N - 1 (N - 2 .. N - 1)
        col = np.minimum(col - col % width, N - width) + col % width
    b = np.where((row >= 0) & (row < K) & (col < N), row * N + col, PAD)
    b = np.broadcast_to(b, (gy, gx, P, r.slots_b))

    rows, cols = thread_outputs(r, np.arange(r.threads))
    R = row0 + rows
    Cc = col0 + cols
    mine = (R >= by * r.BM) & (Cc >= bx * r.BN)  # (all of them but in a shifted tile)
    c = np.where((R < M) & (Cc < N) & mine & (not reduce), R * N + Cc, NEVER)
    return LadderTrace(np.array(a), np.array(b), np.array(c))


#: The tuned kernel's configurations, the planner's choices (:mod:`explainer.tuning.planner`):
#: smaller block tiles make more blocks, so that shapes too small to fill the SMs with 256 x 128
#: tiles (1024^3: 32 blocks on 132 SMs) still keep them busy; thin ones fit skinny C. The GPU runs,
#: checks and traces them like the rungs (``explainer.gpu`` registers them when this package is
#: imported).
CONFIGS: tuple[TunedConfig, ...] = (
    _c("warptile_256x128", FILE, "warptile_gemm",
       [("BM", 256), ("BN", 128), ("BK", 8), ("WM", 64), ("WN", 64), ("WNITER", 2),
        ("TM", 8), ("TN", 4), ("THREADS", 256), ("PAD", 4), ("MINB", 1)],
       "warp tiling, 256 x 128",
       "kernel 14's block tile: 16 x 8 outputs a thread in 64 x 64 warp tiles, the most reuse of "
       "each loaded value, for large C"),
    _c("warptile_128x128", FILE, "warptile_gemm",
       [("BM", 128), ("BN", 128), ("BK", 8), ("WM", 64), ("WN", 32), ("WNITER", 2),
        ("TM", 8), ("TN", 4), ("THREADS", 256), ("PAD", 4), ("MINB", 2)],
       "warp tiling, 128 x 128",
       "the warp-tiled kernel with 128 x 128 block tiles: twice the blocks of 256 x 128"),
    _c("warptile_128x64", FILE, "warptile_gemm",
       [("BM", 128), ("BN", 64), ("BK", 8), ("WM", 64), ("WN", 32), ("WNITER", 2),
        ("TM", 8), ("TN", 4), ("THREADS", 128), ("PAD", 4), ("MINB", 4)],
       "warp tiling, 128 x 64",
       "the warp-tiled kernel with 128-thread blocks of 128 x 64 outputs: four times the blocks"),
    _c("warptile_64x64", FILE, "warptile_gemm",
       [("BM", 64), ("BN", 64), ("BK", 8), ("WM", 32), ("WN", 32), ("WNITER", 2),
        ("TM", 4), ("TN", 4), ("THREADS", 128), ("PAD", 4), ("MINB", 4)],
       "warp tiling, 64 x 64",
       "the warp-tiled kernel with 64 x 64 block tiles: eight times the blocks, 16 outputs a thread"),
    _c("warptile_64x64_bk16", FILE, "warptile_gemm",
       [("BM", 64), ("BN", 64), ("BK", 16), ("WM", 32), ("WN", 32), ("WNITER", 2),
        ("TM", 4), ("TN", 4), ("THREADS", 128), ("PAD", 4), ("MINB", 4)],
       "warp tiling, 64 x 64, BK 16",
       "64 x 64 tiles with 16-deep phases: twice the multiply-adds per wait for global memory, for "
       "small blocks that each SM runs alone or in pairs (latency-bound phases)"),
    _c("warptile_64x64_bk32", FILE, "warptile_gemm",
       [("BM", 64), ("BN", 64), ("BK", 32), ("WM", 32), ("WN", 32), ("WNITER", 2),
        ("TM", 4), ("TN", 4), ("THREADS", 128), ("PAD", 4), ("MINB", 4)],
       "warp tiling, 64 x 64, BK 32",
       "64 x 64 tiles with 32-deep phases: four times the multiply-adds per wait of the BK 8 "
       "configuration; fastest on the guarded path of small odd shapes"),
    _c("warptile_32x128", FILE, "warptile_gemm",
       [("BM", 32), ("BN", 128), ("BK", 16), ("WM", 32), ("WN", 32), ("WNITER", 2),
        ("TM", 4), ("TN", 4), ("THREADS", 128), ("PAD", 4), ("MINB", 4)],
       "warp tiling, 32 x 128",
       "4 warps side by side along N over 32 rows: for C with few rows (skinny M), less of each "
       "tile falls outside C"),
    _c("warptile_64x128", FILE, "warptile_gemm",
       [("BM", 64), ("BN", 128), ("BK", 8), ("WM", 32), ("WN", 64), ("WNITER", 2),
        ("TM", 4), ("TN", 4), ("THREADS", 128), ("PAD", 4), ("MINB", 4)],
       "warp tiling, 64 x 128",
       "128 x 64's tile turned on its side (cuBLAS's choice at 1100^3 and 64 x 4096 x 4096): half "
       "the rows of a tile, for C with 64-100 rows or a round of tiles that 128 rows leave short"),
    _c("warptile_128x32_bk16", FILE, "warptile_gemm",
       [("BM", 128), ("BN", 32), ("BK", 16), ("WM", 32), ("WN", 32), ("WNITER", 2),
        ("TM", 4), ("TN", 4), ("THREADS", 128), ("PAD", 4), ("MINB", 4)],
       "warp tiling, 128 x 32, BK 16",
       "4 warps stacked along M over 32 columns: for C with few columns (skinny N, 16-48), a "
       "quarter of the 128-column tiles' width"),
    _c("warptile_128x256", FILE, "warptile_gemm",
       [("BM", 128), ("BN", 256), ("BK", 8), ("WM", 64), ("WN", 64), ("WNITER", 2),
        ("TM", 8), ("TN", 4), ("THREADS", 256), ("PAD", 4), ("MINB", 1)],
       "warp tiling, 128 x 256",
       "the 256 x 128 tile turned on its side (cuBLAS's at 128 x 4977 x 7361, K split in 6): for C "
       "with 128 rows or fewer and many columns, one row of tiles with 128 outputs a thread"),
    _c("warptile_128x64_bk16", FILE, "warptile_gemm",
       [("BM", 128), ("BN", 64), ("BK", 16), ("WM", 64), ("WN", 32), ("WNITER", 2),
        ("TM", 8), ("TN", 4), ("THREADS", 128), ("PAD", 4), ("MINB", 3)],
       "warp tiling, 128 x 64, BK 16",
       "128 x 64 tiles with 16-deep phases: twice the multiply-adds per copy of the BK 8 "
       "configuration, where rows not 16-byte aligned make every copy element by element"),
    _c("warptile_64x64_t64", FILE, "warptile_gemm",
       [("BM", 64), ("BN", 64), ("BK", 8), ("WM", 32), ("WN", 64), ("WNITER", 2),
        ("TM", 8), ("TN", 4), ("THREADS", 64), ("PAD", 4), ("MINB", 6)],
       "warp tiling, 64 x 64, 2 warps",
       "64 x 64 tiles of 2 warps of 32 x 64, 8 x 8 outputs a thread (64x128's warp tile), six blocks "
       "per SM: the small tile of short K on a large C (cuBLAS runs 64 x 64 tiles at 3506x1802x282) "
       "with four times the outputs a thread of the 4-warp 64 x 64"),
    _c("warptile_96x128", FILE, "warptile_gemm",
       [("BM", 96), ("BN", 128), ("BK", 24), ("WM", 32), ("WN", 64), ("WNITER", 2),
        ("TM", 8), ("TN", 4), ("THREADS", 192), ("PAD", 4), ("MINB", 2)],
       "warp tiling, 96 x 128, BK 24",
       "6 warps of 32 x 64 over 96 rows, 8 x 8 outputs a thread: for C with 65-96 or 129-192 rows, "
       "which 128-row tiles leave a quarter to a half empty (24-deep phases: the copies divide evenly "
       "among 192 threads)"),
    _c("warptile_48x128", FILE, "warptile_gemm",
       [("BM", 48), ("BN", 128), ("BK", 32), ("WM", 48), ("WN", 32), ("WNITER", 1),
        ("TM", 4), ("TN", 4), ("THREADS", 128), ("PAD", 4), ("MINB", 3)],
       "warp tiling, 48 x 128, BK 32",
       "4 warps of 48 x 32 side by side, 12 x 4 outputs a thread: for C with 33-48 or 129-144 rows "
       "(skinny M, deep K with a small C), where 32- and 64-row tiles leave rows empty"),
    _c("warptile_128x48", FILE, "warptile_gemm",
       [("BM", 128), ("BN", 48), ("BK", 32), ("WM", 32), ("WN", 48), ("WNITER", 3),
        ("TM", 4), ("TN", 4), ("THREADS", 128), ("PAD", 4), ("MINB", 3)],
       "warp tiling, 128 x 48, BK 32",
       "48 x 128 turned on its side: 4 warps of 32 x 48 stacked along M, 4 x 12 outputs a thread, for "
       "C with 33-48 or 129-144 columns (skinny N, deep K with a small C), where 32- and 64-column "
       "tiles leave columns empty"),
    _c("warptile_128x48_t64", FILE, "warptile_gemm",
       [("BM", 128), ("BN", 48), ("BK", 16), ("WM", 64), ("WN", 48), ("WNITER", 3),
        ("TM", 8), ("TN", 4), ("THREADS", 64), ("PAD", 4), ("MINB", 4)],
       "warp tiling, 128 x 48, 2 warps",
       "2 warps of 64 x 48 stacked along M, 8 x 12 outputs a thread (t64's thread tile with a third "
       "column group): for C with 129-144 or 145-192 columns at deep K, where 64-column tiles "
       "leave columns empty and 4 x 12 threads wait on shared memory"),
    _c("warptile_64x96_t64", FILE, "warptile_gemm",
       [("BM", 64), ("BN", 96), ("BK", 16), ("WM", 64), ("WN", 48), ("WNITER", 3),
        ("TM", 8), ("TN", 4), ("THREADS", 64), ("PAD", 4), ("MINB", 4)],
       "warp tiling, 64 x 96, 2 warps",
       "128x48_t64's two warps of 64 x 48 side by side along N, 8 x 12 outputs a thread: for C with "
       "257-288 or 449-480 columns at deep K, where 64- and 128-column tiles leave 6-33% of their "
       "columns outside C and 48-column tiles read every row of A twice as often"),
)
BY_NAME: dict[str, TunedConfig] = {c.name: c for c in CONFIGS}


def config(name: str) -> TunedConfig:
    """A configuration of the tuned kernel by name."""
    if name not in BY_NAME:
        raise ValueError(f"unknown configuration {name!r}; choose one of {', '.join(BY_NAME)}")
    return BY_NAME[name]
