"""How a library picks a kernel for a shape: the ladder's rungs planned on a device's SMs.

The same kernel is fast at 4096^3 and slow at 1024^3 because of how its blocks land on the SMs.
A block tile of BM x BN gives ``ceil(M/BM) * ceil(N/BN)`` blocks; the GPU hands them to its SMs,
and the launch lasts as long as the SM that got the most blocks. With 132 SMs:

* warptile_256x128 at 4096^3: 512 blocks, 3.9 per SM -> the longest SM runs 4 blocks, all
  132 SMs busy;
* the same kernel at 1024^3: 32 blocks -> 100 of the 132 SMs have nothing to do.

The model here: every rung's *SM time per block* is calibrated once from a measured run with many
blocks per SM (the largest square of the recorded timings: ``ms * SMs / blocks``, with K scaled
linearly), and a launch is predicted to take ``ceil(blocks / SMs)`` of those (the longest SM).
:func:`plan` ranks the kernels (:data:`CANDIDATES`: kernels 10-13 and the tuned kernel 14's configurations) for a
shape by that prediction and says why, in numbers; where every candidate was measured at that
very shape on the device, the measurements decide (as a library's tuning table would).

Split-K (kernel 14's ``warptile_splitk_gemm``): where C has fewer tiles than twice the SMs,
each warp-tiled configuration is also planned with its K loop cut into S slices (S blocks per
tile; any S up to :data:`MAX_SPLITS`, each slice at least 2 phases, at most
:data:`MAX_BLOCKS_PER_SM` blocks per SM): ``ceil(tiles * S / SMs)`` blocks on the busiest SM, each
with the longest slice of K, plus the fix-up's traffic (S slices of M x N floats written and read
back) at :data:`FIXUP_GBS`. Every S counts, not only the tuning grid's (:data:`SPLITS`): 25 tiles
of C (300 x 300 in 64 x 64 tiles) make 300 blocks at S = 12, 3 on the busiest SM where the
average is 2.3; S = 21 makes 525, 4 where the average is 3.98. A tuning table measures the grid's
S; another S is estimated from the nearest measured one of the same kernel, scaled by the model.

Split tail (kernel 14's ``warptile_splittail_gemm``): where the tiles fill the SMs some whole
number of rounds and leave a last, partial one (3000^3 in 256 x 128 tiles: 288 tiles on 132 SMs,
2 rounds and 24 tiles), the last ``tiles mod SMs`` tiles are split in S (24 x 5 = 120 blocks of a
fifth of K) and the rest computed whole: the busiest SM runs 2 whole blocks and one slice instead
of 3 whole blocks. Model: ``ceil(whole / SMs)`` whole blocks (:func:`sm_load`: too few an SM to
cover a phase's loads count longer) plus ``ceil(tail * S / SMs)`` slices,
plus the tail's fix-up traffic and the fix-up of one tile: its last block reads the S slices alone
(:data:`FIXUP_TILE_GBS`; on the H100 a tail of warptile_128x128 split in 31 ran 9-16% longer than in 8). A tuning table without split-tail rows estimates it from the
kernel's whole launch (S = 1) at the nearest tuned shape, scaled by the model.

Too few blocks to cover the loads (:func:`sm_load`): an SM that gets fewer blocks than it holds
at once may not have enough warps to issue multiply-adds while a phase's copies travel. Where a
scheduler's warps issue fewer than :data:`LATENCY_CYCLES` multiply-adds a phase, each block counts
that many cycles over those it issues longer (64x128 split in 4 at 64x4096x4096: one block of
4 warps an SM, 512 cycles a phase, 1.37x; it ran 1.39x the time per block of the split in 8).

What the model leaves out: the rest of a lone block's latency (warptile_128x64 at 1024^3 is
still predicted faster than measured), and launch overhead, which dominates below ~10 us. Pure
Python: the recorded rows are passed in (``explainer.gpu.recorded`` loads them).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from ..gpu.launch import label_of
from ..model.launch import ceil_div, padded_shape
from ..model.ladder import RUNGS, Rung
from .configs import CONFIGS, copy_width

#: What the planner weighs: kernels 10-13 as the lesson builds them and every configuration of
#: the tuned kernel 14 (:data:`explainer.tuning.configs.CONFIGS`; its 256 x 128 one is the rung's
#: tile, tuned, so the rung itself is left out).
CANDIDATES: tuple[Rung, ...] = tuple(r for r in RUNGS if not r.layout == "warp") + CONFIGS
BY_NAME: dict[str, Rung] = {r.name: r for r in CANDIDATES}


#: Split counts a tuning table measures (``tiled-explainer tune``; kernel 14 takes any S up to the
#: number of phases).
SPLITS = (2, 3, 4, 6, 8, 12, 16, 24, 32)
#: The planner considers every S from 2 to this (the fix-up's traffic grows with S).
MAX_SPLITS = 32
#: No split that gives more blocks than this per SM (their slices get too short to pay).
MAX_BLOCKS_PER_SM = 8
#: A split tail of a configuration that shares its SM is planned only where the model says it
#: saves at least this share of the busiest SM's time (:func:`tail_choices`).
MIN_TAIL_GAIN = 0.05
#: The fix-up's traffic is charged at this rate (GB/s): the H100's measured device-to-device copy
#: bandwidth (benchmarks/results/ladder_planner_2026-11-23.md); most of it stays in L2.
FIXUP_GBS = 2990.0
#: ... and kernel 14's own fix-up has the last of a tile's S blocks read the S slices of its tile
#: alone, one block on one SM (``split_fixup``): S x BM x BN floats at this rate (GB/s), on the
#: busiest SM's time. Fitted on the H100 (benchmarks/results/splitk_2026-11-23.md) to
#: what a split tail's time gains from 8 slices to 16-31 (warptile_128x128 at 2157x919x1719 and
#: 2156x920x1720: 4 tiles in 8, 0.229 and 0.201 ms; later 0.266 and 0.219) and to the nearly flat
#: times of warptile_64x128's (8 in 8 and 16; 3 in 8 and 27 at 907x1027x1073). One slice at a time,
#: before split_fixup, the rate was ~16 GB/s (0.345 and 0.314 ms).
FIXUP_TILE_GBS = 48.0
#: A split-K launch with a separate reduction (``+reduce``, kernels/splitk_reduce.cu) is planned
#: up to this many slices: the reduction reads the S slices over every SM, where kernel 14's own
#: fix-up has one block per tile read them (S up to :data:`MAX_SPLITS`).
MAX_SPLITS_REDUCE = 128
#: The separate reduction's S + 1 slices of M x N floats (read S, write 1) are charged at this rate
#: (GB/s) plus :data:`REDUCE_LAUNCH_MS` for its launch (H100).
REDUCE_GBS = 3000.0
REDUCE_LAUNCH_MS = 0.003
#: A padded launch's copies (kernels/pad_rows.cu) are charged at this rate (GB/s, bytes read +
#: written) plus :data:`PAD_LAUNCH_MS` per copy launch: the least-squares fit of the copies alone
#: over 10 shapes, timed on the H100 (benchmarks/results/splitk_2026-11-23.md: 2665 and
#: 2670 GB/s, 3.5 and 3.7 us in two runs).
PAD_GBS = 2670.0
PAD_LAUNCH_MS = 0.0036
#: Padded launches are planned only where the best of them is estimated at least this share
#: faster than the best launch without padding. The estimates of the two come from different
#: shapes of the tuning table (4095 x 1023 x 1023 against 4092 x 1020 x 1020) and miss by up to
#: 14% either way. Measured on the H100 (25 unaligned shapes, 16 of them
#: random, padded against unpadded in one process), summed over the shapes a threshold keeps:
#: >= 5%: 16 shapes, +25 points (up to +10; -12 and -14 at 4450 x 691 x 4972 and 959 x 723 x
#: 4760); >= 4%: 17, +17 (4023 x 1244 x 453: -13); >= 3%: 21, 0.
MIN_PAD_GAIN = 0.05
#: The same where the tuning table measured padded launches at the nearest tuned shape, so that the
#: padded and the plain estimates are scaled from one shape (:func:`_scaled_from_padded`).
MIN_PAD_GAIN_SAME = 0.02


def split_choices(r: Rung, M: int, N: int, K: int, sms: int, splits=SPLITS) -> list[int]:
    """The split counts for ``r`` at this shape: 1, and for the warp-tiled kernels where C has
    fewer than 2 tiles per SM, every S of ``splits`` (the tuning grid, :data:`SPLITS`, unless
    told) that leaves each slice at least 2 phases and gives at most :data:`MAX_BLOCKS_PER_SM`
    blocks per SM. :func:`plan` passes every S up to :data:`MAX_SPLITS`."""
    gx, gy = r.grid(M, N)
    tiles = gx * gy
    out = [1]
    if r.splits_k and tiles < 2 * sms:
        out += [S for S in splits if S > 1 and 2 * S <= r.phases(K) and tiles * S <= MAX_BLOCKS_PER_SM * sms]
    return out


#: What :func:`plan` passes to :func:`split_choices`.
PLAN_SPLITS = tuple(range(2, MAX_SPLITS + 1))
#: ... and for the launches with a separate reduction: every S to 32, then steps of 8 to 64 and of 16
#: to :data:`MAX_SPLITS_REDUCE`; a tuning table measures them at :data:`SPLITS` and a few beyond.
REDUCE_SPLITS = PLAN_SPLITS + tuple(range(40, 65, 8)) + tuple(range(80, MAX_SPLITS_REDUCE + 1, 16))
TUNE_REDUCE_SPLITS = SPLITS + (48, 64, 96, MAX_SPLITS_REDUCE)
#: ... and, past :data:`MAX_SPLITS`, the split counts whose blocks fill the SMs' slots in this many
#: whole rounds or fewer (:func:`filling_splits`). 1: at 297 x 329 x 46641, warptile_64x128@70+reduce
#: (2 rounds) ran 9% slower than @26 (one partial round) on the H100, where the model ranked it 2%
#: faster (the slices' fix-up traffic grows with S).
FILL_ROUNDS = 1


def filling_splits(r: Rung, M: int, N: int, sms: int, res: int = 1, K: int | None = None,
                   above: int = MAX_SPLITS) -> tuple[int, ...]:
    """The split counts past ``above`` (:data:`MAX_SPLITS`, below which :func:`plan` weighs every S;
    ``tune`` passes 1, so that its grid has them too) up to :data:`MAX_SPLITS_REDUCE` that fill ``sms``
    SMs of ``res`` blocks each to the last slot, or nearly, in 1 .. :data:`FILL_ROUNDS` rounds:
    S = w * sms * res // tiles. Between the steps of :data:`REDUCE_SPLITS` (40, 48, ..) a shape of
    few tiles leaves SMs idle: 355 x 245 x 48669 in 3 tiles of 128 x 256 runs 120 blocks at S = 40
    on 132 SMs, 132 at S = 44 (cuBLAS's split there). With ``K``: also the S
    that fills them with kernel 14's roomy instantiation, ``MINB - 1`` blocks each, where the launch
    runs it (:func:`launch_residency`; 490x152x38734, 12 tiles of 128 x 64: S = 33)."""
    gx, gy = r.grid(M, N)
    tiles = gx * gy
    out = {w * sms * res // tiles for w in range(1, FILL_ROUNDS + 1)}
    if K is not None and r.min_blocks > 1:
        roomy = {w * sms * (r.min_blocks - 1) // tiles for w in range(1, FILL_ROUNDS + 1)}
        out |= {S for S in roomy if S > 1 and runs_roomy(r, M, N, K, sms, S)}
    return tuple(sorted(S for S in out if above < S <= MAX_SPLITS_REDUCE))


def reduce_splits(r: Rung, M: int, N: int, sms: int, res: int = 1, grid=REDUCE_SPLITS,
                  K: int | None = None) -> tuple[int, ...]:
    """The split counts weighed for ``r``'s launches with a separate reduction: ``grid``
    (:data:`REDUCE_SPLITS`; ``tune`` passes :data:`TUNE_REDUCE_SPLITS`) and :func:`filling_splits`
    (with ``K``: the roomy instantiation's too), each once, in order (for :func:`split_choices`)."""
    return tuple(sorted(set(grid) | set(filling_splits(r, M, N, sms, res, K))))


def _planned_split(r: Rung, M: int, N: int, S: int, sms: int) -> bool:
    """Whether :func:`plan` keeps split count ``S`` for ``r``: 1 and any S of the tuning grid; another
    only where the busiest SM gets at least 2 blocks, or the configuration is made for one block
    per SM. A configuration made to share its SM (``MINB`` >= 2) runs a lone block at its
    latency, ~1.5x its share of a full SM (warptile_128x128 at 256x256x16384: S = 32, 128 blocks,
    0.083 ms, where the model scaled 0.055 from S = 16), which the model does not see."""
    gx, gy = r.grid(M, N)
    return S == 1 or S in SPLITS or dict(r.params).get("MINB", 1) == 1 or ceil_div(gx * gy * S, sms) >= 2


def residency(r: Rung, rows: list[dict] = ()) -> int:
    """Blocks of ``r`` an SM runs at once: the occupancy the device reported in its recorded
    rows (``blocks_per_sm``), else the kernel's ``__launch_bounds__`` minimum (``MINB``), else 1."""
    seen = [row["blocks_per_sm"] for row in rows if row.get("kernel") == r.name and row.get("blocks_per_sm")]
    return int(max(seen)) if seen else int(dict(r.params).get("MINB", 1))


def launch_residency(r: Rung, M: int, N: int, K: int, sms: int, res: int, splits: int = 1,
                     tail: int = 0) -> int:
    """Blocks of ``r`` an SM runs at once in this launch: ``res`` (:func:`residency`), or one fewer
    than the kernel's ``MINB`` where the launch runs kernel 14's roomy instantiation
    (``Rung.runs_roomy``: registers for ``MINB - 1`` blocks): 128x64@33+reduce at 490x152x38734
    runs 3 blocks an SM, all the roomy instantiation holds (:func:`filling_splits`,
    :func:`shortlist`)."""
    if runs_roomy(r, M, N, K, sms, splits, tail):
        return min(res, r.min_blocks - 1)
    return res


def runs_roomy(r: Rung, M: int, N: int, K: int, sms: int, splits: int = 1, tail: int = 0) -> bool:
    """Whether the launch runs the tuned kernel's roomy instantiation (``TunedConfig.runs_roomy``);
    never for kernels 10-13."""
    return r.splits_k and r.runs_roomy(M, N, K, sms, splits, tail)


def sm_shares(blocks: int, sms: int) -> int:
    """The blocks on the busiest SM when ``blocks`` are dealt out to ``sms`` SMs: the launch lasts
    that many blocks' shares of a full SM."""
    return ceil_div(blocks, sms)


#: Cycles a phase's copies take to arrive from L2 or memory, which the multiply-adds of the phase
#: before must cover (kernel 14's register double buffer, H100): a scheduler issues one FFMA a
#: cycle, so a phase covers it where the warps a scheduler holds issue BK x (outputs a thread)
#: multiply-adds each in at least this many cycles. With fewer (one or two blocks an SM of a tile
#: with BK 8 and 4 warps) the SM waits for its loads: :func:`sm_load`. Fitted on the shortlists
#: measured at 64x4096x4096 (64x128 with 1 block an SM, 512 cycles a phase, ran 1.39x
#: the time per block of 2 blocks an SM; 128x64_bk16 alone on an SM, 1024 cycles, as fast as 3).
LATENCY_CYCLES = 700.0


def _latency_factor(r: Rung, blocks: float) -> float:
    """How much longer each of ``blocks`` blocks of ``r`` on one SM takes than the SM's throughput
    alone says: the latency of a phase's copies over the cycles its multiply-adds issue on one of
    the SM's 4 schedulers (at least 1)."""
    issue = blocks * (r.threads / 32) / 4 * r.BK * (r.BM * r.BN / r.threads)
    return max(1.0, LATENCY_CYCLES / issue)


def starved_factor(r: Rung, n: int, res: int) -> float:
    """How much longer each of the ``n`` blocks of ``r`` on an SM that holds ``res`` at once
    counts than on a full SM (the calibration's SM time per block is a full SM's): where n < res,
    too few to cover a phase's latency, :func:`_latency_factor` relative to a full SM's; 1 with
    ``res`` or more, the SM full until its last blocks, which start as others end (3506x1802x282:
    13 blocks of 64x64_t64, 6 at a time, ran 94% of cuBLAS; rounds of 6, 6 and 1 would say 14.7)."""
    res = max(1, res)
    if n >= res or n < 1:
        return 1.0
    return _latency_factor(r, n) / _latency_factor(r, res)


def sm_load(r: Rung, blocks: int, sms: int, res: int) -> float:
    """The busiest SM's time in blocks' shares of a full SM: its :func:`sm_shares`, each counted
    :func:`starved_factor` longer."""
    n = sm_shares(blocks, sms)
    return n * starved_factor(r, n, res)


@dataclass(frozen=True)
class Calibration:
    """SM time per block of one rung, from one measured launch with many blocks per SM."""

    rung: str
    size: tuple[int, int, int]  # the measured (M, N, K)
    median_ms: float
    blocks: int
    sm_ms_per_block: float  # at K = size[2]

    def per_block_ms(self, K: int) -> float:
        return self.sm_ms_per_block * K / self.size[2]


@dataclass(frozen=True)
class Candidate:
    """One rung planned for one shape on one device."""

    rung: Rung
    M: int
    N: int
    K: int
    sms: int
    blocks: int
    grid: tuple[int, int]
    longest: int  # blocks on the busiest SM: ceil(blocks / sms)
    busy_sms: int  # SMs that get at least one block
    guarded: bool  # the guarded instantiation (a tile does not divide the shape)
    predicted_ms: float | None
    measured_ms: float | None = None  # recorded at exactly this shape, when there is a row
    tuned_at: tuple[int, int, int] | None = None  # the nearest shape of the device's tuning table
    tuned_ms: float | None = None  # measured there, scaled by the model's ratio between the shapes
    splits: int = 1  # split-K: blocks per tile of C (blocks = tiles * splits)
    tuned_splits: int | None = None  # the split count measured there (the nearest to ``splits``)
    tail: int = 0  # split tail: only the last ``tail`` tiles are split (0: all of them, or none)
    resident: int = 1  # blocks an SM runs at once (:func:`residency`)
    padded_from: tuple[int, int, int] | None = None  # a padded launch: the shape asked for (M, N, K
    # above are the padded shape, whose launch the estimate is: the kernel reads its padded copies)
    reduce: bool = False  # split-K whose slices a separate kernel adds (kernels/splitk_reduce.cu)
    tuned_reduce: bool | None = None  # whether the launch measured there had the separate reduction
    pad_ms: float = 0.0  # the padded launch's copies (:func:`pad_ms`), in every estimate

    @property
    def pad(self) -> bool:
        return self.padded_from is not None

    @property
    def tiles(self) -> int:
        return self.grid[0] * self.grid[1]

    @property
    def label(self) -> str:
        """The name ``bench --kernels`` takes: ``warptile``, ``warptile@4`` (split-K, S = 4), or
        ``warptile@24x5`` (split tail: the last 24 tiles in 5 slices each)."""
        return label_of(self.rung.name, self.splits, self.tail, self.pad, self.reduce)

    @property
    def estimate_ms(self) -> float | None:
        """What ranks the candidate: measured at the shape, else the tuning table's estimate
        (with the padded launch's copies added)."""
        base = self.measured_ms or self.tuned_ms
        return base + self.pad_ms if base else None

    @property
    def busiest_shares(self) -> float:
        """The busiest SM's time in shares of a full SM taken by one block of the whole K
        (:func:`sm_shares`; a slice of the split tail counts 1/S of one)."""
        if self.tail:
            return (sm_shares(self.tiles - self.tail, self.sms)
                    + sm_shares(self.tail * self.splits, self.sms) / self.splits)
        return sm_shares(self.blocks, self.sms) / self.splits

    @property
    def runs_at(self) -> int:
        """Blocks an SM runs at once in this launch (:func:`launch_residency`): ``resident``, or
        one fewer than ``MINB`` on kernel 14's roomy instantiation."""
        return launch_residency(self.rung, self.M, self.N, self.K, self.sms, self.resident, self.splits,
                                self.tail)

    @property
    def starved_blocks(self) -> int:
        """The blocks on the busiest SM that :func:`sm_load` counts: all of them, or with the split
        tail its whole blocks (its slices are short)."""
        return ceil_div(self.tiles - self.tail, self.sms) if self.tail else self.longest

    @property
    def latency_slowdown(self) -> float:
        """How much longer the model counts each block (:func:`sm_load`): more than 1 where the
        busiest SM gets fewer blocks than it holds at once, too few to cover a phase's loads (with the
        split tail: its whole blocks, 100x5000x700's warptile_64x64@26x5 one an SM of 4 warps, which ran
        2.1x the estimate that left this out)."""
        return starved_factor(self.rung, self.starved_blocks, self.resident)

    @property
    def busy_fraction(self) -> float:
        """The share of the SMs' time that does work: the tiles' work over the busiest SM's time
        on every SM."""
        return min(1.0, self.tiles / (self.busiest_shares * self.sms))


def calibrate(rows: list[dict], sms: int) -> dict[str, Calibration]:
    """Per rung, the calibration from its recorded row at the largest square (M = N = K) size
    with at least 2 blocks per SM (so every SM was busy throughout)."""
    out = {}
    for r in CANDIDATES:
        best = None
        for row in rows:
            if (row.get("kernel") != r.name or not row.get("median_ms") or row.get("splits", 1) != 1
                    or row.get("pad") or not (row["M"] == row["N"] == row["K"])):
                continue
            gx, gy = r.grid(row["M"], row["N"])
            if gx * gy < 2 * sms:
                continue
            if best is None or row["M"] > best[0]["M"]:
                best = (row, gx * gy)
        if best:
            row, blocks = best
            out[r.name] = Calibration(r.name, (row["M"], row["N"], row["K"]), row["median_ms"], blocks,
                                      row["median_ms"] * sms / blocks)
    return out


def model_ms(r: Rung, M: int, N: int, K: int, sms: int, cal: Calibration | None, splits: int = 1,
             tail: int = 0, reduce: bool = False, res: int | None = None) -> float | None:
    """The model's time: blocks on the busiest SM, ``res`` (:func:`residency`) at a time, a last
    round too small to cover a phase's latency counted longer (:func:`sm_load`) x the SM time of one block
    (its longest slice of K), plus, with split-K, the fix-up's traffic at :data:`FIXUP_GBS` (with
    ``reduce``: the separate reduction's S + 1 slices at :data:`REDUCE_GBS` and its launch). With
    the split tail: the whole tiles' blocks at the whole K, then the tail's slices, and the fix-up
    of the tail's tiles only."""
    if cal is None:
        return None
    gx, gy = r.grid(M, N)
    k_slice = min(K, ceil_div(r.phases(K), splits) * r.BK)
    res = residency(r) if res is None else res
    if tail:
        area = min(tail * r.BM * r.BN, M * N)
        return (sm_load(r, gx * gy - tail, sms, res) * cal.per_block_ms(K)
                + sm_shares(tail * splits, sms) * cal.per_block_ms(k_slice)
                + 2 * splits * area * 4 / (FIXUP_GBS * 1e6) + tile_fixup_ms(r, splits))
    fixup = 2 * splits * M * N * 4 / (FIXUP_GBS * 1e6) if splits > 1 else 0.0
    if reduce:
        fixup = (splits + 1) * M * N * 4 / (REDUCE_GBS * 1e6) + REDUCE_LAUNCH_MS
    return sm_load(r, gx * gy * splits, sms, res) * cal.per_block_ms(k_slice) + fixup


def tile_fixup_ms(r: Rung, splits: int) -> float:
    """Kernel 14's fix-up of one tile of C split in ``splits`` (ms): its last block reads the S
    slices of BM x BN floats alone, at :data:`FIXUP_TILE_GBS`."""
    return splits * r.BM * r.BN * 4 / (FIXUP_TILE_GBS * 1e6)


def candidate(r: Rung, M: int, N: int, K: int, sms: int, cal: Calibration | None,
              rows: list[dict] = (), splits: int = 1, tail: int = 0, res: int | None = None,
              reduce: bool = False) -> Candidate:
    gx, gy = r.grid(M, N)
    res = residency(r, rows) if res is None else res
    if tail:  # whole tiles, then the tail's slices
        blocks = gx * gy - tail + tail * splits
        longest = ceil_div(gx * gy - tail, sms) + ceil_div(tail * splits, sms)
    else:
        blocks = gx * gy * splits
        longest = ceil_div(blocks, sms)
    measured = next((row["median_ms"] for row in rows if row.get("kernel") == r.name
                     and row.get("splits", 1) == splits and row.get("tail", 0) == tail and not row.get("pad")
                     and bool(row.get("reduce")) == reduce
                     and (row["M"], row["N"], row["K"]) == (M, N, K) and row.get("median_ms")), None)
    return Candidate(r, M, N, K, sms, blocks, (gx, gy), longest, min(blocks, sms), not r.fast(M, N, K),
                     model_ms(r, M, N, K, sms, cal, splits, tail, reduce, res), measured, splits=splits, tail=tail,
                     resident=res, reduce=reduce)


def tail_choices(r: Rung, M: int, N: int, K: int, sms: int, res: int = 1) -> list[tuple[int, int]]:
    """The split tails for ``r`` at this shape, as ``(tail, S)``, every S from 2 to
    :data:`MAX_SPLITS` that leaves each slice at least 2 phases, where either

    * the other tiles are dealt out one per SM at a time (``tail = tiles mod sms``, once there are
      more tiles than SMs) and the tail's slices take at most one more block per SM
      (``tail * S <= sms``), or
    * the other tiles fill whole rounds of the device's slots (``tail = tiles mod (sms x res)``,
      ``res`` blocks per SM at once) and the tail's slices at most one more round
      (``tail * S <= sms x res``).

    Not where the launch would take every slot of the device exactly (``tiles - tail + tail * S
    == sms x res`` with ``res`` >= 2): the H100 then puts two of the whole blocks on one SM (a
    %smid probe: 264 blocks of a 2-per-SM kernel leave pairs of the first 132 together; 156 do
    not), and the split gains nothing (warptile_128x128 at 1500^3, 12 tiles in 11 slices). Nor,
    for a configuration made for more than 2 blocks per SM, the first way where the whole tiles
    take more than half its slots: the H100 does not deal them out evenly (the probe: of 300
    blocks of a 4-per-SM kernel, some SMs get 2 of the first 132), and the split lost or gained
    nothing at 1800^3 (warptile_64x64_bk16, 6 whole blocks per SM and 49 tiles in 2 slices:
    0.4176 ms, whole launch 0.4168; warptile_128x64, 3 per SM and 39 in 3: 75% of cuBLAS where
    warptile runs 87-91%), where with 1-2 whole blocks per SM it gained 8-28 points
    (5000x100x700, 100x5000x700, 1111x999x1234, 1100^3).
    And for a configuration that shares its SM (``res`` >= 2), only where the split saves at
    least :data:`MIN_TAIL_GAIN` of the busiest SM's time (whole blocks + slices / S against the
    whole launch's blocks): its slices run beside other blocks and cost what the model does not
    see. On 30 random shapes whose plan was a split tail, those of the shared configurations that
    save 1.3-4.2% by the model measured 0-3% slower (warptile_128x128 at 7237^3, 81 tiles in 3;
    at 4635x4784x4355, 86 in 3; warptile_64x64_bk16 at 2811x4806x367, 176 in 2), those saving 5%
    or more 1-9% faster; warptile's (one block per SM) 2-4% faster even where the model saves
    3.6-4.4% (7500^3, 7683^3, 8000^3).
    Measured on the H100 (benchmarks/results/splitk_2026-11-23.md): slices that pile
    more than one extra block on an SM whose whole blocks do not fill its slots run 10-30% slower
    than the whole launch (warptile_64x64_bk16 at 1111x999x1234, 24 tiles in 10 slices)."""
    if not r.splits_k:
        return []
    gx, gy = r.grid(M, N)
    out = set()
    for R, cap in ((r.tail_tiles(M, N, sms), sms), (r.tail_tiles(M, N, sms * res), sms * res)):
        if cap == sms and res > 2 and 2 * (gx * gy - R) > sms * res:
            continue  # the whole tiles take more than half the slots: not dealt out evenly
        out |= {(R, S) for S in range(2, MAX_SPLITS + 1) if R and 2 * S <= r.phases(K) and R * S <= cap
                and not (res > 1 and gx * gy - R + R * S == sms * res)
                and (res == 1 or sm_shares(gx * gy - R, sms) + sm_shares(R * S, sms) / S
                     <= (1 - MIN_TAIL_GAIN) * sm_shares(gx * gy, sms) + 1e-9)}
    return sorted(out)


#: How far apart (in log2 steps) two shapes of different kinds count (see :func:`shape_kind`).
KIND_STEP = 0.25


def pad_ms(M: int, N: int, K: int) -> float:
    """The copies of a padded launch of ``M x N x K`` (kernels/pad_rows.cu), in ms: where K is
    not a multiple of 4, A (M x K) is copied into rows of K' = K rounded up to 4; where N is not,
    B (K x N) into rows of N'. Kernel 14 reads the copies and stores C in place. Bytes read and
    written at :data:`PAD_GBS`, plus :data:`PAD_LAUNCH_MS` for the one launch. 0 where K and N
    are multiples of 4 (nothing to pad)."""
    _, N4, K4 = padded_shape(M, N, K)
    if (K4, N4) == (K, N):
        return 0.0
    floats = (M * K + M * K4 if K4 != K else 0) + (K * N + K * N4 if N4 != N else 0)
    return 4 * floats / (PAD_GBS * 1e6) + PAD_LAUNCH_MS


#: What :func:`shape_kind` calls whole tiles: M, N and K multiples of these.
WHOLE_TILE = (128, 128, 32)


def shape_kind(M: int, N: int, K: int) -> tuple[int, bool]:
    """(how kernel 14 copies rows of A and B, :func:`ladder.copy_width`: 4 floats where K and N are
    multiples of 4, 2 where both are even, else 1; whole tiles: M, N multiples of 128 and K of 32):
    what decides between the kernels' fast path, the guarded path with 16-byte loads, the one with
    8-byte loads and the one with scalar loads."""
    bm, bn, bk = WHOLE_TILE
    return copy_width(K, N), M % bm == 0 and N % bn == 0 and K % bk == 0


#: :func:`ladder.copy_width` by K mod 4 and N mod 4 (all it depends on), for many shapes at once.
_WIDTH_BY_RESIDUE = np.array([[copy_width(k, n) for n in range(4)] for k in range(4)])


def nearest_tuned(M: int, N: int, K: int, tuned: list[dict], rung: Rung | None = None,
                  shapes=None) -> tuple[int, int, int] | None:
    """The shape of a tuning table (``tiled-explainer tune``) nearest to ``M x N x K``, in log2
    steps of M, N and K together, plus :data:`KIND_STEP` for each way its kind differs
    (:func:`shape_kind`: how rows are copied, 4, 2 or 1 floats at a time, and whole tiles), among
    those where ladder kernels were measured (or among ``shapes``); of equally near ones the
    smallest. With ``rung``: by that kernel's own kind, whether its
    block tile divides the shape (:meth:`Rung.fast`, the fast instantiation), in place of
    :func:`shape_kind`'s 128-wide test, so that a 64-row tile at M = 64 is scaled from a shape
    its tile divides too."""
    if shapes is None:
        shapes = {(r["M"], r["N"], r["K"]) for r in tuned if r.get("kernel") in BY_NAME and r.get("median_ms")}
    if not len(shapes):
        return None
    arr = shapes if isinstance(shapes, np.ndarray) else np.array(sorted(shapes), dtype=np.int64)
    here = np.array([M, N, K], dtype=np.int64)

    tile = np.array((rung.BM, rung.BN, rung.BK) if rung else WHOLE_TILE)

    def kinds(a):  # (copy width, whole) per shape of a (n x 3): shape_kind's, or Rung.fast's
        return np.stack([_WIDTH_BY_RESIDUE[a[:, 2] % 4, a[:, 1] % 4], (a % tile == 0).all(axis=1)], axis=1)

    dist = (np.abs(np.log2(arr) - np.log2(here)).sum(axis=1)
            + KIND_STEP * (kinds(arr) != kinds(here[None, :])).sum(axis=1))
    return tuple(int(v) for v in arr[int(np.argmin(dist))])  # arr is sorted: the first of equals is the smallest


@dataclass(frozen=True)
class _TunedIndex:
    """A tuning table's unpadded, passed ladder rows, indexed for :func:`plan`: the shapes where
    each kernel was measured, every such shape (sorted n x 3 arrays, :func:`nearest_tuned`'s
    form), and per shape ``(kernel, splits, tail, reduce) -> ms``."""

    by_kernel: dict
    shapes: np.ndarray
    at: dict


_INDEX: list = []  # [(the table's rows as given, its index)]: the last table plan() was given


def _tuned_index(tuned) -> _TunedIndex:
    """The index of ``tuned`` (:class:`_TunedIndex`), kept for the last table given (the pages and
    ``bench`` plan many shapes from one table: tens of thousands of rows, read once)."""
    if _INDEX and _INDEX[0][0] is tuned and len(tuned) == _INDEX[0][1]:
        return _INDEX[0][2]
    by_kernel, at = {}, {}
    for r in tuned:
        if r.get("median_ms") and r.get("passed", True) and not r.get("pad") and r.get("kernel") in BY_NAME:
            s = (r["M"], r["N"], r["K"])
            by_kernel.setdefault(r["kernel"], set()).add(s)
            at.setdefault(s, {})[(r["kernel"], r.get("splits", 1), r.get("tail", 0), bool(r.get("reduce")))] = r["median_ms"]
    as_array = lambda shapes: np.array(sorted(shapes), dtype=np.int64)  # noqa: E731  (nearest_tuned's form)
    index = _TunedIndex({k: as_array(v) for k, v in by_kernel.items()},
                        as_array({s for v in by_kernel.values() for s in v}), at)
    if isinstance(tuned, list):
        _INDEX[:] = [(tuned, len(tuned), index)]
    return index


def _kind(splits: int, tail: int) -> str:
    """A launch's kind, for matching a candidate with the tuning table's rows."""
    return "tail" if tail else ("split" if splits > 1 else "whole")


def plan(M: int, N: int, K: int, rows: list[dict], sms: int, tuned: list[dict] = (),
         pad: bool | str = True) -> list[Candidate]:
    """Every rung and configuration (and split-K count, :func:`split_choices`) for ``M x N x K``
    on a device of ``sms`` SMs, the fastest first. ``rows``: the device's recorded timing rows;
    ``tuned``: its tuning table's rows, if any.

    Ranking: a candidate measured at this very shape (recorded, or in the tuning table) by its
    measurement; else one the tuning table measured at the nearest tuned shape by that time
    scaled by the model's ratio between the two shapes; those with neither come after, by the
    model alone (rungs with no calibration last).

    Where K or N is not a multiple of 4 (rows of A or B not 16-byte aligned: kernel 14 copies
    them by pairs where both are even, else element by element) and ``pad``, every candidate of the padded shape (K, N rounded up
    to 4) is planned too as a padded launch, its estimate that shape's plus the copies
    (:func:`pad_ms`): one read and write of the matrices pays for itself only where the product
    takes long enough. They are kept where the best of them saves at least
    :data:`MIN_PAD_GAIN` on the best launch without padding (``pad="all"``: kept whatever
    their estimates, for :func:`shortlist`)."""
    for name, v in (("M", M), ("N", N), ("K", K), ("SMs", sms)):
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise ValueError(f"{name} must be a whole number >= 1, got {v!r}")
    given, tuned = tuned, list(tuned)
    index = _tuned_index(given)
    # Each rung's SM time per block from the recorded run, else (a configuration the recorded run
    # did not have) from the tuning table's largest square.
    cal = calibrate(rows, sms)
    lacking = {r.name for r in CANDIDATES} - set(cal)
    if lacking:  # only those rungs' rows of the table: it holds tens of thousands
        cal.update(calibrate([r for r in tuned if r.get("kernel") in lacking], sms))
    both = list(rows) + [r for r in tuned if r.get("passed", True)]
    res = {r.name: residency(r, rows) for r in CANDIDATES}
    here = [row for row in both if (row["M"], row["N"], row["K"]) == (M, N, K)]  # measured at this shape
    cands = [candidate(r, M, N, K, sms, cal.get(r.name), here, S, res=res[r.name])
             for r in CANDIDATES for S in split_choices(r, M, N, K, sms, PLAN_SPLITS)
             if _planned_split(r, M, N, S, sms)]
    cands += [candidate(r, M, N, K, sms, cal.get(r.name), here, S, R, res[r.name])
              for r in CANDIDATES for R, S in tail_choices(r, M, N, K, sms, res[r.name])]
    cands += [candidate(r, M, N, K, sms, cal.get(r.name), here, S, res=res[r.name], reduce=True)
              for r in CANDIDATES
              for S in split_choices(r, M, N, K, sms, reduce_splits(r, M, N, sms, res[r.name], K=K))
              if S > 1 and _planned_split(r, M, N, S, sms)]
    near = nearest_tuned(M, N, K, tuned, shapes=index.shapes)
    if near:
        # A tuning table measured a nearby shape on this device: each kernel's time there, scaled
        # by the model's ratio between the two shapes (blocks on the busiest SM, K), estimates it
        # here. The measurement carries the kernel's real efficiency; the model, the shape change
        # (and, for a split count the table did not measure, the change from the nearest one it did:
        # a split-K candidate is scaled from a split-K measurement, never from S = 1).
        # A split tail is scaled from the same kernel's split tail there if the table has one, else
        # from its whole launch (S = 1): most of its blocks are whole tiles.
        # Each kernel from its own nearest shape (:func:`nearest_tuned` with ``rung``: where its
        # tile divides the shape as it does here, if one is as near).
        at = index.at
        near_of = {name: nearest_tuned(M, N, K, tuned, BY_NAME[name], shapes)
                   for name, shapes in index.by_kernel.items()}
        out = []
        for c in cands:
            there_at = near_of.get(c.rung.name)
            ref = _reference(c, at[there_at], there_at) if there_at else None
            there = (model_ms(c.rung, *there_at, sms, cal.get(c.rung.name), *ref, res=c.resident)
                     if ref and ref[0] <= c.rung.phases(there_at[2]) else None)
            if there and c.predicted_ms:
                c = dataclasses.replace(c, tuned_at=there_at,
                                        tuned_ms=at[there_at][(c.rung.name, *ref)] * c.predicted_ms / there,
                                        tuned_splits=ref[0], tuned_reduce=ref[2])
            out.append(c)
        cands = out
    _, N4, K4 = padded_shape(M, N, K)
    if pad and (K4, N4) != (K, N):
        cost = pad_ms(M, N, K)
        padded = [dataclasses.replace(c, padded_from=(M, N, K), pad_ms=cost,
                                      predicted_ms=c.predicted_ms + cost if c.predicted_ms else None)
                  for c in plan(M, N4, K4, rows, sms, given, pad=False) if c.rung.splits_k]
        gain, rank = MIN_PAD_GAIN, (lambda c: c.estimate_ms or c.predicted_ms)  # noqa: E731
        same_rows = near and (near[1] % 4 == 0, near[2] % 4 == 0) == (N % 4 == 0, K % 4 == 0) \
            and copy_width(near[2], near[1]) == copy_width(K, N)
        if same_rows and any(r.get("pad") for r in tuned if (r["M"], r["N"], r["K"]) == near):
            # The tuning table measured padded launches at the nearest shape, whose unaligned
            # matrices are this shape's (the same copies, the same element-by-element paths): each
            # padded candidate is scaled from there, as the plain ones are, so the two estimates
            # share one tuned shape and its errors (and only estimates are compared).
            padded, gain = _scaled_from_padded(padded, near, tuned, sms, cal), MIN_PAD_GAIN_SAME
            rank = lambda c: c.estimate_ms  # noqa: E731
        plain = min((rank(c) for c in cands if rank(c)), default=None)
        best = min((rank(c) for c in padded if rank(c)), default=None)
        if best and (pad == "all" or plain is None or best <= (1 - gain) * plain):
            cands += padded
    return sorted(cands, key=lambda c: (c.estimate_ms is None, c.estimate_ms or 0.0,
                                        c.predicted_ms is None, c.predicted_ms or 0.0))


#: :func:`shortlist`: launches added that fill every SM in one round, for at most this many kernels
#: (each kernel's best such launch at each number of blocks an SM it runs at once).
SHORTLIST_FILL = 3
#: :func:`shortlist`: at most this many launches without padding ...
SHORTLIST_TOP = 12
#: ... whose estimates are within this fraction of the planner's choice's ...
SHORTLIST_WITHIN = 0.25
#: ... and, where rows are not 16-byte aligned, this many padded launches whatever their estimates;
SHORTLIST_PADDED = 2
#: ... and at most this many split-K launches with a separate reduction within the same margin;
SHORTLIST_REDUCE = 8
#: ... of each kernel at most this many launches without padding (its split counts are close
#: neighbours, which crowd out the other kernels) and one padded launch;
SHORTLIST_PER_KERNEL = 3
#: ... and of those at most this many of one kind (whole, split-K, split tail): a kernel's split
#: tails, estimated within 0.3% of each other, left out its whole launch at 3506x1802x282 (session
#: 20: warptile_64x64_t64 0.1087 ms whole, 94% of cuBLAS, against 0.1169 for its best split tail).
SHORTLIST_PER_KIND = 2
#: ... the best this many of a group first whatever their kernels, then each kernel's best.
SHORTLIST_LEAD = 3
#: :func:`shortlist`: for at most this many kernels with a split tail on the list, their whole launch
#: too. The per-kind cap alone did not keep it: each kernel's best launch comes before any kernel's
#: second, and at 3506x1802x282 sixteen kernels' bests filled the list after warptile_64x64_t64's two
#: tails (estimated 4% below its whole launch, measured 2-3% above it: 0.1143 ms whole
#: against 0.1170 and 0.1183; at 1701x1519x923 warptile_64x128 whole 0.1458 against @60x2 0.1484).
SHORTLIST_TAIL_WHOLES = 3


def shortlist(M: int, N: int, K: int, rows: list[dict], sms: int, tuned: list[dict] = (),
              top: int = SHORTLIST_TOP, within: float = SHORTLIST_WITHIN,
              padded: int = SHORTLIST_PADDED, reduce: int = SHORTLIST_REDUCE,
              fill_top: int = SHORTLIST_FILL, tail_wholes: int = SHORTLIST_TAIL_WHOLES) -> list[Candidate]:
    """The launches worth measuring at this very shape, the planner's choice first: ``bench
    --kernels planned`` times them there and runs the fastest (as a library's autotuner measures
    its heuristic's best few). The planner's estimates come from tuned shapes up to a grid step
    away, and the edge blocks, the waves and the split counts change between them; measured at
    the shapes it missed (H100, benchmarks/results/splitk_2026-11-23.md), the fastest
    launch was the planner's 2nd to 8th, with an estimate 1-15% above its choice's (1200^3:
    warptile_128x64@2, 94% of cuBLAS, where the choice ran 87%), and at two unaligned shapes a
    padded launch the planner had not kept (1501x1499x1503: 93% against 79%).

    The list: the planner's choice; then the other launches without padding or a separate
    reduction whose estimate (the model's prediction where nothing was measured near) is within
    ``within`` of the choice's (of the best launch without padding, where the choice is padded), best
    first, at most ``top`` of them in all; as many as ``reduce``
    split-K launches with a separate reduction within the same margin (the table measured few of
    them: they are scaled from split-K without it, whose fix-up costs what the model does not
    see); for up to ``fill_top`` kernels split along K on the list, the kernel's best launch
    whose blocks fill every SM in one round, as many an SM as it runs at once (one for each build
    where kernel 14's roomy one runs a block fewer an SM); for up to ``tail_wholes`` kernels with a
    split tail on the list, their whole launch (the tail's estimate of its lone last round is the
    model's least sure: :data:`SHORTLIST_TAIL_WHOLES`); and where K or N
    is not a multiple of 4 the ``padded`` best padded launches whatever their estimates. Of each
    kernel at most :data:`SHORTLIST_PER_KERNEL` launches of a group and one padded launch: a
    kernel's split counts differ by little, and a list of one kernel's would measure nothing else
    (1501x1499x1503: two padded launches of warptile_64x128 left out warptile_128x128's,
    9% faster). Within a group, the :data:`SHORTLIST_LEAD` best come first, then every kernel's best
    launch before any kernel's second (3506x1802x282: three launches each of two kernels
    left out warptile_64x128, the fastest there; 1722x154x3887: the
    kernels' bests, estimated 10-17% above the choice, had left out the third best, 2% above it and
    the fastest there)."""
    ranked = plan(M, N, K, rows, sms, tuned)
    if not ranked:
        return []
    key = lambda c: c.estimate_ms or c.predicted_ms  # noqa: E731
    first = ranked[0]
    # The launches without padding are measured within ``within`` of the best of them: a padded
    # choice's estimate is scaled from padded launches elsewhere, and where it is low the window
    # around it left every plain launch out (1075x613x1455: a shortlist of two padded
    # launches, 0.079 ms at best, 69% of cuBLAS).
    plain = first if not first.pad else next((c for c in ranked if not c.pad), first)
    limit = (1 + within) * key(plain) if key(plain) else None
    close = [c for c in ranked[1:] if not c.pad and key(c) and limit and key(c) <= limit]

    def few_each(cands, n, cap, taken=()):  # the first n of cands, at most cap of each kernel (and
        out, seen, kinds = [], {}, {}          # SHORTLIST_PER_KIND of one kind), counting ``taken``: the
        kind = lambda c: (c.rung.name, _kind(c.splits, c.tail))  # noqa: E731  SHORTLIST_LEAD best, each

        def count(c):                                            # kernel's best, then the others
            seen[c.rung.name] = seen.get(c.rung.name, 0) + 1
            kinds[kind(c)] = kinds.get(kind(c), 0) + 1

        for c in taken:
            count(c)
        for lead, most in ((SHORTLIST_LEAD, cap), (None, 1), (None, cap)):
            for c in cands[:lead]:
                if (len(out) < n and c not in out and seen.get(c.rung.name, 0) < most
                        and kinds.get(kind(c), 0) < SHORTLIST_PER_KIND):
                    count(c)
                    out.append(c)
        return out

    mine = lambda flag: [first] if first.reduce == flag and not first.pad else []  # noqa: E731
    out = [first] + few_each([c for c in close if not c.reduce], top - 1, SHORTLIST_PER_KERNEL, mine(False))
    out += few_each([c for c in close if c.reduce], reduce - int(first.reduce), SHORTLIST_PER_KERNEL, mine(True))
    # Each kernel split along K on the list: its best launch not listed whose blocks fill every
    # SM in one round, as many as it runs at once (launch_residency), whatever its estimate. The
    # model counts 2 blocks an SM of the 3 it holds as fast as 3 with the same work (their phases
    # cover a copy's latency), the H100 ran them 9-10% slower (490x130x18596, warptile_128x48 @22
    # against @33; the tuning table at 510x126x16382, warptile_128x64 @32 against @48), and at
    # 490x152x38734 no such launch of warptile_128x64 (3 an SM: @33) was measured.
    # Where the kernel has a roomy build (a block fewer an SM, launch_residency), the best launch of
    # each build that fills the SMs so: at 300x202x59276 warptile_64x128@39 (390 blocks, 3 an SM,
    # roomy) ran 0.238 ms, 92% of cuBLAS, and @48 (480, 4 an SM), listed for an estimate 0.4% lower,
    # 0.267.
    listed = {c.label for c in out}
    fills = []
    for name in dict.fromkeys(c.rung.name for c in out if c.splits > 1 and not c.tail and not c.pad):
        levels = {}  # blocks an SM -> the kernel's best launch filling every SM with them in one round
        for c in ranked:
            if (c.rung.name == name and c.splits > 1 and not c.tail and not c.pad and c.longest == c.runs_at
                    and c.blocks > c.sms * (c.runs_at - 1) and c.label not in listed):
                levels.setdefault(c.runs_at, c)
        if levels and len({f.rung.name for f in fills}) < fill_top:
            fills += levels.values()
    _, N4, K4 = padded_shape(M, N, K)
    if padded > 0 and (N4, K4) != (N, K):
        pads = [c for c in plan(M, N, K, rows, sms, tuned, pad="all") if c.pad and c.label != first.label]
        out += few_each(pads, padded - int(first.pad), 1, [first] if first.pad else [])
    listed = {c.label for c in out + fills}
    tails = list(dict.fromkeys(c.rung.name for c in out if c.tail and not c.pad))[:max(tail_wholes, 0)]
    wholes = [w for name in tails
              for w in [next((c for c in ranked if c.rung.name == name and c.splits == 1 and not c.pad), None)]
              if w is not None and w.label not in listed]
    return out + fills + wholes


def _reference(c: Candidate, at: dict,
               there: tuple[int, int, int] | None = None) -> tuple[int, int, bool] | None:
    """The launch of ``c``'s kernel, among those a tuning table measured at one shape (``at``:
    ``(kernel, splits, tail, reduce) -> ms``; ``there``: that shape), that ``c`` is scaled from, as
    ``(splits, tail, reduce)``: the same kind (whole, split-K, split tail; a split tail falls back
    to the whole launch; split-K with a separate reduction to split-K without, the model then
    charging the one's reduction against the other's fix-up), the nearest split count; with
    ``there``, of those within a factor 2 of it that ran the same instantiation (kernel 14's roomy
    one or not, :func:`launch_residency`) where there is one: 490x152x38734, warptile_128x64@44
    (4 blocks an SM, the element copies' addresses spilled) had been scaled from @48 at
    510x126x16382 (3 an SM, roomy) and ranked first; it ran 8% slower than @22."""
    want = _kind(c.splits, c.tail)
    same = [(S, T, R) for (k, S, T, R) in at if k == c.rung.name and _kind(S, T) == want]
    measured = [m for m in same if m[2] == c.reduce] or same
    if not measured and want == "tail":
        measured = [(S, T, R) for (k, S, T, R) in at if k == c.rung.name and S == 1]
    if there and want == "split" and c.rung.min_blocks > 1:
        alike = [m for m in measured if abs(math.log2(m[0] / c.splits)) <= 1
                 and launch_residency(c.rung, *there, c.sms, c.resident, m[0]) == c.runs_at]
        measured = alike or measured
    return min(measured, key=lambda m: (abs(math.log2(m[0] / c.splits)), m)) if measured else None


def _scaled_from_padded(padded: list[Candidate], near: tuple[int, int, int], tuned: list[dict], sms: int,
                        cal: dict) -> list[Candidate]:
    """Padded candidates estimated from the tuning table's padded launches at ``near`` (an
    unaligned shape): the kernel's part of the time there (the measurement less the copies of
    :func:`pad_ms`) scaled by the model's ratio between the padded shapes, plus this shape's
    copies. A kernel the table did not measure padded there keeps no estimate."""
    at = {(r["kernel"], r.get("splits", 1), r.get("tail", 0), bool(r.get("reduce"))): r["median_ms"] for r in tuned
          if (r["M"], r["N"], r["K"]) == near and r.get("pad") and r.get("median_ms") and r.get("passed", True)}
    there_shape, there_cost = padded_shape(*near), pad_ms(*near)
    out = []
    for c in padded:
        ref = _reference(c, at)
        there = (model_ms(c.rung, *there_shape, sms, cal.get(c.rung.name), *ref, res=c.resident)
                 if ref and ref[0] <= c.rung.phases(there_shape[2]) else None)
        here = c.predicted_ms - c.pad_ms if c.predicted_ms else None
        kernel_there = at[(c.rung.name, *ref)] - there_cost if there else None
        if there and here and kernel_there > 0:
            out.append(dataclasses.replace(c, tuned_at=near, tuned_ms=kernel_there * here / there, tuned_splits=ref[0],
                                           tuned_reduce=ref[2]))
        else:
            out.append(dataclasses.replace(c, tuned_at=None, tuned_ms=None, tuned_splits=None))
    return out


def best_per_kernel(cands: list[Candidate]) -> list[Candidate]:
    """The ranked candidates of :func:`plan` with one row per kernel: each kernel at its best
    split-K count (the first of its candidates), in ranking order."""
    seen, out = set(), []
    for c in cands:
        if c.rung.name not in seen:
            seen.add(c.rung.name)
            out.append(c)
    return out
