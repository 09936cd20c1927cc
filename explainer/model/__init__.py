"""The execution model: pure numpy, no GPU, the single source of truth for every picture.

* :mod:`.launch` — the naive and tiled kernels index for index: :class:`Launch` (grid, blocks,
  which thread owns which C element, what it loads in each phase), the program's steps, the
  schedule and its replay, the unguarded kernel's reach. Its names are re-exported here:
  ``from explainer.model import Launch``.
* :mod:`.blockshape` — non-square blocks (blockDim = (BX, BY)) for the naive kernels: who owns which
  element of C, each warp's rows and sectors, the occupancy, the lab report's three partitions.
* :mod:`.rect` — kernel 03b, the tiled kernel with a TILE_X x TILE_Y block: who copies what.
* :mod:`.ladder` — the kernels beyond tiling (10-14): block tiles, float4 copies, warp tiles.
* :mod:`.mma` — tensor cores (15): the mma.sync m16n8k8 TF32 fragments, kernel 15's geometry and
  predicted register trace, TF32 rounding.
* :mod:`.hazards` — the races of the barrier-less variants.
* :mod:`.memory` — one warp's global requests (sectors) and shared-memory banks.
* :mod:`.hardware` — architecture presets (with sources) and occupancy.
* :mod:`.memspaces` — the five memory spaces (scope, lifetime, sizes, recorded latency), the rule
  that places a declaration, and the tile chosen at run time for dynamic shared memory.
* :mod:`.scheduler` — an SM's warp schedulers cycle by cycle: issue, stalls, barriers, latency hiding.
* :mod:`.roofline` — arithmetic intensity, peaks and the roofline bound.
* :mod:`.questions` — predict, then reveal: each page's questions, answers and the model's reasons.
"""

from __future__ import annotations

from .launch import (  # noqa: F401
    KERNELS,
    TILED_BARRIERS,
    MAX_TILE,
    WARP_SIZE,
    FLOAT_BYTES,
    MAX_INDEX,
    PAD,
    LaunchError,
    as_int,
    ceil_div,
    grid_dims,
    phase_count,
    count_label,
    phase_label,
    tile_bytes,
    Launch,
    ThreadView,
    STEP_KINDS,
    Step,
    steps,
    steps_per_phase,
    step_count,
    steps_of_phases,
    phase_of_step,
    Schedule,
    schedule,
    replay,
    unguarded_extents,
    unguarded_report,
    unguarded_values,
)

__all__ = [
    "KERNELS",
    "TILED_BARRIERS",
    "MAX_TILE",
    "WARP_SIZE",
    "FLOAT_BYTES",
    "MAX_INDEX",
    "PAD",
    "LaunchError",
    "as_int",
    "ceil_div",
    "grid_dims",
    "phase_count",
    "count_label",
    "phase_label",
    "tile_bytes",
    "Launch",
    "ThreadView",
    "STEP_KINDS",
    "Step",
    "steps",
    "steps_per_phase",
    "step_count",
    "steps_of_phases",
    "phase_of_step",
    "Schedule",
    "schedule",
    "replay",
    "unguarded_extents",
    "unguarded_report",
    "unguarded_values",
]
