"""What every view shares: the colour palette, the readable demo matrices, the windows that
keep big launches drawable, and the kernel source lines a code panel shows.

Pure Python and numpy: the model's answers turned into what a view draws, nothing drawn here.
"""

from __future__ import annotations

import numpy as np

from .. import resources
from ..i18n import N_, _
from ..model import LaunchError, as_int

#: The figures' font stack (plotly figures and the views' own CSS in common.js, page.css): system
#: fonts only, ending in CJK fonts for the Chinese names the pages quote from the course material.
SANS = "Inter, Segoe UI, Helvetica, Arial, Noto Sans CJK SC, Source Han Sans SC, PingFang SC, Microsoft YaHei, sans-serif"

# ---- colours: one discrete palette shared by every grid --------------------------------
IDLE, PANEL, TILE, ACTIVE, PINNED, PADDING, STORED, STALE, HAZARD, WAITING, OUTSIDE = range(11)
PALETTE = [
    "#f3f4f6",  # IDLE      outside the current block's panel
    "#dbeafe",  # PANEL     the block's row panel of A / column panel of B / its C tile
    "#93c5fd",  # TILE      the tile of the current phase
    "#3b82f6",  # ACTIVE    being copied / read in this step
    "#f97316",  # PINNED    the pinned thread's element
    "#d1d5db",  # PADDING   a padding zero in As / Bs
    "#86efac",  # STORED    stored to C
    "#fde7c7",  # STALE     left over from the previous phase (not the padding zeros' grey)
    "#dc2626",  # HAZARD    a shared cell / thread in a race (page 04, explainer.model.hazards)
    "#c4b5fd",  # WAITING   a thread that has arrived at the barrier (not "stored to C")
    "#ffffff",  # OUTSIDE   past the edge of A, B or C (page 03 draws the tiles whole)
]
#: The stepper's colour key (translated where shown: ``_(text)``).
LEGEND = [
    (PANEL, N_("this block's panel")),
    (TILE, N_("tile of this phase")),
    (ACTIVE, N_("copied / read now")),
    (PINNED, N_("pinned thread")),
    (PADDING, N_("padding zero")),
    (STORED, N_("stored to C")),
    (STALE, N_("left from the previous phase")),
    (WAITING, N_("waiting at the barrier")),
]


#: The names a blank of the "Your turn" exercises may use: CUDA's built-ins and the ladder's
#: parameters (views/yourturn.js refuses any other); each exercise adds what its kernel defines.
KERNEL_NAMES = ["blockIdx.x", "blockIdx.y", "threadIdx.x", "threadIdx.y", "blockDim.x", "blockDim.y",
                "gridDim.x", "gridDim.y", "M", "N", "K"]


def tile_shade(base: str, tile, tiles) -> str:
    """A kernel's colour ``base`` (``#rrggbb``), lighter for its smaller tiles (``tiles``: the
    kernel's tiles shown, in order): the largest keeps the colour, the smallest is mixed 55% with
    white, so that T = 8, 16 and 32 of one kernel are told apart (the timing panel, the roofline)."""
    tiles = list(tiles)
    if not tile or len(tiles) < 2:
        return base
    mix = 0.55 * (len(tiles) - 1 - tiles.index(tile)) / (len(tiles) - 1)
    rgb = [int(base[i:i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(c + (255 - c) * mix):02x}" for c in rgb)


def _colorscale():
    n = len(PALETTE)
    scale = []
    for i, c in enumerate(PALETTE):
        scale += [[i / n, c], [(i + 1) / n, c]]
    return scale


COLORSCALE = _colorscale()
ZRANGE = dict(zmin=0, zmax=len(PALETTE), colorscale=COLORSCALE, showscale=False)

#: What each kind of step does, in words (translated where shown: ``_(STEP_WORDS[kind])``).
STEP_WORDS = {
    "load_a": N_("loading the A tile into As"),
    "load_b": N_("loading the B tile into Bs"),
    "barrier1": N_("barrier 1: waiting until every thread has stored its elements"),
    "compute": N_("multiply-adds from As and Bs"),
    "barrier2": N_("barrier 2: waiting until every thread has finished reading the tiles"),
    "store": N_("storing C"),
}
TEXT_MAX = 24  # draw cell labels only when a view has at most this many cells per axis


def window(total: int, lo: int, T: int, cells: int) -> tuple[int, int]:
    """A [start, stop) range of at most ``cells`` indices of ``0..total`` that contains the
    tile starting at ``lo`` and is aligned to tile boundaries where it can be."""
    if total <= cells:
        return 0, total
    tiles = max(1, cells // T)
    start = max(0, lo - ((tiles - 1) // 2) * T)
    stop = min(total, start + tiles * T)
    start = max(0, stop - tiles * T)
    return start, stop


class DemoMatrix:
    """Small, non-symmetric integers in -4..4, computed from (row, col) on demand, so a
    2^20 x 2^10 launch costs nothing until a window of it is drawn. Indexes like a 2-D
    numpy array (ints, slices, integer arrays); values are exact in any product."""

    def __init__(self, rows: int, cols: int, seed: int):
        self.shape = (rows, cols)
        self.seed = seed

    def _axis(self, k, n):
        if isinstance(k, slice):
            return np.arange(*k.indices(n))
        if isinstance(k, (int, np.integer)):
            if not -n <= k < n:
                raise IndexError(f"index {k} out of range 0..{n - 1}")
            return np.int64(k % n)
        return np.asarray(k)

    def __getitem__(self, key):
        r, c = key if isinstance(key, tuple) else (key, slice(None))
        ri, ci = self._axis(r, self.shape[0]), self._axis(c, self.shape[1])
        if isinstance(r, slice) and isinstance(c, slice):
            ri, ci = np.ix_(ri, ci)
        # A hash of (row, col) kept below 2^63: row, col < 2^31 by the launch limits.
        h = (ri.astype(np.int64) * 2654435761 + ci.astype(np.int64) * 40503 + self.seed * 97) % 4294967291
        h = (h ^ (h >> 15)) * 40503 % 4294967291
        return (h % 9 - 4).astype(np.int8)


def demo_matrices(M: int, N: int, K: int, seed: int = 7):
    """A (M x K) and B (K x N) of readable small integers; B is not A's transpose."""
    return DemoMatrix(M, K, seed), DemoMatrix(K, N, seed + 1)


def source_lines(name: str = "03_tiled.cu"):
    """The kernel function from ``kernels/<name>``: [(line_no, text, step_kind|None)], with
    trace-recording lines (no-ops in timed builds) left out."""
    text = resources.kernel_source(name)
    lines = text.splitlines()
    start = next(i for i, l in enumerate(lines) if "__global__" in l and "(" in l)
    if start > 0 and lines[start - 1].startswith("template"):
        start -= 1
    depth, end = 0, start
    for i in range(start, len(lines)):
        depth += lines[i].count("{") - lines[i].count("}")
        if "{" in "".join(lines[start : i + 1]) and depth == 0:
            end = i
            break
    out = []
    for i in range(start, end + 1):
        line = lines[i]
        if line.strip().startswith("TRACE_"):
            continue
        kind = None
        if "// @step:" in line:
            line, marker = line.split("// @step:", 1)
            kind = marker.strip().split()[0]
            line = line.rstrip()
        out.append((i + 1, line, kind))
    return out


def whole(name: str, value) -> int:
    """A number from the browser (typed text, or a JSON number) as an int, or the model's
    one-line error naming ``name``."""
    if isinstance(value, str):
        try:
            value = int(value.strip())
        except ValueError:
            raise LaunchError(_("{name} must be a whole number, got {value}", name=name, value=repr(value.strip()))) from None
    return as_int(name, value)
