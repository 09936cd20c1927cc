"""The sliding-window write-up's two kernels side by side: V1 holds a block's whole strips in
shared memory, V2 slides a fixed window along K.

* V1 (kernels/02b_strip.cu): a T x T block copies its T x K strip of A and its K x T strip of B
  into shared memory once, waits at one barrier, then every thread takes its dot product from
  shared memory. Shared memory per block grows with K: 2 * T * K floats.
* V2 (kernels/03_tiled.cu): the same block keeps only a T x T window of A and of B, loaded
  ceil(K/T) times. Shared memory per block: 2 * T * T floats whatever K is.

Both read each element of the block's two strips from global memory exactly once (padding zeros
outside the matrices are not reads), so the window costs no extra global traffic; it only bounds
the shared memory. V1 launches only while 2 * T * K * 4 bytes fit a block's limit: 48 KB without
opting in (``memspaces.SHARED_WITHOUT_OPT_IN``), or the preset's opt-in maximum
(``max_shared_per_block`` of ``data/arches.json``).
"""

from __future__ import annotations

from ..i18n import _
from . import hardware
from .launch import FLOAT_BYTES, LaunchError, as_count
from .memspaces import SHARED_WITHOUT_OPT_IN


def v1_shared_bytes(K: int, T: int) -> int:
    """V1: the T x K strip of A plus the K x T strip of B, floats."""
    K, T = as_count("K", K), as_count("TILE", T)
    return 2 * T * K * FLOAT_BYTES


def v2_shared_bytes(K: int, T: int) -> int:
    """V2: one T x T window of A plus one of B, whatever K is (``K`` checked, not used)."""
    as_count("K", K)
    T = as_count("TILE", T)
    return 2 * T * T * FLOAT_BYTES


def max_k_v1(shared_per_block: int, T: int) -> int:
    """The largest K whose V1 strips fit ``shared_per_block`` bytes (0: not even K = 1)."""
    T = as_count("TILE", T)
    if isinstance(shared_per_block, bool) or not isinstance(shared_per_block, int) or shared_per_block < 0:
        raise LaunchError(_("shared memory per block must be a whole number of bytes >= 0, got {value}",
                            value=repr(shared_per_block)))
    return shared_per_block // (2 * T * FLOAT_BYTES)


def global_loads(M: int, N: int, K: int, T: int, row: int = 0, col: int = 0) -> dict:
    """Global elements block (``row``, ``col``) of a T x T grid over an M x N x K product reads:
    the rows of A it covers times K, plus K times the columns of B it covers; the same for V1 and
    V2 (each element once per block)."""
    M, N, K, T = (as_count(n, v) for n, v in (("M", M), ("N", N), ("K", K), ("TILE", T)))
    rows = max(0, min(T, M - row * T))
    cols = max(0, min(T, N - col * T))
    a, b = rows * K, K * cols
    return {"a": a, "b": b, "total": a + b, "bytes": (a + b) * FLOAT_BYTES}


def arch_limits(T: int) -> list[dict]:
    """Per architecture preset: the shared memory a block gets without opting in and with it, and
    the largest K V1 takes under each at tile ``T``; V2's bytes for comparison."""
    T = as_count("TILE", T)
    out = []
    for name, a in hardware.arches().items():
        default = min(SHARED_WITHOUT_OPT_IN, a["max_shared_per_block"])
        optin = a["max_shared_per_block"]
        out.append({"arch": name, "label": a["label"], "default_bytes": default, "optin_bytes": optin,
                    "has_optin": optin > default,
                    "max_k_default": max_k_v1(default, T), "max_k_optin": max_k_v1(optin, T),
                    "v2_bytes": 2 * T * T * FLOAT_BYTES})
    return out


def compare(T: int = 16, Ks: tuple[int, ...] = (64, 256, 1024, 4096)) -> dict:
    """What page 02's V1-against-V2 table shows: per K the shared bytes per block of each and the
    global elements a full block reads (equal), and :func:`arch_limits`."""
    T = as_count("TILE", T)
    rows = []
    for K in Ks:
        g = global_loads(T, T, K, T)
        rows.append({"K": K, "v1_bytes": v1_shared_bytes(K, T), "v2_bytes": v2_shared_bytes(K, T),
                     "v1_loads": g["total"], "v2_loads": g["total"]})
    return {"tile": T, "rows": rows, "arches": arch_limits(T)}
