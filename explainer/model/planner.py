"""How a library picks a kernel for a shape: the ladder's rungs planned on a device's SMs.

The same kernel is fast at 4096^3 and slow at 1024^3 because of how its blocks land on the SMs.
A block tile of BM x BN gives ``ceil(M/BM) * ceil(N/BN)`` blocks; the GPU hands them to its SMs,
and the launch lasts as long as the SM that got the most blocks. With 132 SMs:

* warptile (256 x 128) at 4096^3: 512 blocks, 3.9 per SM -> the longest SM runs 4 blocks, all
  132 SMs busy;
* the same kernel at 1024^3: 32 blocks -> 100 of the 132 SMs have nothing to do.

The model here: every rung's *SM time per block* is calibrated once from a measured run with many
blocks per SM (the largest square of the recorded timings: ``ms * SMs / blocks``, with K scaled
linearly), and a launch is predicted to take ``ceil(blocks / SMs)`` of those (the longest SM).
:func:`plan` ranks the rungs (and the top rung's other configurations, ``ladder.CONFIGS``) for a
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

What the model leaves out: a block alone on an SM runs at its latency, not at the SM's
throughput, so configurations made for several blocks per SM (small tiles, 4 warps) are
predicted too fast when each SM gets one block (warptile_128x64 at 1024^3: 0.052 ms predicted,
0.081 ms measured), and launch overhead dominates below ~10 us. Pure Python: the recorded rows
are passed in (``explainer.gpu.recorded`` loads them).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from .launch import ceil_div
from .ladder import BY_NAME, CONFIGS, RUNGS, Rung


#: Split counts a tuning table measures (``tiled-explainer tune``; kernel 14 takes any S up to the
#: number of phases).
SPLITS = (2, 3, 4, 6, 8, 12, 16, 24, 32)
#: The planner considers every S from 2 to this (the fix-up's traffic grows with S).
MAX_SPLITS = 32
#: No split that gives more blocks than this per SM (their slices get too short to pay).
MAX_BLOCKS_PER_SM = 8
#: The fix-up's traffic is charged at this rate (GB/s): the H100's measured device-to-device copy
#: bandwidth (benchmarks/results/ladder_planner_2026-11-23.md); most of it stays in L2.
FIXUP_GBS = 2990.0


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


def _planned_split(r: Rung, M: int, N: int, S: int, sms: int) -> bool:
    """Whether :func:`plan` keeps split count ``S`` for ``r``: 1 and any S of the tuning grid; another
    only where the busiest SM gets at least 2 blocks, or the configuration is made for one block
    per SM. A configuration made to share its SM (``MINB`` >= 2) runs a lone block at its
    latency, ~1.5x its share of a full SM (warptile_128x128 at 256x256x16384: S = 32, 128 blocks,
    0.083 ms, where the model scaled 0.055 from S = 16), which the model does not see."""
    gx, gy = r.grid(M, N)
    return S == 1 or S in SPLITS or dict(r.params).get("MINB", 1) == 1 or ceil_div(gx * gy * S, sms) >= 2


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

    @property
    def tiles(self) -> int:
        return self.grid[0] * self.grid[1]

    @property
    def label(self) -> str:
        """The name ``bench --kernels`` takes: ``warptile`` or ``warptile@4`` (split-K, S = 4)."""
        return self.rung.name if self.splits == 1 else f"{self.rung.name}@{self.splits}"

    @property
    def estimate_ms(self) -> float | None:
        """What ranks the candidate: measured at the shape, else the tuning table's estimate."""
        return self.measured_ms or self.tuned_ms

    @property
    def busy_fraction(self) -> float:
        """The share of the SMs' time that does work: blocks / (longest * sms)."""
        return self.blocks / (self.longest * self.sms)

    def why(self) -> str:
        r = self.rung
        idle = self.sms - self.busy_sms
        if self.splits == 1:
            s = f"{r.BM}×{r.BN} tiles → {self.grid[0]}×{self.grid[1]} = {self.blocks:,} blocks on {self.sms} SMs: "
        else:
            s = (f"{r.BM}×{r.BN} tiles → {self.grid[0]}×{self.grid[1]} = {self.tiles:,} tiles, K split in "
                 f"{self.splits} (split-K, {r.phases(self.K)} phases) → {self.blocks:,} blocks on {self.sms} SMs: ")
        s += f"the busiest SM runs {self.longest} block{'s' if self.longest != 1 else ''}"
        s += f", {idle} SM{'s' if idle != 1 else ''} idle" if idle else f", {self.busy_fraction:.0%} of the SM time does work"
        if self.guarded:
            s += "; guarded path (a tile does not divide the shape)"
        if self.tuned_at and self.tuned_ms:
            at = "{}x{}x{}".format(*self.tuned_at)
            if self.tuned_splits not in (None, self.splits):
                at += f" with K split in {self.tuned_splits}"
            s += (f"; {self.tuned_ms:.4f} ms estimated from this device's tuning table (measured at {at}, "
                  "scaled by the model)")
        return s


def calibrate(rows: list[dict], sms: int) -> dict[str, Calibration]:
    """Per rung, the calibration from its recorded row at the largest square (M = N = K) size
    with at least 2 blocks per SM (so every SM was busy throughout)."""
    out = {}
    for r in RUNGS + CONFIGS:
        best = None
        for row in rows:
            if (row.get("kernel") != r.name or not row.get("median_ms") or row.get("splits", 1) != 1
                    or not (row["M"] == row["N"] == row["K"])):
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


def model_ms(r: Rung, M: int, N: int, K: int, sms: int, cal: Calibration | None, splits: int = 1) -> float | None:
    """The model's time: blocks on the busiest SM x the SM time of one block (its longest slice
    of K), plus, with split-K, the fix-up's traffic at :data:`FIXUP_GBS`."""
    if cal is None:
        return None
    gx, gy = r.grid(M, N)
    longest = ceil_div(gx * gy * splits, sms)
    k_slice = min(K, ceil_div(r.phases(K), splits) * r.BK)
    fixup = 2 * splits * M * N * 4 / (FIXUP_GBS * 1e6) if splits > 1 else 0.0
    return longest * cal.per_block_ms(k_slice) + fixup


def candidate(r: Rung, M: int, N: int, K: int, sms: int, cal: Calibration | None,
              rows: list[dict] = (), splits: int = 1) -> Candidate:
    gx, gy = r.grid(M, N)
    blocks = gx * gy * splits
    longest = ceil_div(blocks, sms)
    measured = next((row["median_ms"] for row in rows if row.get("kernel") == r.name
                     and row.get("splits", 1) == splits
                     and (row["M"], row["N"], row["K"]) == (M, N, K) and row.get("median_ms")), None)
    return Candidate(r, M, N, K, sms, blocks, (gx, gy), longest, min(blocks, sms), not r.fast(M, N, K),
                     model_ms(r, M, N, K, sms, cal, splits), measured, splits=splits)


#: How far apart (in log2 steps) two shapes of different kinds count (see :func:`shape_kind`).
KIND_STEP = 0.25


def shape_kind(M: int, N: int, K: int) -> tuple[bool, bool]:
    """(rows of A and B 16-byte aligned: K and N multiples of 4; whole tiles: M, N multiples of 128
    and K of 32): what decides between the kernels' fast path, the guarded path with 16-byte loads,
    and the guarded path with scalar loads."""
    return K % 4 == 0 and N % 4 == 0, M % 128 == 0 and N % 128 == 0 and K % 32 == 0


def nearest_tuned(M: int, N: int, K: int, tuned: list[dict]) -> tuple[int, int, int] | None:
    """The shape of a tuning table (``tiled-explainer tune``) nearest to ``M x N x K``, in log2
    steps of M, N and K together, plus :data:`KIND_STEP` for each way its kind differs
    (:func:`shape_kind`), among those where ladder kernels were measured."""
    shapes = {(r["M"], r["N"], r["K"]) for r in tuned if r.get("kernel") in BY_NAME and r.get("median_ms")}
    if not shapes:
        return None
    kind = shape_kind(M, N, K)
    dist = lambda s: (sum(abs(math.log2(a / b)) for a, b in zip(s, (M, N, K)))  # noqa: E731
                      + KIND_STEP * sum(x != y for x, y in zip(shape_kind(*s), kind)))
    return min(shapes, key=lambda s: (dist(s), s))


def plan(M: int, N: int, K: int, rows: list[dict], sms: int, tuned: list[dict] = ()) -> list[Candidate]:
    """Every rung and configuration (and split-K count, :func:`split_choices`) for ``M x N x K``
    on a device of ``sms`` SMs, the fastest first. ``rows``: the device's recorded timing rows;
    ``tuned``: its tuning table's rows, if any.

    Ranking: a candidate measured at this very shape (recorded, or in the tuning table) by its
    measurement; else one the tuning table measured at the nearest tuned shape by that time
    scaled by the model's ratio between the two shapes; those with neither come after, by the
    model alone (rungs with no calibration last)."""
    for name, v in (("M", M), ("N", N), ("K", K), ("SMs", sms)):
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise ValueError(f"{name} must be a whole number >= 1, got {v!r}")
    cal = calibrate(rows, sms)
    tuned = list(tuned)
    both = list(rows) + [r for r in tuned if r.get("passed", True)]
    cands = [candidate(r, M, N, K, sms, cal.get(r.name), both, S)
             for r in RUNGS + CONFIGS for S in split_choices(r, M, N, K, sms, PLAN_SPLITS)
             if _planned_split(r, M, N, S, sms)]
    near = nearest_tuned(M, N, K, tuned)
    if near:
        # A tuning table measured a nearby shape on this device: each kernel's time there, scaled
        # by the model's ratio between the two shapes (blocks on the busiest SM, K), estimates it
        # here. The measurement carries the kernel's real efficiency; the model, the shape change
        # (and, for a split count the table did not measure, the change from the nearest one it did:
        # a split-K candidate is scaled from a split-K measurement, never from S = 1).
        at = {(r["kernel"], r.get("splits", 1)): r["median_ms"] for r in tuned
              if (r["M"], r["N"], r["K"]) == near and r.get("median_ms") and r.get("passed", True)}
        out = []
        for c in cands:
            measured = [S for (k, S) in at if k == c.rung.name and (S > 1) == (c.splits > 1)]
            ref = min(measured, key=lambda S: (abs(math.log2(S / c.splits)), S)) if measured else None
            there = (model_ms(c.rung, *near, sms, cal.get(c.rung.name), ref)
                     if ref and ref <= c.rung.phases(near[2]) else None)
            if there and c.predicted_ms:
                c = dataclasses.replace(c, tuned_at=near, tuned_ms=at[(c.rung.name, ref)] * c.predicted_ms / there,
                                        tuned_splits=ref)
            out.append(c)
        cands = out
    return sorted(cands, key=lambda c: (c.estimate_ms is None, c.estimate_ms or 0.0,
                                        c.predicted_ms is None, c.predicted_ms or 0.0))


def best_per_kernel(cands: list[Candidate]) -> list[Candidate]:
    """The ranked candidates of :func:`plan` with one row per kernel: each kernel at its best
    split-K count (the first of its candidates), in ranking order."""
    seen, out = set(), []
    for c in cands:
        if c.rung.name not in seen:
            seen.add(c.rung.name)
            out.append(c)
    return out
