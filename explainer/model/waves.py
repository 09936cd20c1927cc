"""Waves: how a launch's blocks land on the SMs, and what splitting K changes (page 08's "why
shape matters"). Pure arithmetic, no device: the SM count and the blocks an SM holds at once are
arguments.

A launch of ``blocks`` blocks on ``sms`` SMs that each hold ``per_sm`` blocks at once runs in
**waves** (rounds): ``ceil(blocks / (sms * per_sm))`` of them, and it lasts as long as its busiest
SM. When the blocks do not fill the last wave, that **tail** runs on a few SMs while the others
wait. **Split-K** cuts every tile's K loop into ``S`` slices, one block each: ``S`` times the
blocks, each ``1/S`` as long, plus the work of adding the ``S`` partial tiles (``S`` copies of C
written and read back). The tuning engine (:mod:`explainer.tuning`) weighs these with measured
times; here they are counted only.
"""

from __future__ import annotations

from dataclasses import dataclass

from .launch import FLOAT_BYTES, ceil_div


def tiles(M: int, N: int, BM: int, BN: int) -> int:
    """Tiles of C (one block each without split-K): ``ceil(M/BM) * ceil(N/BN)``."""
    return ceil_div(M, BM) * ceil_div(N, BN)


@dataclass(frozen=True)
class Waves:
    """``blocks`` blocks of ``length`` (1 = one tile's whole K loop) on ``sms`` SMs holding
    ``per_sm`` blocks at once."""

    blocks: int
    sms: int
    per_sm: int = 1
    length: float = 1.0

    def __post_init__(self):
        if self.blocks < 1 or self.sms < 1 or self.per_sm < 1 or not self.length > 0:
            raise ValueError(f"blocks, SMs and blocks per SM must be at least 1, got {self.blocks}, "
                             f"{self.sms}, {self.per_sm}")

    @property
    def slots(self) -> int:
        """Blocks the device runs at once."""
        return self.sms * self.per_sm

    @property
    def rounds(self) -> int:
        """Waves: ``ceil(blocks / slots)``."""
        return ceil_div(self.blocks, self.slots)

    @property
    def tail(self) -> int:
        """Blocks in the last wave when it is partial, else 0."""
        return self.blocks % self.slots if self.blocks > self.slots else 0

    @property
    def idle_sms(self) -> int:
        """SMs with no block at all (fewer blocks than SMs)."""
        return max(0, self.sms - self.blocks)

    @property
    def busy(self) -> float:
        """The share of the launch's slot-time that does work: ``blocks / (rounds * slots)``."""
        return self.blocks / (self.rounds * self.slots)

    @property
    def time(self) -> float:
        """The launch's length in whole-tile blocks: ``rounds * length``."""
        return self.rounds * self.length


def launch(M: int, N: int, K: int, BM: int, BN: int, sms: int, per_sm: int = 1, splits: int = 1) -> Waves:
    """The waves of a launch with BM x BN tiles and K cut in ``splits`` slices (1: whole)."""
    if splits < 1:
        raise ValueError(f"splits must be at least 1, got {splits}")
    return Waves(tiles(M, N, BM, BN) * splits, sms, per_sm, 1.0 / splits)


def split_traffic_bytes(M: int, N: int, splits: int) -> int:
    """What adding split-K's slices moves: ``splits`` partial copies of C written, then read back
    (0 without a split)."""
    return 2 * splits * M * N * FLOAT_BYTES if splits > 1 else 0


def best_split(M: int, N: int, K: int, BM: int, BN: int, BK: int, sms: int, per_sm: int = 1,
               max_splits: int = 32) -> int:
    """The split count with the shortest :attr:`Waves.time` (ties: the fewer slices, whose adding
    costs less), each slice keeping at least one phase of K."""
    phases = ceil_div(K, BK)
    best = 1
    for S in range(2, min(max_splits, phases) + 1):
        if launch(M, N, K, BM, BN, sms, per_sm, S).time < launch(M, N, K, BM, BN, sms, per_sm, best).time - 1e-12:
            best = S
    return best
