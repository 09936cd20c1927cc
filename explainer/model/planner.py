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

    @property
    def busy_fraction(self) -> float:
        """The share of the SMs' time that does work: blocks / (longest * sms)."""
        return self.blocks / (self.longest * self.sms)

    def why(self) -> str:
        r = self.rung
        idle = self.sms - self.busy_sms
        s = (f"{r.BM}×{r.BN} tiles → {self.grid[0]}×{self.grid[1]} = {self.blocks:,} blocks on {self.sms} SMs: "
             f"the busiest SM runs {self.longest} block{'s' if self.longest != 1 else ''}")
        s += f", {idle} SM{'s' if idle != 1 else ''} idle" if idle else f", {self.busy_fraction:.0%} of the SM time does work"
        if self.guarded:
            s += "; guarded path (a tile does not divide the shape)"
        if self.tuned_at and self.tuned_ms:
            s += ("; {:.4f} ms estimated from this device's tuning table (measured at {}x{}x{}, scaled by the "
                  "model)").format(self.tuned_ms, *self.tuned_at)
        return s


def calibrate(rows: list[dict], sms: int) -> dict[str, Calibration]:
    """Per rung, the calibration from its recorded row at the largest square (M = N = K) size
    with at least 2 blocks per SM (so every SM was busy throughout)."""
    out = {}
    for r in RUNGS + CONFIGS:
        best = None
        for row in rows:
            if row.get("kernel") != r.name or not row.get("median_ms") or not (row["M"] == row["N"] == row["K"]):
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


def candidate(r: Rung, M: int, N: int, K: int, sms: int, cal: Calibration | None,
              rows: list[dict] = ()) -> Candidate:
    gx, gy = r.grid(M, N)
    blocks = gx * gy
    longest = ceil_div(blocks, sms)
    measured = next((row["median_ms"] for row in rows if row.get("kernel") == r.name
                     and (row["M"], row["N"], row["K"]) == (M, N, K) and row.get("median_ms")), None)
    return Candidate(r, M, N, K, sms, blocks, (gx, gy), longest, min(blocks, sms), not r.fast(M, N, K),
                     longest * cal.per_block_ms(K) if cal else None, measured)


def nearest_tuned(M: int, N: int, K: int, tuned: list[dict]) -> tuple[int, int, int] | None:
    """The shape of a tuning table (``tiled-explainer tune``) nearest to ``M x N x K``, in log2
    steps of M, N and K together, among those where ladder kernels were measured."""
    shapes = {(r["M"], r["N"], r["K"]) for r in tuned if r.get("kernel") in BY_NAME and r.get("median_ms")}
    if not shapes:
        return None
    dist = lambda s: sum(abs(math.log2(a / b)) for a, b in zip(s, (M, N, K)))  # noqa: E731
    return min(shapes, key=lambda s: (dist(s), s))


def plan(M: int, N: int, K: int, rows: list[dict], sms: int, tuned: list[dict] = ()) -> list[Candidate]:
    """Every rung for ``M x N x K`` on a device of ``sms`` SMs, the predicted fastest first
    (rungs with no calibration last). ``rows``: the device's recorded timing rows; ``tuned``:
    its tuning table's rows, if any: the kernel fastest at the nearest tuned shape comes first."""
    for name, v in (("M", M), ("N", N), ("K", K), ("SMs", sms)):
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise ValueError(f"{name} must be a whole number >= 1, got {v!r}")
    cal = calibrate(rows, sms)
    cands = [candidate(r, M, N, K, sms, cal.get(r.name), rows) for r in RUNGS + CONFIGS]
    if all(c.measured_ms for c in cands):  # measured on this device at this very shape: that decides
        return sorted(cands, key=lambda c: c.measured_ms)
    near = nearest_tuned(M, N, K, list(tuned))
    if near:
        # A tuning table measured a nearby shape on this device: each kernel's time there, scaled
        # by the model's ratio between the two shapes (blocks on the busiest SM, K), estimates it
        # here. The measurement carries the kernel's real efficiency; the model, the shape change.
        at = {r["kernel"]: r["median_ms"] for r in tuned if (r["M"], r["N"], r["K"]) == near
              and r.get("median_ms") and r.get("passed", True)}
        base = {c.rung.name: c for c in (candidate(r, *near, sms, cal.get(r.name)) for r in RUNGS + CONFIGS)}
        cands = [dataclasses.replace(c, tuned_at=near, tuned_ms=at[c.rung.name] * c.predicted_ms / base[c.rung.name].predicted_ms)
                 if c.rung.name in at and c.predicted_ms and base[c.rung.name].predicted_ms else c for c in cands]
        return sorted(cands, key=lambda c: (c.tuned_ms is None, c.tuned_ms or 0.0,
                                            c.predicted_ms is None, c.predicted_ms or 0.0))
    return sorted(cands, key=lambda c: (c.predicted_ms is None, c.predicted_ms or 0.0))
