"""Hardware presets and the occupancy calculator.

The presets live in ``data/arches.json`` with their sources. The calculator follows the CUDA
Occupancy Calculator's rules: a block is resident only if the SM has room for all of its warps,
its shared memory (rounded up to the allocation unit, plus the per-block reservation on
sm_80+) and its registers (allocated per warp, rounded up to the allocation unit). It ignores
the register-file split across an SM's four partitions, which can cost one block in rare
register-bound cases.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from ..i18n import N_, _
from .launch import WARP_SIZE, ceil_div


#: The presets' ``source`` in ``data/arches.json``, marked for the catalogue: a page shows
#: ``_(arch["source"])``, the file stays English.
ARCH_SOURCES = (
    N_("CUDA C++ Programming Guide, compute capability 2.x; 16 KB shared-memory configuration as in the course notes"),
    N_("CUDA C++ Programming Guide, compute capability 7.5 (RTX 2080 Ti: 68 SMs)"),
    N_("CUDA C++ Programming Guide, compute capability 8.0 (A100: 108 SMs, 164 KB shared per SM, 1 KB reserved "
       "per block)"),
    N_("CUDA C++ Programming Guide, compute capability 9.0 (H100 SXM: 132 SMs, 228 KB shared per SM, 1 KB reserved "
       "per block)"),
)

class OccupancyError(ValueError):
    """A block that cannot launch on the architecture at all. One readable line."""


@lru_cache(maxsize=None)
def arches() -> dict[str, dict]:
    text = resources.files("explainer").joinpath("data/arches.json").read_text()
    return {k: v for k, v in json.loads(text).items() if not k.startswith("_")}


def arch(name: str) -> dict:
    table = arches()
    if name not in table:
        raise OccupancyError(_("unknown architecture {name}; choose one of {names}", name=repr(name),
                               names=", ".join(table)))
    return table[name]


def _round_up(x: int, unit: int) -> int:
    return ceil_div(x, unit) * unit


#: Order in which a tie between limits is reported.
RESOURCES = ("threads", "blocks", "shared", "registers")


@dataclass(frozen=True)
class Occupancy:
    arch: str
    threads_per_block: int
    shared_bytes: int
    regs_per_thread: int | None
    blocks_per_sm: int
    limits: dict
    limiter: str
    max_warps_per_sm: int

    @property
    def warps_per_block(self) -> int:
        return ceil_div(self.threads_per_block, WARP_SIZE)

    @property
    def active_threads(self) -> int:
        return self.blocks_per_sm * self.threads_per_block

    @property
    def active_warps(self) -> int:
        return self.blocks_per_sm * self.warps_per_block

    @property
    def occupancy(self) -> float:
        """Active warps over the SM's maximum (what the CUDA tools call occupancy)."""
        return self.active_warps / self.max_warps_per_sm

    def to_dict(self) -> dict:
        return {
            "arch": self.arch,
            "threads_per_block": self.threads_per_block,
            "shared_bytes_per_block": self.shared_bytes,
            "regs_per_thread": self.regs_per_thread,
            "warps_per_block": self.warps_per_block,
            "blocks_per_sm": self.blocks_per_sm,
            "active_warps": self.active_warps,
            "active_threads": self.active_threads,
            "occupancy": self.occupancy,
            "limits": dict(self.limits),
            "limiter": self.limiter,
        }


def occupancy(arch_name: str, threads: int, smem: int = 0, regs: int | None = None) -> Occupancy:
    """Resident blocks per SM for blocks of ``threads`` threads using ``smem`` bytes of shared
    memory and ``regs`` registers per thread (registers ignored when ``None``)."""
    return occupancy_of(arch(arch_name), arch_name, threads, smem, regs)


def occupancy_of(a: dict, arch_name: str, threads: int, smem: int = 0, regs: int | None = None) -> Occupancy:
    """:func:`occupancy` for limits ``a`` given as a dict with the keys of ``data/arches.json``
    (a preset, or a real device's limits: :func:`explainer.model.memspaces.device_arch`)."""
    if threads < 1:
        raise OccupancyError(_("threads per block must be at least 1, got {threads}", threads=threads))
    if threads > a["max_threads_per_block"]:
        raise OccupancyError(_("{threads} threads per block exceed {arch}'s limit of {limit}", threads=threads,
                               arch=arch_name, limit=a["max_threads_per_block"]))
    if smem < 0:
        raise OccupancyError(_("shared memory must be >= 0 bytes, got {smem}", smem=smem))
    if smem > a["max_shared_per_block"]:
        raise OccupancyError(_("{smem} bytes of shared memory per block exceed {arch}'s limit of {limit}",
                               smem=smem, arch=arch_name, limit=a["max_shared_per_block"]))
    warps = ceil_div(threads, WARP_SIZE)
    limits = {
        "threads": a["max_warps_per_sm"] // warps,
        "blocks": a["max_blocks_per_sm"],
    }
    if smem > 0:
        per_block = _round_up(smem + a["reserved_shared_per_block"], a["shared_alloc_unit"])
        limits["shared"] = a["shared_per_sm"] // per_block
    if regs is not None:
        if not 1 <= regs <= a["max_regs_per_thread"]:
            raise OccupancyError(_("registers per thread must be 1..{last} on {arch}, got {regs}",
                                   last=a["max_regs_per_thread"], arch=arch_name, regs=regs))
        per_warp = _round_up(regs * WARP_SIZE, a["reg_alloc_unit"])
        limits["registers"] = (a["regs_per_sm"] // per_warp) // warps
    blocks = min(limits.values())
    limiter = next(r for r in RESOURCES if limits.get(r) == blocks)
    return Occupancy(arch_name, threads, smem, regs, blocks, limits, limiter, a["max_warps_per_sm"])


def tile_occupancy(arch_name: str, tile: int, regs: int | None = None) -> Occupancy:
    """The tiled kernel with a T x T block: T*T threads and 2*T*T floats of shared memory."""
    return occupancy(arch_name, tile * tile, 2 * tile * tile * 4, regs)
