"""Non-square blocks for the naive kernels: what changes when ``blockDim = (BX, BY)``.

The lab report launches its naive kernels with blocks of tile_x x tile_y threads and compares
8x8, 16x16 and 32x32. Three things change with the block's shape, all computed here from
:class:`explainer.model.Launch` (``block_dim``) and :mod:`explainer.model.memory`:

* **the mapping**: which C element thread (tx, ty) of block (bx, by) owns (:func:`owner_map`)
  and the grid's shape (``naive`` covers a BY x BX tile of C per block, ``naive_col`` a BX x BY
  one);
* **the coalescing**: a warp is 32 consecutive ids ``tx + ty*BX``, so with ``BX = 8`` it spans 4
  rows of the block; how many rows of A, B and C and how many 32-byte sectors each of its requests
  touches (:func:`warp_footprint`, :func:`shape_row`);
* **the occupancy**: BX*BY threads per block, and how many blocks an SM holds
  (:func:`explainer.model.hardware.occupancy`; the naive kernels use no shared memory).

:func:`partition_table` is the lab report's comparison of its three partitions (row, column,
block), as rows the model computes: its "block" kernel (``matMulGlobalTile``) indexes
``row = blockIdx.y*tile_y + threadIdx.y``, ``col = blockIdx.x*tile_x + threadIdx.x``, which with
``blockDim = (tile_x, tile_y)`` is the row partition's mapping thread for thread.
"""

from __future__ import annotations

import numpy as np

from ..i18n import _
from . import hardware, memory
from .launch import NAIVE_KERNELS, Launch, LaunchError

#: The block shapes page 05 compares: the lab report's three squares, then non-square ones of 256
#: and 64 threads.
SHAPES = ((8, 8), (16, 16), (32, 32), (32, 8), (64, 4), (16, 4), (8, 32))
#: The lab report's partitions: its kernel, the explainer's kernel with the same arithmetic, and
#: its index lines (``blockDim = (tile_x, tile_y)`` for the block partition).
PARTITIONS = {
    "row": ("matMulRow", "naive", "row = blockIdx.y*blockDim.y + threadIdx.y",
            "col = blockIdx.x*blockDim.x + threadIdx.x"),
    "column": ("matMulCol", "naive_col", "row = blockIdx.y*blockDim.x + threadIdx.x",
               "col = blockIdx.x*blockDim.y + threadIdx.y"),
    "block": ("matMulGlobalTile", None, "row = blockIdx.y*tile_y + threadIdx.y",
              "col = blockIdx.x*tile_x + threadIdx.x"),
}
ACCESS_NAMES = ("A load", "B load", "C store")


def launch(kernel: str, BX: int, BY: int, M: int = 256, N: int = 256, K: int = 256) -> Launch:
    """The naive launch with ``blockDim = (BX, BY)`` (square or not)."""
    if kernel not in NAIVE_KERNELS:
        raise LaunchError(_("non-square blocks are for {kernels}, not {kernel}", kernels=" and ".join(NAIVE_KERNELS),
                            kernel=repr(kernel)))
    return Launch(kernel, M, N, K, block_dim=(BX, BY))


def _threads(L: Launch) -> tuple[np.ndarray, np.ndarray]:
    """``(tx, ty)`` of every thread of a block, in linear-id order (id = tx + ty*blockDim.x)."""
    ty, tx = np.divmod(np.arange(L.BX * L.BY), L.BX)
    return tx, ty


def owner_map(L: Launch, block=(0, 0)) -> dict:
    """Which thread owns each element of block ``block``'s tile of C (``tile_rows x tile_cols``,
    rows and columns from ``origin``; an element past C's edge is still owned, by a ghost thread):
    ``tx``, ``ty``, ``lin`` (linear id), ``warp``, ``lane`` arrays indexed ``[row][col]``."""
    L.check_block(*block)
    bx, by = (int(v) for v in block)
    R, Cw = L.tile_rows, L.tile_cols
    r0, c0 = by * R, bx * Cw
    tx, ty = _threads(L)
    rows, cols = L.c_index(bx, by, tx, ty)
    out = {k: np.full((R, Cw), -1, np.int32) for k in ("tx", "ty", "lin", "warp", "lane")}
    lin = L.linear_thread(tx, ty)
    warp, lane = L.warp_lane(tx, ty)
    for name, v in (("tx", tx), ("ty", ty), ("lin", lin), ("warp", warp), ("lane", lane)):
        out[name][rows - r0, cols - c0] = v
    if (out["lin"] < 0).any():
        raise AssertionError("an element of the block's tile has no owner")
    return {"origin": (r0, c0), "shape": (R, Cw), **out}


def warp_footprint(L: Launch, block=(0, 0), warp: int = 0, k: int = 0) -> dict:
    """What warp ``warp`` of ``block`` touches at loop step ``k``: for A's load, B's load and C's
    store the rows of the matrix its active lanes touch, the 32-byte sectors and the ideal
    (:func:`memory.warp_request`), and the rows of C its lanes own."""
    out = {"warp": int(warp), "k": int(k)}
    for access in ACCESS_NAMES:
        r = memory.warp_request(L, access, block, warp, k=k)
        used = [x for x in r.lanes if x["element"] is not None]
        out[access[0]] = {"rows": sorted({x["element"][0] for x in used}), "sectors": r.sectors, "ideal": r.ideal,
                          "lines": r.lines, "active": r.active, "sector_ids": r.sector_ids}
    tx, ty, valid = memory.warp_lanes(L.block, warp)
    out["lanes"] = int(valid.sum())
    out["block_rows"] = sorted({int(v) for v in ty[valid]})  # threadIdx.y values in the warp
    return out


def block_footprints(L: Launch, block=(0, 0), k: int = 0) -> list[dict]:
    """:func:`warp_footprint` of every warp of ``block``."""
    return [warp_footprint(L, block, w, k) for w in range(memory.warps_per_block(L.block))]


def shape_row(kernel: str, BX: int, BY: int, arch: str = "hopper", n: int = 256) -> dict:
    """One block shape on an ``n``-cubed launch: the mapping (tile of C per block, grid), warp 0's
    requests at k = 0 (rows and sectors of A, B, C), the sectors per request averaged over every
    warp and every k of an interior block, and the occupancy on ``arch`` (no shared memory)."""
    L = launch(kernel, BX, BY, n, n, n)
    gx, gy = L.grid
    block = (gx // 2, gy // 2)
    w0 = warp_footprint(L, block, 0, 0)
    avg = {a[0]: memory.sectors_per_request(L, a, block) for a in ACCESS_NAMES}
    occ = {}
    for name in ([arch] if isinstance(arch, str) else list(arch)):
        try:
            o = hardware.occupancy(name, BX * BY)
            occ[name] = {"blocks_per_sm": o.blocks_per_sm, "active_warps": o.active_warps,
                         "occupancy": o.occupancy, "limiter": o.limiter}
        except hardware.OccupancyError as e:
            occ[name] = {"error": str(e)}
    return {"kernel": kernel, "block": (BX, BY), "threads": BX * BY, "warps": memory.warps_per_block((BX, BY)),
            "warp_rows": memory.warp_rows((BX, BY)), "tile": (L.tile_rows, L.tile_cols), "grid": (gx, gy),
            "n": n, "sample_block": block, "warp0": w0,
            "sectors_per_request": {m: v["sectors_per_request"] for m, v in avg.items()},
            "ideal_per_request": {m: v["ideal_per_request"] for m, v in avg.items()},
            "occupancy": occ}


def shape_table(kernel: str = "naive", shapes=SHAPES, arch="hopper", n: int = 256) -> list[dict]:
    """:func:`shape_row` for every shape in ``shapes``."""
    return [shape_row(kernel, bx, by, arch, n) for bx, by in shapes]


def lab_block_index(bx, by, tx, ty, tile_x: int, tile_y: int):
    """The lab report's block partition (``matMulGlobalTile``), its own index lines:
    ``blockRow = blockIdx.y*tile_y``, ``row = blockRow + threadIdx.y``; ``col = blockIdx.x*tile_x +
    threadIdx.x``."""
    return by * tile_y + ty, bx * tile_x + tx


def partition_owners(partition: str, BX: int, BY: int, M: int, N: int) -> tuple[np.ndarray, np.ndarray]:
    """``(row, col)`` of every thread of the whole grid (indexed ``[by, bx, ty, tx]``) under the lab
    report's ``partition`` with ``blockDim = (BX, BY)`` (tile_x = BX, tile_y = BY for the block
    partition), on the grid its kernel is launched with (the row partition's for the block one)."""
    if partition not in PARTITIONS:
        raise LaunchError(_("unknown partition {partition}; choose one of {names}", partition=repr(partition),
                            names=", ".join(PARTITIONS)))
    L = launch(PARTITIONS[partition][1] or "naive", BX, BY, M, N, 1)
    gx, gy = L.grid
    by, bx, ty, tx = np.meshgrid(np.arange(gy), np.arange(gx), np.arange(BY), np.arange(BX), indexing="ij")
    if partition == "block":
        return lab_block_index(bx, by, tx, ty, BX, BY)
    return L.c_index(bx, by, tx, ty)


def partition_table(shapes=((8, 8), (16, 16), (32, 32)), n: int = 512, arch: str = "hopper") -> list[dict]:
    """The lab report's table of partitions (row / column / block) for each block shape, computed:
    warp 0's rows of A and sectors of its A load, B load and C store at k = 0, the averages over
    an interior block, whether the partition gives every thread the element the row partition
    gives it, and the occupancy (BX*BY threads, no shared memory)."""
    out = []
    for partition, (lab_name, kernel, frow, fcol) in PARTITIONS.items():
        for BX, BY in shapes:
            rows, cols = partition_owners(partition, BX, BY, n, n)
            r0, c0 = partition_owners("row", BX, BY, n, n)
            same = bool(rows.shape == r0.shape and np.array_equal(rows, r0) and np.array_equal(cols, c0))
            if kernel is None and not same:  # (never: the test checks it; a different mapping has no model)
                raise AssertionError("the block partition no longer maps like the row partition")
            row = shape_row(kernel or "naive", BX, BY, arch, n)
            out.append({"partition": partition, "lab_kernel": lab_name, "kernel": kernel or "naive",
                        "formula_row": frow, "formula_col": fcol, "same_as_row": same, **row})
    return out

