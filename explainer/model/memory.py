"""Warps, coalescing and shared-memory banks, computed from the execution model's index functions.

Global memory (compute capability 6.0 and later, the rule Nsight Compute counts): a warp's load or
store is one *request*; the memory system serves it in 32-byte *sectors*. A request costs as many
sectors as distinct 32-byte-aligned pieces its active lanes touch. The *ideal* is the fewest
sectors that could hold the distinct bytes asked for, ``ceil(distinct floats * 4 / 32)``: 4 for 32
neighbouring floats, 1 for a broadcast (every lane the same address). A request is *coalesced*
when it touches no more sectors than that. Matrices start 256-byte aligned (``cudaMalloc``), so
byte address = 4 x linear index.

Shared memory: 32 banks of 4-byte words, word w in bank ``w % 32``. Lanes reading the same word
share one broadcast; lanes reading *different* words of one bank are serialised. The conflict
degree of a warp's access is the largest number of distinct words in one bank (1 = no conflict).

Every address comes from :class:`explainer.model.Launch` (``c_index``, ``a_load``, ``b_load``,
``warp_lane``); nothing here restates the kernels' index math except the compute loop's
``As[ty][k]`` / ``Bs[k][tx]``, which :meth:`explainer.model.ThreadView.compute` also names.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..i18n import _
from .launch import FLOAT_BYTES, PAD, WARP_SIZE, Launch, LaunchError, ceil_div

SECTOR_BYTES = 32
LINE_BYTES = 128
BANKS = 32
BANK_WORD_BYTES = 4

#: The global accesses of each kernel: (name, matrix, the source line it comes from).
ACCESSES = {
    "naive": [("A load", "A", "A[row * K + k]"), ("B load", "B", "B[k * N + col]"),
              ("C store", "C", "C[row * N + col] = sum")],
    "naive_col": [("A load", "A", "A[row * K + k]"), ("B load", "B", "B[k * N + col]"),
                  ("C store", "C", "C[row * N + col] = sum")],
    "tiled": [("A tile load", "A", "As[ty][tx] = A[row * K + t*T + tx]"),
              ("B tile load", "B", "Bs[ty][tx] = B[(t*T + ty) * N + col]"),
              ("C store", "C", "C[row * N + col] = sum")],
}


# --------------------------------------------------------------------------------------
# Warps
# --------------------------------------------------------------------------------------
def warp_map(T: int) -> np.ndarray:
    """(T, T) array, indexed [ty][tx]: the warp of each thread of a T x T block."""
    L = Launch("tiled", 1, 1, 1, T)
    ty, tx = np.meshgrid(np.arange(T), np.arange(T), indexing="ij")
    return L.warp_lane(tx, ty)[0]


def _dims(block) -> tuple[int, int]:
    """``(blockDim.x, blockDim.y)`` of ``block``: an edge T (a T x T block) or a pair (BX, BY)."""
    if isinstance(block, (tuple, list)):
        return int(block[0]), int(block[1])
    return int(block), int(block)


def warp_lanes(T, warp: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(tx, ty, valid)`` of lanes 0..31 of ``warp`` in a T x T block, or a BX x BY block when
    ``T`` is the pair ``(blockDim.x, blockDim.y)`` (``valid`` False for lanes past the block's
    last thread: a block of 64 threads fills 2 warps, one of 16 half a warp)."""
    BX, BY = _dims(T)
    n_warps = ceil_div(BX * BY, WARP_SIZE)
    if not 0 <= warp < n_warps:
        raise LaunchError(_("warp must be 0..{last} for a {BX}x{BY} block, got {warp}", last=n_warps - 1, BX=BX, BY=BY, warp=warp))
    lin = warp * WARP_SIZE + np.arange(WARP_SIZE)
    return lin % BX, lin // BX, lin < BX * BY  # inverse of id = tx + ty * blockDim.x


def warps_per_block(T) -> int:
    """Warps of a T x T block (or of a ``(BX, BY)`` block)."""
    BX, BY = _dims(T)
    return ceil_div(BX * BY, WARP_SIZE)


def warp_rows(T) -> int:
    """How many rows of the block one (full) warp spans: 2 for 16x16, 1 for 32x32, 4 for 8x8;
    ``T`` may be ``(BX, BY)``: ``32 / BX`` rows (at most BY) when BX < 32, else 1."""
    BX, BY = _dims(T)
    return min(BY, max(1, WARP_SIZE // BX)) if BX <= WARP_SIZE else 1


# --------------------------------------------------------------------------------------
# Global memory: one warp's request
# --------------------------------------------------------------------------------------
def _elements(L: Launch, matrix: str, bx, by, tx, ty, t, k):
    """Global (row, col) and the active mask of a load/store of ``matrix``, from the model."""
    if matrix == "C":
        r, c = L.c_index(bx, by, tx, ty)
        return r, c, L.writes_c(bx, by, tx, ty)
    if L.is_tiled:
        r, c = L.a_load(by, t, ty, tx) if matrix == "A" else L.b_load(bx, t, ty, tx)
        return r, c, r != PAD
    row, col = L.c_index(bx, by, tx, ty)  # naive: the dot product's row of A, column of B
    active = L.writes_c(bx, by, tx, ty)  # threads outside C skip the whole body
    if matrix == "A":
        row, kk = np.broadcast_arrays(row, k)
        return row, kk, active
    kk, col = np.broadcast_arrays(k, col)
    return kk, col, active


def _row_len(L: Launch, matrix: str) -> int:
    return {"A": L.K, "B": L.N, "C": L.N}[matrix]


def _count_distinct(ids: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Distinct values along the last axis among valid entries (vectorised)."""
    big = np.iinfo(np.int64).max
    s = np.sort(np.where(valid, ids, big), axis=-1)
    new = np.concatenate([s[..., :1] != big, (s[..., 1:] != s[..., :-1]) & (s[..., 1:] != big)], axis=-1)
    return new.sum(axis=-1)


@dataclass(frozen=True)
class WarpRequest:
    """One warp's load or store: which elements, which bytes, how many sectors."""

    kernel: str
    access: str  # "A load", "B tile load", "C store", ...
    code: str
    matrix: str
    block: tuple[int, int]
    warp: int
    t: int
    k: int
    lanes: list  # per lane: dict(lane, tx, ty, element (r, c) or None, address or None)
    sectors: int
    ideal: int
    lines: int  # distinct 128-byte lines

    @property
    def active(self) -> int:
        return sum(1 for x in self.lanes if x["address"] is not None)

    @property
    def distinct_addresses(self) -> int:
        return len({x["address"] for x in self.lanes if x["address"] is not None})

    @property
    def coalesced(self) -> bool:
        return self.sectors <= self.ideal

    @property
    def sector_ids(self) -> list[int]:
        return sorted({x["address"] // SECTOR_BYTES for x in self.lanes if x["address"] is not None})

    def to_dict(self) -> dict:
        return {"kernel": self.kernel, "access": self.access, "code": self.code,
                "block": list(self.block), "warp": self.warp, "t": self.t, "k": self.k,
                "active_lanes": self.active, "distinct_addresses": self.distinct_addresses,
                "sectors": self.sectors, "ideal": self.ideal, "lines": self.lines,
                "coalesced": self.coalesced}


def warp_request(L: Launch, access: str, block=(0, 0), warp: int = 0, t: int = 0,
                 k: int = 0) -> WarpRequest:
    """The request of ``warp`` of ``block`` for ``access`` (see :data:`ACCESSES`) at loop step
    ``k`` (naive) or phase ``t`` (tiled)."""
    table = {a: (m, code) for a, m, code in ACCESSES[L.kernel]}
    if access not in table:
        raise LaunchError(_("{kernel} has no access {access}; choose one of {names}", kernel=L.kernel, access=repr(access),
                            names=', '.join(table)))
    matrix, code = table[access]
    L.check_block(*block)
    if L.is_tiled and not 0 <= t < L.phases:
        raise LaunchError(_("phase t must be 0..{last}, got {t}", last=L.phases - 1, t=t))
    if not L.is_tiled and not 0 <= k < L.K:
        raise LaunchError(_("k must be 0..{last}, got {k}", last=L.K - 1, k=k))
    bx, by = block
    tx, ty, valid = warp_lanes(L.block, warp)
    r, c, active = _elements(L, matrix, bx, by, tx, ty, t, k)
    active = np.asarray(active) & valid
    addr = (np.asarray(r, dtype=np.int64) * _row_len(L, matrix) + np.asarray(c)) * FLOAT_BYTES
    lanes = [{"lane": i, "tx": int(tx[i]), "ty": int(ty[i]),
              "element": [int(r[i]), int(c[i])] if active[i] else None,
              "address": int(addr[i]) if active[i] else None} for i in range(WARP_SIZE)]
    used = addr[active]
    distinct = len(np.unique(used))
    return WarpRequest(
        kernel=L.kernel, access=access, code=code, matrix=matrix, block=(bx, by), warp=warp,
        t=t, k=k, lanes=lanes,
        sectors=len(np.unique(used // SECTOR_BYTES)),
        ideal=ceil_div(distinct * FLOAT_BYTES, SECTOR_BYTES),
        lines=len(np.unique(used // LINE_BYTES)),
    )


def warp_requests(L: Launch, block=(0, 0), warp: int = 0, t: int = 0, k: int = 0) -> list[WarpRequest]:
    """Every global access of ``L.kernel`` for one warp (the table on page 05)."""
    return [warp_request(L, a, block, warp, t, k) for a, _, _ in ACCESSES[L.kernel]]


def sectors_per_request(L: Launch, access: str, block=(0, 0)) -> dict:
    """Average sectors per request over every warp of ``block`` and every step (all k for a
    naive load, all phases for a tiled load, the one store for C): what Nsight Compute's
    ``l1tex__t_sectors / l1tex__t_requests`` reports for an interior block."""
    table = {a: m for a, m, _ in ACCESSES[L.kernel]}
    matrix = table[access]
    L.check_block(*block)
    bx, by = block
    W = warps_per_block(L.block)
    tx, ty, valid = (np.stack(a) for a in zip(*(warp_lanes(L.block, w) for w in range(W))))
    if matrix == "C":
        steps = np.zeros(1, dtype=np.int64)
    else:
        steps = np.arange(L.phases if L.is_tiled else L.K)
    s = steps.reshape(-1, 1, 1)
    r, c, active = _elements(L, matrix, bx, by, tx[None], ty[None], s, s)
    r, c = np.broadcast_arrays(np.asarray(r, dtype=np.int64), c)
    active = np.broadcast_to(np.asarray(active) & valid[None], r.shape)
    addr = (r * _row_len(L, matrix) + c) * FLOAT_BYTES
    sectors = _count_distinct(addr // SECTOR_BYTES, active)
    distinct = _count_distinct(addr, active)
    issued = active.any(axis=-1)
    ideal = -(-distinct * FLOAT_BYTES // SECTOR_BYTES)
    n = int(issued.sum())
    return {"requests": n, "sectors": int(sectors[issued].sum()), "ideal": int(ideal[issued].sum()),
            "sectors_per_request": float(sectors[issued].sum() / n) if n else 0.0,
            "ideal_per_request": float(ideal[issued].sum() / n) if n else 0.0}


# --------------------------------------------------------------------------------------
# Shared memory banks
# --------------------------------------------------------------------------------------
#: The compute loop's shared reads and the comparison layouts. ``row_stride`` is T (as declared)
#: or T + 1 (padded); the word read is ``row * stride + col``.
SHARED_READS = {
    "As[ty][k]": ("As", lambda tx, ty, k: (ty, k)),  # the kernel: broadcast along a row
    "Bs[k][tx]": ("Bs", lambda tx, ty, k: (k, tx)),  # the kernel: consecutive words
    "Bs[tx][k]": ("Bs", lambda tx, ty, k: (tx, k)),  # B stored transposed: a column per warp
}


@dataclass(frozen=True)
class BankAccess:
    expr: str
    T: int
    pad: int
    warp: int
    k: int
    words: list  # per active lane
    banks: list
    distinct_words: int
    degree: int  # wavefronts: max distinct words in one bank

    @property
    def banks_touched(self) -> int:
        return len(set(self.banks))

    @property
    def broadcast(self) -> bool:
        return self.distinct_words < len(self.words)

    def to_dict(self) -> dict:
        return {"expr": self.expr, "T": self.T, "pad": self.pad, "warp": self.warp, "k": self.k,
                "distinct_words": self.distinct_words, "banks_touched": self.banks_touched,
                "degree": self.degree, "broadcast": self.broadcast}


def bank_access(expr: str, T: int, warp: int = 0, k: int = 0, pad: int = 0) -> BankAccess:
    """Banks of one warp's shared read ``expr`` (see :data:`SHARED_READS`) at compute step k in a
    ``float [T][T + pad]`` array."""
    if expr not in SHARED_READS:
        raise LaunchError(_("unknown shared access {expr}; choose one of {names}", expr=repr(expr),
                            names=', '.join(SHARED_READS)))
    if not 0 <= k < T:
        raise LaunchError(_("k must be 0..{last}, got {k}", last=T - 1, k=k))
    tx, ty, valid = warp_lanes(T, warp)
    row, col = SHARED_READS[expr][1](tx[valid], ty[valid], k)
    words = np.asarray(row) * (T + pad) + np.asarray(col)
    banks = words % BANKS
    per_bank = {}
    for w, b in zip(words.tolist(), banks.tolist()):
        per_bank.setdefault(b, set()).add(w)
    return BankAccess(expr, T, pad, warp, k, words.tolist(), banks.tolist(),
                      len(set(words.tolist())), max(len(s) for s in per_bank.values()))


def worst_bank_degree(expr: str, T: int, pad: int = 0) -> int:
    """The largest conflict degree over every warp and every k of the compute loop."""
    return max(bank_access(expr, T, w, k, pad).degree
               for w in range(warps_per_block(T)) for k in range(T))
