"""Page 08's mapping views: for one rung of the ladder (kernels 10-14) and one thread, which
outputs of the BM x BN block tile the thread owns (and its warp), what it reads from the As / Bs
windows at loop step k, which elements it copies from global memory (in float4s from kernel 12
on), and its registers.

Everything drawn comes from :mod:`explainer.model.ladder` (read-only here): :func:`ladder.thread_outputs`,
:func:`ladder.owner_map`, :func:`ladder.loader_a` / :func:`ladder.loader_b`, the slot layout of
:func:`ladder.slot_coords_a`. The pure functions below derive what the pictures need;
:mod:`explainer.views.ladder` turns them into the arrays its browser view draws.
"""

from __future__ import annotations

import numpy as np

from ..i18n import _, N_
from ..model import ladder
from ..model.ladder import WARP, Rung

# ---- colours: one discrete palette for every panel ---------------------------------------
OTHER_EVEN, OTHER_ODD, WARP_C, THREAD_C, NOW_C = range(5)
PALETTE = [
    "#f3f4f6",  # OTHER_EVEN  another warp's output / another float4 (even)
    "#e5e7eb",  # OTHER_ODD   the same, odd: warps and float4 groups show as stripes
    "#93c5fd",  # WARP_C      the selected thread's warp (its outputs, its reads at step k, its copies)
    "#fdba74",  # THREAD_C    the selected thread: its reads at the other steps k
    "#ea580c",  # NOW_C       the selected thread: its outputs, its reads at step k, its copies
]
ZRANGE = dict(zmin=0, zmax=len(PALETTE), showscale=False,
              colorscale=[x for i, c in enumerate(PALETTE) for x in ([i / len(PALETTE), c], [(i + 1) / len(PALETTE), c])])
MODES = {"reads": N_("what the thread reads (compute loop)"), "copies": N_("who copies what (global → shared)")}


def rung_label(r: Rung) -> str:
    return f"{r.file.split('_')[0]} · {_(r.title)}"


# --------------------------------------------------------------------------------------
# Pure: what the pictures show
# --------------------------------------------------------------------------------------
def check_thread(r: Rung, tid) -> int:
    """``tid`` as an int in ``0 .. threads - 1``, or ValueError with a one-line message."""
    try:
        t = int(tid)
    except (TypeError, ValueError):
        raise ValueError(_("thread must be a whole number, got {value}", value=repr(tid))) from None
    if not 0 <= t < r.threads:
        raise ValueError(_("thread must be 0..{last} for kernel {file} ({threads} threads per block), got {value}",
                           last=r.threads - 1, file=r.file, threads=r.threads, value=t))
    return t


def warp_lane(tid: int) -> tuple[int, int]:
    return tid // WARP, tid % WARP


def thread_reads(r: Rung, tid: int) -> tuple[np.ndarray, np.ndarray]:
    """The rows m of the A window (As) and the columns n of the B window (Bs) that thread ``tid``
    reads at every step k of the compute loop, in register order (regM, regN): the rows and
    columns of the outputs it owns."""
    rows, cols = ladder.thread_outputs(r, tid)
    tm, tn = r.thread_tile
    return rows.reshape(tm, tn)[:, 0].copy(), cols.reshape(tm, tn)[0, :].copy()


def warp_outputs(r: Rung, warp: int) -> tuple[np.ndarray, np.ndarray]:
    tids = np.arange(warp * WARP, min((warp + 1) * WARP, r.threads))
    rows, cols = ladder.thread_outputs(r, tids)
    return rows.ravel(), cols.ravel()


def warp_region(r: Rung, warp: int) -> dict:
    """The bounding box of a warp's outputs and whether the warp fills it (compact)."""
    rows, cols = warp_outputs(r, warp)
    box = dict(row0=int(rows.min()), row1=int(rows.max()) + 1, col0=int(cols.min()), col1=int(cols.max()) + 1)
    box["rows"], box["cols"] = box["row1"] - box["row0"], box["col1"] - box["col0"]
    box["compact"] = box["rows"] * box["cols"] == rows.size
    return box


def warp_subtiles(r: Rung, warp: int) -> list[dict]:
    """Warp tiling: the warp's WMITER x WNITER sub-tiles of WSUBM x WSUBN (row0, col0, rows,
    cols inside the block tile); empty for the other rungs."""
    if r.layout != "warp":
        return []
    w = r.warp_dims
    wrow, wcol = warp // (r.BN // w["WN"]), warp % (r.BN // w["WN"])
    return [dict(row0=wrow * w["WM"] + i * w["WSUBM"], col0=wcol * w["WN"] + j * w["WSUBN"],
                 rows=w["WSUBM"], cols=w["WSUBN"]) for i in range(w["WMITER"]) for j in range(w["WNITER"])]


# The As / Bs slot (float index into one buffer) that holds element (m, k) of the A window /
# (k, n) of the B window: the kernels store where their compute loop reads.
as_slot = ladder.read_slot_a
bs_slot = ladder.read_slot_b


def copies(r: Rung, tid: int) -> dict:
    """The global-memory loads of thread ``tid`` in one phase: ``{"a": [(m, k), ...], "b": [(k, n),
    ...]}``, each the first of ``r.vector`` consecutive elements (along k for A, along n for B)
    that one instruction moves, in the order the kernel issues them."""
    v = r.vector
    la, lb = ladder.loader_a(r), ladder.loader_b(r)
    a = [(int(m), int(k)) for m, k in zip(*np.nonzero(la[:, ::v] == tid))]
    b = [(int(k), int(n)) for k, n in zip(*np.nonzero(lb[:, ::v] == tid))]
    a = sorted(((m, k * v) for m, k in a), key=lambda e: e[0] * r.BK + e[1])
    b = sorted(((k, n * v) for k, n in b), key=lambda e: e[0] * r.BN + e[1])
    return {"a": a, "b": b}


def shared_loads_per_k(r: Rung) -> dict:
    """Shared-memory load instructions and FMAs of one thread per step k of the compute loop."""
    tm, tn = r.thread_tile
    if r.layout == "1d":
        lds_a, lds_b, width = tm, 1, 4  # TM As reads straight into the FMAs, one Bs value in a register
    else:
        lds_a, lds_b, width = tm // r.vector, tn // r.vector, 4 * r.vector
    return {"lds_a": lds_a, "lds_b": lds_b, "lds": lds_a + lds_b, "bytes_per_lds": width, "fmas": tm * tn,
            "fma_per_lds": (tm * tn) / (lds_a + lds_b)}


def register_counts(r: Rung) -> dict:
    """Floats one thread keeps in registers for the arithmetic (not counting indices): the
    accumulators, the As / Bs values of one step k, and (double buffering) the staging registers
    that hold tile t+1 on its way from global memory."""
    tm, tn = r.thread_tile
    reg_m = 0 if r.layout == "1d" else tm
    reg_n = 1 if r.layout == "1d" else tn
    staging = (r.BM * r.BK + r.BK * r.BN) // r.threads if r.buffers == 2 else 0
    return {"acc": tm * tn, "acc_shape": (tm, tn), "regM": reg_m, "regN": reg_n, "staging": staging,
            "total": tm * tn + reg_m + reg_n + staging}


def block_tile_z(r: Rung, tid: int) -> np.ndarray:
    """(BM, BN) colour codes: the thread's outputs, its warp's, the other warps in stripes."""
    own = ladder.owner_map(r)
    z = (own // WARP) % 2
    z = np.where(own // WARP == tid // WARP, WARP_C, z)
    return np.where(own == tid, NOW_C, z)


def reads_z(r: Rung, tid: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(BM, BK) and (BK, BN) colour codes of the A and B windows: what thread ``tid`` (and its
    warp) reads from As / Bs at step ``k``, and at the other steps."""
    za = np.tile((np.arange(r.BK) % 2)[None, :], (r.BM, 1))
    zb = np.tile((np.arange(r.BK) % 2)[:, None], (1, r.BN))
    wr, wc = warp_outputs(r, tid // WARP)
    za[np.unique(wr), k] = WARP_C
    zb[k, np.unique(wc)] = WARP_C
    rows, cols = thread_reads(r, tid)
    za[rows, :] = THREAD_C
    zb[:, cols] = THREAD_C
    za[rows, k] = NOW_C
    zb[k, cols] = NOW_C
    return za, zb


def copies_z(r: Rung, tid: int) -> tuple[np.ndarray, np.ndarray]:
    """(BM, BK) and (BK, BN) colour codes: the elements thread ``tid`` copies (float4 groups when
    the rung loads 16 bytes), those of its warp, and the other groups in stripes."""
    v = r.vector
    la, lb = ladder.loader_a(r), ladder.loader_b(r)
    ga = np.arange(r.BM)[:, None] * (r.BK // v) + np.arange(r.BK)[None, :] // v  # instruction index
    gb = np.arange(r.BK)[:, None] * (r.BN // v) + np.arange(r.BN)[None, :] // v
    za, zb = ga % 2, gb % 2
    za = np.where(la // WARP == tid // WARP, WARP_C, za)
    zb = np.where(lb // WARP == tid // WARP, WARP_C, zb)
    return np.where(la == tid, NOW_C, za), np.where(lb == tid, NOW_C, zb)


def ranges(values) -> str:
    """'0–7, 32–39' for the sorted distinct values."""
    vals = sorted({int(v) for v in np.ravel(values)})
    out, start = [], None
    for i, v in enumerate(vals):
        if start is None:
            start = v
        if i + 1 == len(vals) or vals[i + 1] != v + 1:
            out.append(f"{start}" if start == v else f"{start}–{v}")
            start = None
    return ", ".join(out)


def rung_facts(r: Rung) -> dict:
    """The numbers page 08 states about a rung, all computed from :mod:`explainer.model.ladder`."""
    tm, tn = r.thread_tile
    lds = shared_loads_per_k(r)
    return {"file": r.file, "title": _(r.title), "BM": r.BM, "BN": r.BN, "BK": r.BK, "threads": r.threads,
            "warps": r.threads // WARP, "thread_tile": (tm, tn), "outputs": r.outputs_per_thread,
            "fma_per_lds": r.fma_per_lds, "lds_per_k": lds["lds"], "bytes_per_lds": lds["bytes_per_lds"],
            "shared_bytes": r.shared_bytes, "buffers": r.buffers, "barriers": r.barriers_per_phase,
            "intensity": r.intensity(), "vector": r.vector, "transposed": r.transposed, "pad": r.p["PAD"],
            "registers": register_counts(r), "warp_dims": r.warp_dims}


def as_store_conflict(r: Rung) -> int:
    """The worst bank conflict (distinct words sharing one bank) of one warp-wide store into As
    in the copy loop: with As transposed, lanes that copy the same row m of A at different k
    store into one column of As, words ``4·LDA`` apart, the same bank unless As is padded."""
    v = r.vector
    la = ladder.loader_a(r)
    worst = 1
    m, k = np.meshgrid(np.arange(r.BM), np.arange(r.BK), indexing="ij")
    for q in range(-(-(r.BM * r.BK // v) // r.threads)):  # copy rounds: instruction i = tid + q·threads
        inst = m * (r.BK // v) + k // v
        for c in range(v):  # the c-th scalar store of each float4 (one instruction per c)
            sel = (inst // r.threads == q) & (k % v == c)
            for w in range(r.threads // WARP):
                lanes = sel & (la // WARP == w)
                words = np.unique(as_slot(r, m[lanes], k[lanes]))
                if words.size:
                    worst = max(worst, int(np.bincount(words % 32).max()))
    return worst
