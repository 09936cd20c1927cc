"""The ladder beyond tiling (kernels 10-14): their parameters and their model, pure numpy.

One table, :data:`RUNGS`, says which template instantiation of each ``kernels/1*.cu`` file the
explainer launches; :mod:`explainer.gpu` compiles exactly these (``name_expressions``), the
pictures of page 08 are drawn from the functions below, and the GPU tests compare these
functions with what the kernels themselves recorded (``-DEXPLAINER_TRACE``, layout in
``kernels/common.cuh``), so the table, the pictures and the kernels cannot drift apart.

Conventions (those of :mod:`explainer.model`, plus):

* A block is 1D: ``tid = threadIdx.x`` in ``0 .. threads - 1``; warp ``tid // 32``, lane
  ``tid % 32``. The grid is ``(ceil(N / BN), ceil(M / BM))``: one block per BM x BN tile of C.
* Phase ``t`` copies the BM x BK window of A (rows ``by*BM ..``, columns ``t*BK - lead ..``) to
  ``As`` and the BK x BN window of B to ``Bs``. ``lead`` (:meth:`Rung.lead`) is 0 but in kernel
  14 where BK does not divide K: its partial phase is phase 0, the zeros before column 0.
  ``As`` is row-major ``As[m * BK + k]`` in kernels 10-11 and transposed ``As[k * LDA + m]``
  from kernel 12 on (``LDA = BM + PAD``).
* Outputs of one thread are numbered ``j`` in the order of the kernel's store loop: row-major
  over the thread's accumulator array ``acc[TM_total][TN_total]``.
* ``GUARD``: the fast instantiation (no checks, 16-byte accesses) runs when BM | M, BN | N and
  BK | K; the guarded one (element loads with padding zeros, stores inside C only) otherwise.

Parameters were tuned on an H100 by ``benchmarks/tune_ladder.py`` (results in
``benchmarks/results/``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from . import hardware
from .launch import FLOAT_BYTES, PAD, ceil_div, padded_shape
from .launch import WARP_SIZE as WARP

#: The GPU kernel 14's configurations were tuned on (its registers per SM and per thread: ``Rung.has_roomy``).
HOPPER = hardware.arch("hopper")
NEVER = -2  # a slot or output nobody writes (the trace's "never written", gpu.launch.NEVER_WRITTEN)


@dataclass(frozen=True)
class Rung:
    """One kernel of the ladder and the instantiation the explainer runs."""

    name: str  # the name in explainer.gpu.KERNELS and on the command line
    file: str
    symbol: str
    params: tuple[tuple[str, int], ...]  # template arguments in order, GUARD left out
    title: str
    idea: str  # one sentence: what changed from the rung before, and why it is faster

    def __getitem__(self, key: str) -> int:
        return self.p[key]

    @cached_property
    def p(self) -> dict:
        p = dict(self.params)
        p.setdefault("TN", 1)
        p.setdefault("PAD", 0)
        p.setdefault("WNITER", 1)
        return p

    # ---- geometry --------------------------------------------------------------------
    @property
    def layout(self) -> str:
        """``"1d"``, ``"2d"`` (a contiguous TM x TN micro-tile per thread) or ``"warp"``."""
        return {"blocktile_1d_gemm": "1d", "warptile_gemm": "warp"}.get(self.symbol, "2d")

    @property
    def transposed(self) -> bool:
        """As stored transposed (As[k * LDA + m]): kernels 12-14."""
        return self.symbol in ("vectorized_gemm", "double_buffered_gemm", "warptile_gemm")

    @property
    def vector(self) -> int:
        """Elements per global load instruction on the fast path (4: float4)."""
        return 4 if self.transposed else 1

    @property
    def buffers(self) -> int:
        return 2 if self.symbol in ("double_buffered_gemm", "warptile_gemm") else 1

    @property
    def barriers_per_phase(self) -> int:
        return 1 if self.buffers == 2 else 2

    @property
    def threads(self) -> int:
        p = self.p
        if self.layout == "warp":
            return p["THREADS"]
        return (p["BM"] // p["TM"]) * (p["BN"] // p["TN"])

    @property
    def BM(self) -> int:
        return self.p["BM"]

    @property
    def BN(self) -> int:
        return self.p["BN"]

    @property
    def BK(self) -> int:
        return self.p["BK"]

    @property
    def lda(self) -> int:
        return self.BM + self.p["PAD"]

    @property
    def swizzled(self) -> bool:
        """Kernel 14 with BK = 32: in every other 8 rows of As the float4s of each pair swap
        places (:func:`as_swizzle`)."""
        return self.symbol == "warptile_gemm" and self.BK == 32

    @property
    def warp_dims(self) -> dict:
        """WM, WN, WMITER, WNITER, WSUBM, WSUBN (warp tiling; for the others the whole block
        tile is one 'sub-tile' and these describe a warp's share of it)."""
        p = self.p
        if self.layout != "warp":
            return {}
        wmiter = (p["WM"] * p["WN"]) // (WARP * p["TM"] * p["TN"] * p["WNITER"])
        return {"WM": p["WM"], "WN": p["WN"], "WMITER": wmiter, "WNITER": p["WNITER"],
                "WSUBM": p["WM"] // wmiter, "WSUBN": p["WN"] // p["WNITER"]}

    @property
    def thread_tile(self) -> tuple[int, int]:
        """(rows, columns) of C one thread owns: TM x 1, TM x TN, or WMITER*TM x WNITER*TN."""
        p = self.p
        if self.layout == "warp":
            w = self.warp_dims
            return w["WMITER"] * p["TM"], w["WNITER"] * p["TN"]
        return p["TM"], p["TN"]

    @property
    def outputs_per_thread(self) -> int:
        r, c = self.thread_tile
        return r * c

    @property
    def phase_fma(self) -> int:
        """Multiply-adds a thread does in one phase of K (BK k-steps): the length of kernel 14's
        K loop, which it unrolls over the whole phase."""
        return self.BK * self.outputs_per_thread

    def shifts(self, M: int, N: int) -> bool:
        """Whether kernel 14's blocks at C's edge shift back inside C at this shape (C at least one
        tile tall and wide): every block then runs the interior body, an edge block on the last
        whole tile inside C, storing only its own outputs (:func:`predict_trace`). Elsewhere its
        edge blocks copy from rows and columns clamped into A and B."""
        return self.splits_k and M >= self.BM and N >= self.BN

    @property
    def slots_a(self) -> int:
        """Floats in one As buffer (padding included)."""
        return self.BK * self.lda if self.transposed else self.BM * self.BK

    @property
    def slots_b(self) -> int:
        return self.BK * self.BN

    @property
    def shared_bytes(self) -> int:
        return self.buffers * (self.slots_a + self.slots_b) * FLOAT_BYTES

    def grid(self, M: int, N: int) -> tuple[int, int]:
        return ceil_div(N, self.BN), ceil_div(M, self.BM)

    def phases(self, K: int) -> int:
        return ceil_div(K, self.BK)

    def lead(self, K: int) -> int:
        """How many padding zeros come before column 0 of A (row 0 of B) in phase 0. Kernel 14
        copies K's partial phase first (the residue first, as CUTLASS does), so that its loop
        never checks K: phase ``t`` covers ``t*BK - lead .. (t+1)*BK - lead - 1``. Kernels
        10-13 put the zeros after column K - 1, in their last phase (lead 0)."""
        return self.phases(K) * self.BK - K if self.splits_k else 0

    def fast(self, M: int, N: int, K: int) -> bool:
        """Whether (M, N, K) takes the unguarded fast instantiation."""
        return M % self.BM == 0 and N % self.BN == 0 and K % self.BK == 0

    @property
    def splits_k(self) -> bool:
        """Whether the kernel can cut its K loop into slices (split-K, ``warptile_splitk_gemm``):
        the warp-tiled kernel 14 in every configuration."""
        return self.layout == "warp"

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
        if (split or tail) and not self.splits_k:
            raise ValueError(f"{self.name} has no split-K entry point")
        args = ", ".join(str(v) for _, v in self.params)
        symbol = self.symbol
        if tail:
            symbol = self.symbol.replace("_gemm", "_splittail_gemm")
        elif split:
            symbol = self.symbol.replace("_gemm", "_splitk_gemm")
        if self.splits_k:
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
        return f"{symbol}<{args}, {'true' if guard else 'false'}>"

    @property
    def expressions(self) -> list[str]:
        if not self.splits_k:
            return [self.expression(False), self.expression(True)]
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
    def min_blocks(self) -> int:
        """The blocks per SM its ``__launch_bounds__`` leave room for (``MINB``; 1 without)."""
        return int(dict(self.params).get("MINB", 1))

    @property
    def has_roomy(self) -> bool:
        """Whether kernel 14 has a roomy instantiation of this configuration that differs from the
        tight one: ``MINB >= 2`` and ``MINB``'s share of an SM's 65 536 registers below the 255 a
        thread can have (warptile_128x48_t64, 64 threads, MINB 4: 256 either way, the same build,
        and 4 blocks an SM run in both)."""
        share = HOPPER["regs_per_sm"] // (self.threads * self.min_blocks)
        return self.splits_k and self.min_blocks > 1 and share < HOPPER["max_regs_per_thread"]

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

    # ---- per-step counts (what the page's sentences and the roofline use) --------------
    @property
    def fma_per_lds(self) -> float:
        """Multiply-adds per shared-memory load instruction in the inner loop."""
        tm, tn = self.thread_tile
        v = 4 if self.transposed else 1
        if self.layout == "1d":
            return tm / (1 + tm)  # TM As reads + 1 Bs read for TM FMAs
        return (tm * tn) / (tm / v + tn / v)

    def intensity(self) -> float:
        """FLOP per byte of global traffic with perfect reuse inside a block tile and none
        across blocks: 2*BM*BN*BK / (4*(BM*BK + BK*BN)) = BM*BN / (2*(BM + BN))."""
        return self.BM * self.BN / (2.0 * (self.BM + self.BN))


def _r(name, file, symbol, params, title, idea) -> Rung:
    return Rung(name, file, symbol, tuple(params), title, idea)


RUNGS: tuple[Rung, ...] = (
    _r("blocktile_1d", "10_blocktile_1d.cu", "blocktile_1d_gemm",
       [("BM", 64), ("BN", 64), ("BK", 8), ("TM", 8)],
       "1D block tiling",
       "each thread computes 8 outputs of a column, so one value read from Bs serves 8 "
       "multiply-adds instead of 1: fewer shared-memory loads per FMA"),
    _r("blocktile_2d", "11_blocktile_2d.cu", "blocktile_2d_gemm",
       [("BM", 128), ("BN", 128), ("BK", 8), ("TM", 8), ("TN", 8)],
       "2D block tiling",
       "each thread computes an 8 x 8 tile as outer products of 8 As and 8 Bs values held in "
       "registers: 64 FMAs per 16 shared loads, and a 128 x 128 block tile halves DRAM traffic"),
    _r("vectorized", "12_vectorized.cu", "vectorized_gemm",
       [("BM", 128), ("BN", 128), ("BK", 8), ("TM", 8), ("TN", 8)],
       "float4 loads, As transposed",
       "16-byte loads and stores move 4 floats per instruction (global and shared), and the "
       "transposed As makes a thread's 8 A values adjacent: a quarter of the memory instructions"),
    _r("double_buffered", "13_double_buffered.cu", "double_buffered_gemm",
       [("BM", 128), ("BN", 128), ("BK", 8), ("TM", 8), ("TN", 8)],
       "double buffering",
       "two shared buffers: the global loads of tile t+1 travel while tile t is multiplied, and "
       "one barrier per phase instead of two"),
    _r("warptile", "14_warptile.cu", "warptile_gemm",
       [("BM", 256), ("BN", 128), ("BK", 8), ("WM", 64), ("WN", 64), ("WNITER", 2),
        ("TM", 8), ("TN", 4), ("THREADS", 256), ("PAD", 4), ("MINB", 1)],
       "warp tiling (tuned)",
       "a warp owns a compact 64 x 64 region and its lanes read adjacent float4s of As and Bs "
       "(no bank conflicts); the tuned 256 x 128 block tile with 16 x 8 outputs per thread "
       "reads each loaded value more often"),
)
#: More configurations of the top rung's kernel (kernels/14_warptile.cu) for the launch planner
#: (explainer.model.planner): smaller block tiles make more blocks, so that shapes too small to
#: fill the SMs with 256 x 128 tiles (1024^3: 32 blocks on 132 SMs) still keep them busy. They
#: are not rungs of the ladder (page 08's chart and views show RUNGS); the GPU runs, checks and
#: traces them like the rungs.
CONFIGS: tuple[Rung, ...] = (
    _r("warptile_128x128", "14_warptile.cu", "warptile_gemm",
       [("BM", 128), ("BN", 128), ("BK", 8), ("WM", 64), ("WN", 32), ("WNITER", 2),
        ("TM", 8), ("TN", 4), ("THREADS", 256), ("PAD", 4), ("MINB", 2)],
       "warp tiling, 128 x 128",
       "the warp-tiled kernel with 128 x 128 block tiles: twice the blocks of 256 x 128"),
    _r("warptile_128x64", "14_warptile.cu", "warptile_gemm",
       [("BM", 128), ("BN", 64), ("BK", 8), ("WM", 64), ("WN", 32), ("WNITER", 2),
        ("TM", 8), ("TN", 4), ("THREADS", 128), ("PAD", 4), ("MINB", 4)],
       "warp tiling, 128 x 64",
       "the warp-tiled kernel with 128-thread blocks of 128 x 64 outputs: four times the blocks"),
    _r("warptile_64x64", "14_warptile.cu", "warptile_gemm",
       [("BM", 64), ("BN", 64), ("BK", 8), ("WM", 32), ("WN", 32), ("WNITER", 2),
        ("TM", 4), ("TN", 4), ("THREADS", 128), ("PAD", 4), ("MINB", 4)],
       "warp tiling, 64 x 64",
       "the warp-tiled kernel with 64 x 64 block tiles: eight times the blocks, 16 outputs a thread"),
    _r("warptile_64x64_bk16", "14_warptile.cu", "warptile_gemm",
       [("BM", 64), ("BN", 64), ("BK", 16), ("WM", 32), ("WN", 32), ("WNITER", 2),
        ("TM", 4), ("TN", 4), ("THREADS", 128), ("PAD", 4), ("MINB", 4)],
       "warp tiling, 64 x 64, BK 16",
       "64 x 64 tiles with 16-deep phases: twice the multiply-adds per wait for global memory, for "
       "small blocks that each SM runs alone or in pairs (latency-bound phases)"),
    _r("warptile_64x64_bk32", "14_warptile.cu", "warptile_gemm",
       [("BM", 64), ("BN", 64), ("BK", 32), ("WM", 32), ("WN", 32), ("WNITER", 2),
        ("TM", 4), ("TN", 4), ("THREADS", 128), ("PAD", 4), ("MINB", 4)],
       "warp tiling, 64 x 64, BK 32",
       "64 x 64 tiles with 32-deep phases: four times the multiply-adds per wait of the BK 8 "
       "configuration; fastest on the guarded path of small odd shapes"),
    _r("warptile_32x128", "14_warptile.cu", "warptile_gemm",
       [("BM", 32), ("BN", 128), ("BK", 16), ("WM", 32), ("WN", 32), ("WNITER", 2),
        ("TM", 4), ("TN", 4), ("THREADS", 128), ("PAD", 4), ("MINB", 4)],
       "warp tiling, 32 x 128",
       "4 warps side by side along N over 32 rows: for C with few rows (skinny M), less of each "
       "tile falls outside C"),
    _r("warptile_64x128", "14_warptile.cu", "warptile_gemm",
       [("BM", 64), ("BN", 128), ("BK", 8), ("WM", 32), ("WN", 64), ("WNITER", 2),
        ("TM", 4), ("TN", 4), ("THREADS", 128), ("PAD", 4), ("MINB", 4)],
       "warp tiling, 64 x 128",
       "128 x 64's tile turned on its side (cuBLAS's choice at 1100^3 and 64 x 4096 x 4096): half "
       "the rows of a tile, for C with 64-100 rows or a round of tiles that 128 rows leave short"),
    _r("warptile_128x32_bk16", "14_warptile.cu", "warptile_gemm",
       [("BM", 128), ("BN", 32), ("BK", 16), ("WM", 32), ("WN", 32), ("WNITER", 2),
        ("TM", 4), ("TN", 4), ("THREADS", 128), ("PAD", 4), ("MINB", 4)],
       "warp tiling, 128 x 32, BK 16",
       "4 warps stacked along M over 32 columns: for C with few columns (skinny N, 16-48), a "
       "quarter of the 128-column tiles' width"),
    _r("warptile_128x256", "14_warptile.cu", "warptile_gemm",
       [("BM", 128), ("BN", 256), ("BK", 8), ("WM", 64), ("WN", 64), ("WNITER", 2),
        ("TM", 8), ("TN", 4), ("THREADS", 256), ("PAD", 4), ("MINB", 1)],
       "warp tiling, 128 x 256",
       "the 256 x 128 tile turned on its side (cuBLAS's at 128 x 4977 x 7361, K split in 6): for C "
       "with 128 rows or fewer and many columns, one row of tiles with 128 outputs a thread"),
    _r("warptile_128x64_bk16", "14_warptile.cu", "warptile_gemm",
       [("BM", 128), ("BN", 64), ("BK", 16), ("WM", 64), ("WN", 32), ("WNITER", 2),
        ("TM", 8), ("TN", 4), ("THREADS", 128), ("PAD", 4), ("MINB", 3)],
       "warp tiling, 128 x 64, BK 16",
       "128 x 64 tiles with 16-deep phases: twice the multiply-adds per copy of the BK 8 "
       "configuration, where rows not 16-byte aligned make every copy element by element"),
    _r("warptile_64x64_t64", "14_warptile.cu", "warptile_gemm",
       [("BM", 64), ("BN", 64), ("BK", 8), ("WM", 32), ("WN", 64), ("WNITER", 2),
        ("TM", 8), ("TN", 4), ("THREADS", 64), ("PAD", 4), ("MINB", 6)],
       "warp tiling, 64 x 64, 2 warps",
       "64 x 64 tiles of 2 warps of 32 x 64, 8 x 8 outputs a thread (64x128's warp tile), six blocks "
       "per SM: the small tile of short K on a large C (cuBLAS runs 64 x 64 tiles at 3506x1802x282) "
       "with four times the outputs a thread of the 4-warp 64 x 64"),
    _r("warptile_96x128", "14_warptile.cu", "warptile_gemm",
       [("BM", 96), ("BN", 128), ("BK", 24), ("WM", 32), ("WN", 64), ("WNITER", 2),
        ("TM", 8), ("TN", 4), ("THREADS", 192), ("PAD", 4), ("MINB", 2)],
       "warp tiling, 96 x 128, BK 24",
       "6 warps of 32 x 64 over 96 rows, 8 x 8 outputs a thread: for C with 65-96 or 129-192 rows, "
       "which 128-row tiles leave a quarter to a half empty (24-deep phases: the copies divide evenly "
       "among 192 threads)"),
    _r("warptile_48x128", "14_warptile.cu", "warptile_gemm",
       [("BM", 48), ("BN", 128), ("BK", 32), ("WM", 48), ("WN", 32), ("WNITER", 1),
        ("TM", 4), ("TN", 4), ("THREADS", 128), ("PAD", 4), ("MINB", 3)],
       "warp tiling, 48 x 128, BK 32",
       "4 warps of 48 x 32 side by side, 12 x 4 outputs a thread: for C with 33-48 or 129-144 rows "
       "(skinny M, deep K with a small C), where 32- and 64-row tiles leave rows empty"),
    _r("warptile_128x48", "14_warptile.cu", "warptile_gemm",
       [("BM", 128), ("BN", 48), ("BK", 32), ("WM", 32), ("WN", 48), ("WNITER", 3),
        ("TM", 4), ("TN", 4), ("THREADS", 128), ("PAD", 4), ("MINB", 3)],
       "warp tiling, 128 x 48, BK 32",
       "48 x 128 turned on its side: 4 warps of 32 x 48 stacked along M, 4 x 12 outputs a thread, for "
       "C with 33-48 or 129-144 columns (skinny N, deep K with a small C), where 32- and 64-column "
       "tiles leave columns empty"),
    _r("warptile_128x48_t64", "14_warptile.cu", "warptile_gemm",
       [("BM", 128), ("BN", 48), ("BK", 16), ("WM", 64), ("WN", 48), ("WNITER", 3),
        ("TM", 8), ("TN", 4), ("THREADS", 64), ("PAD", 4), ("MINB", 4)],
       "warp tiling, 128 x 48, 2 warps",
       "2 warps of 64 x 48 stacked along M, 8 x 12 outputs a thread (t64's thread tile with a third "
       "column group): for C with 129-144 or 145-192 columns at deep K, where 64-column tiles "
       "leave columns empty and 4 x 12 threads wait on shared memory"),
    _r("warptile_64x96_t64", "14_warptile.cu", "warptile_gemm",
       [("BM", 64), ("BN", 96), ("BK", 16), ("WM", 64), ("WN", 48), ("WNITER", 3),
        ("TM", 8), ("TN", 4), ("THREADS", 64), ("PAD", 4), ("MINB", 4)],
       "warp tiling, 64 x 96, 2 warps",
       "128x48_t64's two warps of 64 x 48 side by side along N, 8 x 12 outputs a thread: for C with "
       "257-288 or 449-480 columns at deep K, where 64- and 128-column tiles leave 6-33% of their "
       "columns outside C and 48-column tiles read every row of A twice as often"),
)
BY_NAME: dict[str, Rung] = {r.name: r for r in RUNGS + CONFIGS}
NAMES = tuple(r.name for r in RUNGS)


def label_of(kernel: str, splits: int = 1, tail: int = 0, pad: bool = False, reduce: bool = False) -> str:
    """A launch as ``bench --kernels`` and the planner write it: ``warptile``, ``warptile@4``
    (split-K, S = 4), or ``warptile@24x5`` (split tail: the last 24 tiles in 5 slices each), with
    ``+reduce`` when a split-K launch's slices are added by a separate kernel over every SM
    (kernels/splitk_reduce.cu) and ``+pad`` when A (K not a multiple of 4) and / or B (N not) are
    first copied into rows padded to a multiple of 4 floats; ``explainer.gpu.launch.parse_launch`` reads it back."""
    base = kernel if splits == 1 else (f"{kernel}@{tail}x{splits}" if tail else f"{kernel}@{splits}")
    return base + ("+reduce" if reduce else "") + ("+pad" if pad else "")


def rung(name: str) -> Rung:
    """A rung, or one of the planner's configurations, by name."""
    if name not in BY_NAME:
        raise ValueError(f"unknown ladder kernel {name!r}; choose one of {', '.join(BY_NAME)}")
    return BY_NAME[name]


# ---- the model: which thread owns which output, which element sits in which shared slot ------
def thread_outputs(r: Rung, tid) -> tuple[np.ndarray, np.ndarray]:
    """(rows, cols) inside the block tile of the outputs of thread(s) ``tid``, shape
    ``(..., outputs_per_thread)``, in store-loop order ``j``."""
    tid = np.asarray(tid)
    p = r.p
    tm, tn = r.thread_tile
    i = np.arange(tm)[:, None]
    j = np.arange(tn)[None, :]
    if r.layout == "1d":
        trow, tcol = tid // r.BN, tid % r.BN
        rows = trow[..., None, None] * p["TM"] + i
        cols = np.broadcast_to(tcol[..., None, None], rows.shape)
    elif r.layout == "2d":
        trow, tcol = tid // (r.BN // p["TN"]), tid % (r.BN // p["TN"])
        rows = trow[..., None, None] * p["TM"] + i
        cols = tcol[..., None, None] * p["TN"] + j
    else:
        w = r.warp_dims
        warp, lane = tid // WARP, tid % WARP
        wrow, wcol = warp // (r.BN // w["WN"]), warp % (r.BN // w["WN"])
        trow, tcol = lane // (w["WSUBN"] // p["TN"]), lane % (w["WSUBN"] // p["TN"])
        wm, ii = i // p["TM"], i % p["TM"]
        wn, jj = j // p["TN"], j % p["TN"]
        rows = (wrow * w["WM"] + trow * p["TM"])[..., None, None] + wm * w["WSUBM"] + ii
        cols = (wcol * w["WN"] + tcol * p["TN"])[..., None, None] + wn * w["WSUBN"] + jj
    rows, cols = np.broadcast_arrays(rows, cols)
    shape = tid.shape + (tm * tn,)
    return rows.reshape(shape), cols.reshape(shape)


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


def owner_map(r: Rung) -> np.ndarray:
    """(BM, BN) array: the thread that computes each output of the block tile."""
    tids = np.arange(r.threads)
    rows, cols = thread_outputs(r, tids)
    out = np.full((r.BM, r.BN), -1, dtype=np.int64)
    out[rows, cols] = np.broadcast_to(tids[:, None], rows.shape)
    return out


def as_swizzle(r: Rung, k):
    """What column m of A's tile is XORed with in row ``k`` of the transposed As: 0, but in kernel
    14 with BK = 32 (``r.swizzled``) 4 in rows 8-15 and 24-31, so that the stores of a warp's
    float4s (8 granules of 4 rows, 4 columns) fall in 16 banks instead of 8
    (kernels/14_warptile.cu's ``as_swz``; the compute loop's float4 reads stay whole)."""
    k = np.asarray(k)
    return ((k >> 3) & 1) << 2 if r.swizzled else np.zeros_like(k)


def slot_coords_a(r: Rung) -> tuple[np.ndarray, np.ndarray]:
    """(m, k) inside the A window held by each As slot; (-1, -1) for padding slots."""
    s = np.arange(r.slots_a)
    if r.transposed:
        k, m = s // r.lda, s % r.lda
        pad = m >= r.BM
        return np.where(pad, -1, m ^ as_swizzle(r, k)), np.where(pad, -1, k)
    return s // r.BK, s % r.BK


def slot_coords_b(r: Rung) -> tuple[np.ndarray, np.ndarray]:
    """(k, n) inside the B window held by each Bs slot."""
    s = np.arange(r.slots_b)
    return s // r.BN, s % r.BN


def loader_a(r: Rung) -> np.ndarray:
    """(BM, BK) array: the thread that copies each element of the A window into As (in one
    instruction with its 3 neighbours along k when the rung loads float4s)."""
    v = r.vector
    m, kq = np.meshgrid(np.arange(r.BM), np.arange(r.BK) // v, indexing="ij")
    i = m * (r.BK // v) + kq
    return i % r.threads


def loader_b(r: Rung) -> np.ndarray:
    """(BK, BN) array: the thread that copies each element of the B window into Bs."""
    v = r.vector
    k, nq = np.meshgrid(np.arange(r.BK), np.arange(r.BN) // v, indexing="ij")
    i = k * (r.BN // v) + nq
    return i % r.threads


@dataclass(frozen=True)
class LadderTrace:
    """The model's prediction of what a trace build records (same layout as gpu.trace)."""

    a: np.ndarray  # (gy, gx, phases, slots_a)
    b: np.ndarray  # (gy, gx, phases, slots_b)
    c: np.ndarray  # (gy, gx, threads, outputs_per_thread)


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


def predict_trace(r: Rung, M: int, N: int, K: int, reduce: bool = False, pad: bool = False,
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


def read_slot_a(r: Rung, m, k):
    """The As slot the compute loop reads for row ``m`` of the block tile at step ``k`` (the
    kernel's read index, written separately from the store index :func:`slot_coords_a`)."""
    m, k = np.asarray(m), np.asarray(k)
    return k * r.lda + (m ^ as_swizzle(r, k)) if r.transposed else m * r.BK + k


def read_slot_b(r: Rung, k, n):
    """The Bs slot the compute loop reads for step ``k`` and column ``n`` of the block tile."""
    return np.asarray(k) * r.BN + np.asarray(n)


def replay(r: Rung, A: np.ndarray, B: np.ndarray, pad: bool = False) -> np.ndarray:
    """C computed the way the kernel does it, from the model alone: per block and phase the
    As / Bs slots are filled as :func:`predict_trace` says (the store side); then every thread
    accumulates its outputs from the slots its compute loop reads (:func:`read_slot_a`,
    :func:`read_slot_b`, the load side); a slot nobody stored reads as NaN. Equals A @ B
    exactly when stores, reads and output ownership agree. ``pad``: a padded launch's
    (kernel 14's ``+pad``, :func:`predict_trace`)."""
    M, K = A.shape
    N = B.shape[1]
    tr = predict_trace(r, M, N, K, pad=True) if pad else predict_trace(r, M, N, K)
    # index -1 (padding) -> 0.0, index -2 (never stored) -> NaN
    flatA = np.concatenate([A.ravel().astype(np.float64), [np.nan, 0.0]])
    flatB = np.concatenate([B.ravel().astype(np.float64), [np.nan, 0.0]])
    gx, gy = r.grid(M, N)
    C = np.full((M, N), np.nan)
    rows, cols = thread_outputs(r, np.arange(r.threads))  # (threads, outs)
    kk = np.arange(r.BK)
    ra = read_slot_a(r, rows[..., None], kk)  # (threads, outs, BK)
    rb = read_slot_b(r, kk, cols[..., None])
    for y in range(gy):
        for x in range(gx):
            acc = np.zeros(rows.shape)
            for t in range(r.phases(K)):
                As = flatA[tr.a[y, x, t]]
                Bs = flatB[tr.b[y, x, t]]
                acc += (As[ra] * Bs[rb]).sum(axis=-1)
            dst = tr.c[y, x]
            ok = dst >= 0
            C.ravel()[dst[ok]] = acc[ok]
    return C
