"""Shared-memory hazards of the tiled kernel and its barrier-less variants (page 04).

For one block, every phase t and every shared cell ``As[i][j]`` / ``Bs[i][j]``:

* the **writer**: the one thread that stores the cell in phase t (``As[ty][tx]`` is stored by
  thread (x=tx, y=ty), a padding zero counts as a store);
* the **readers**: the T threads that read it in phase t's compute loop (``As[i][k]`` is read at
  step k by the threads of row i, ``Bs[k][j]`` by the threads of column j);
* whether a barrier separates them.

Two kinds of hazard come out of that (a thread never races with itself: its own program order
separates its store and its reads):

* ``read-before-write`` (true dependence; barrier 1 missing): a reader may read the cell before
  its writer stored phase t's element, and so use phase t-1's element (or, in phase 0, whatever
  shared memory held);
* ``write-before-read`` (false dependence, overwrite-while-reading; barrier 2 missing): the
  writer may store phase t+1's element while a reader still needs phase t's.

The pattern is the same in every block (only the values differ), so reports name cells and
threads of one block. ``same_warp`` says which reader runs in the writer's warp: those usually
execute in lockstep and then see the right value anyway, which is why a broken kernel can pass.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from ..i18n import _
from .launch import WARP_SIZE, Launch, LaunchError, phase_label

READ_BEFORE_WRITE = "read-before-write"
WRITE_BEFORE_READ = "write-before-read"


@dataclass(frozen=True)
class Hazard:
    kind: str  # READ_BEFORE_WRITE | WRITE_BEFORE_READ
    barrier: int  # the missing barrier that would separate the accesses (1 or 2)
    tile: str  # "As" | "Bs"
    cell: tuple[int, int]  # (row, column) of the shared array: As[cell[0]][cell[1]]
    phase: int  # the phase whose reads are at risk
    writer: tuple[int, int]  # threadIdx (x, y) that stores the cell
    readers: tuple[tuple[int, int], ...]  # threadIdx (x, y) of the threads at risk
    same_warp: tuple[bool, ...]  # per reader: in the writer's warp?

    def describe(self, phases: int | None = None) -> str:
        """One sentence; phases counted from 0 (``phase t = t of 0..phases-1`` when ``phases`` is
        given), as in the kernel's loop and the steppers."""
        (i, j), (wx, wy) = self.cell, self.writer
        t, n, cell = self.phase, len(self.readers), f"{self.tile}[{i}][{j}]"
        if self.kind == READ_BEFORE_WRITE:
            ph = phase_label(t, phases) if phases else _("phase t = {t}", t=t)
            return _("{n} thread(s) may read {cell} in {phase} before thread (x={wx}, y={wy}) stores it "
                     "(barrier 1 is missing)", n=n, cell=cell, phase=ph, wx=wx, wy=wy)
        nxt = phase_label(t + 1, phases) if phases else _("phase t = {t}", t=t + 1)
        return _("{n} thread(s) may still read {cell} of phase t = {t} when thread (x={wx}, y={wy}) overwrites it "
                 "with that of {next} (barrier 2 is missing)", n=n, cell=cell, t=t, wx=wx, wy=wy, next=nxt)

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Access:
    """One shared cell in one phase: its writer, its readers, which barriers separate them."""

    tile: str
    cell: tuple[int, int]
    phase: int
    writer: tuple[int, int]
    readers: tuple[tuple[int, int], ...]
    barrier_before_reads: bool  # barrier 1: the store happens before any read
    barrier_before_next_write: bool  # barrier 2: reads finish before phase t+1's store (or last phase)


def _warp(T: int, x: int, y: int) -> int:
    return (x + y * T) // WARP_SIZE


def accesses(launch: Launch, phase: int | None = None) -> list[Access]:
    """Every (phase, shared cell) of one block (or of one ``phase``), with writer, readers and
    barriers."""
    L = launch
    if not L.is_tiled:
        raise LaunchError(_("{kernel} has no shared tiles", kernel=L.kernel))
    T, P = L.T, L.phases
    b1, b2 = L.barriers
    out = []
    for t in range(P) if phase is None else [phase]:
        last = t == P - 1
        for i in range(T):
            for j in range(T):
                # As[i][j]: stored by (x=j, y=i); read at k=j by every thread of row i.
                out.append(Access("As", (i, j), t, (j, i), tuple((x, i) for x in range(T)),
                                  b1, b2 or last))
                # Bs[i][j]: stored by (x=j, y=i); read at k=i by every thread of column j.
                out.append(Access("Bs", (i, j), t, (j, i), tuple((j, y) for y in range(T)),
                                  b1, b2 or last))
    return out


def hazards(launch: Launch, phase: int | None = None) -> list[Hazard]:
    """The hazards of ``launch``'s kernel, one per (kind, tile, cell, phase); [] when correct."""
    T = launch.T
    out = []
    if all(launch.barriers):
        return out
    for a in accesses(launch, phase):
        others = tuple(r for r in a.readers if r != a.writer)
        if not others:
            continue
        warp = tuple(_warp(T, *r) == _warp(T, *a.writer) for r in others)
        if not a.barrier_before_reads:
            out.append(Hazard(READ_BEFORE_WRITE, 1, a.tile, a.cell, a.phase, a.writer, others, warp))
        if not a.barrier_before_next_write:
            out.append(Hazard(WRITE_BEFORE_READ, 2, a.tile, a.cell, a.phase, a.writer, others, warp))
    return out


def summary(launch: Launch) -> dict:
    """Counts per kind, and how many of the racing (writer, reader) pairs cross a warp."""
    hz = hazards(launch)
    out = {"kernel": launch.kernel, "tile": launch.T, "phases": launch.phases,
           "warps_per_block": -(-launch.T * launch.T // WARP_SIZE)}
    for kind in (READ_BEFORE_WRITE, WRITE_BEFORE_READ):
        hk = [h for h in hz if h.kind == kind]
        pairs = sum(len(h.readers) for h in hk)
        cross = sum(sum(not s for s in h.same_warp) for h in hk)
        out[kind] = {"cells": len(hk), "pairs": pairs, "pairs_across_warps": cross}
    return out


def cells_at(launch: Launch, phase: int, kind: str | None = None) -> dict[str, set]:
    """{"As": {(i, j), ...}, "Bs": {...}}: the cells with a hazard in ``phase`` (for drawing)."""
    out = {"As": set(), "Bs": set()}
    for h in hazards(launch, phase):
        if (kind is None or h.kind == kind):
            out[h.tile].add(h.cell)
    return out
