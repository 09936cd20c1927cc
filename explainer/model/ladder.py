"""The ladder beyond tiling (kernels 10-14): their parameters and their model, pure numpy.

One table, :data:`RUNGS`, says which template instantiation of each ``kernels/1*.cu`` file the
explainer launches; :mod:`explainer.gpu` compiles exactly these (``name_expressions``), the
pictures of page 08 are drawn from the functions below, and the GPU tests compare these
functions with what the kernels themselves recorded (``-DEXPLAINER_TRACE``, layout in
``kernels/common.cuh``), so the table, the pictures and the kernels cannot drift apart.

Conventions (those of :mod:`explainer.model`, plus):

* A block is 1D: ``tid = threadIdx.x`` in ``0 .. threads - 1``; warp ``tid // 32``, lane
  ``tid % 32``. The grid is ``(ceil(N / BN), ceil(M / BM))``: one block per BM x BN tile of C.
* Phase ``t`` copies the BM x BK window of A (rows ``by*BM ..``, columns ``t*BK ..``) to
  ``As`` and the BK x BN window of B to ``Bs``; where BK does not divide K the last phase holds
  padding zeros past column K - 1 (the tuning engine's kernel, :mod:`explainer.tuning`, puts
  them first: :meth:`Rung.lead`). ``As`` is row-major ``As[m * BK + k]`` in kernels 10-11 and
  transposed ``As[k * LDA + m]`` from kernel 12 on (``LDA = BM + PAD``).
* Outputs of one thread are numbered ``j`` in the order of the kernel's store loop: row-major
  over the thread's accumulator array ``acc[TM_total][TN_total]``.
* ``GUARD``: the fast instantiation (no checks, 16-byte accesses) runs when BM | M, BN | N and
  BK | K; the guarded one (element loads with padding zeros, stores inside C only) otherwise.

Kernel 14's block tile (256 x 128, 8 x 4 thread tiles in 64 x 64 warp tiles) was chosen on an
H100 among configurations that ``benchmarks/tune_ladder.py`` measures. The tuning engine's
configurations of a tuned kernel 14 (one per shape, split-K, edges block by block) subclass
:class:`Rung` in :mod:`explainer.tuning.configs`; nothing here depends on them.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..i18n import N_
from .launch import FLOAT_BYTES, PAD, ceil_div
from .launch import WARP_SIZE as WARP

NEVER = -2  # a slot or output nobody writes (the trace's "never written", gpu.launch.NEVER_WRITTEN)


@dataclass(frozen=True)
class Rung:
    """One kernel of the ladder and the instantiation the explainer runs."""

    name: str  # the name in explainer.gpu.KERNELS and on the command line
    file: str
    symbol: str
    params: tuple[tuple[str, int], ...]  # template arguments in order, GUARD left out
    title: str
    idea: str  # one sentence: what changed from the rung before, and why it is faster

    def __getitem__(self, key: str) -> int:
        return self.p[key]

    @cached_property
    def p(self) -> dict:
        p = dict(self.params)
        p.setdefault("TN", 1)
        p.setdefault("PAD", 0)
        p.setdefault("WNITER", 1)
        return p

    # ---- geometry --------------------------------------------------------------------
    @property
    def layout(self) -> str:
        """``"1d"``, ``"2d"`` (a contiguous TM x TN micro-tile per thread) or ``"warp"``."""
        return {"blocktile_1d_gemm": "1d", "warptile_gemm": "warp"}.get(self.symbol, "2d")

    @property
    def transposed(self) -> bool:
        """As stored transposed (As[k * LDA + m]): kernels 12-14."""
        return self.symbol in ("vectorized_gemm", "double_buffered_gemm", "warptile_gemm")

    @property
    def vector(self) -> int:
        """Elements per global load instruction on the fast path (4: float4)."""
        return 4 if self.transposed else 1

    @property
    def buffers(self) -> int:
        return 2 if self.symbol in ("double_buffered_gemm", "warptile_gemm") else 1

    @property
    def barriers_per_phase(self) -> int:
        return 1 if self.buffers == 2 else 2

    @property
    def threads(self) -> int:
        p = self.p
        if self.layout == "warp":
            return p["THREADS"]
        return (p["BM"] // p["TM"]) * (p["BN"] // p["TN"])

    @property
    def BM(self) -> int:
        return self.p["BM"]

    @property
    def BN(self) -> int:
        return self.p["BN"]

    @property
    def BK(self) -> int:
        return self.p["BK"]

    @property
    def lda(self) -> int:
        return self.BM + self.p["PAD"]

    @property
    def swizzled(self) -> bool:
        """Whether rows of the transposed As swap float4s (:func:`as_swizzle`): never in the
        rungs (the tuning engine's kernel does, with BK = 32)."""
        return False

    @property
    def warp_dims(self) -> dict:
        """WM, WN, WMITER, WNITER, WSUBM, WSUBN (warp tiling; for the others the whole block
        tile is one 'sub-tile' and these describe a warp's share of it)."""
        p = self.p
        if self.layout != "warp":
            return {}
        wmiter = (p["WM"] * p["WN"]) // (WARP * p["TM"] * p["TN"] * p["WNITER"])
        return {"WM": p["WM"], "WN": p["WN"], "WMITER": wmiter, "WNITER": p["WNITER"],
                "WSUBM": p["WM"] // wmiter, "WSUBN": p["WN"] // p["WNITER"]}

    @property
    def thread_tile(self) -> tuple[int, int]:
        """(rows, columns) of C one thread owns: TM x 1, TM x TN, or WMITER*TM x WNITER*TN."""
        p = self.p
        if self.layout == "warp":
            w = self.warp_dims
            return w["WMITER"] * p["TM"], w["WNITER"] * p["TN"]
        return p["TM"], p["TN"]

    @property
    def outputs_per_thread(self) -> int:
        r, c = self.thread_tile
        return r * c

    @property
    def phase_fma(self) -> int:
        """Multiply-adds a thread does in one phase of K (BK k-steps): the length of kernel 14's
        K loop, which it unrolls over the whole phase."""
        return self.BK * self.outputs_per_thread

    @property
    def slots_a(self) -> int:
        """Floats in one As buffer (padding included)."""
        return self.BK * self.lda if self.transposed else self.BM * self.BK

    @property
    def slots_b(self) -> int:
        return self.BK * self.BN

    @property
    def shared_bytes(self) -> int:
        return self.buffers * (self.slots_a + self.slots_b) * FLOAT_BYTES

    def grid(self, M: int, N: int) -> tuple[int, int]:
        return ceil_div(N, self.BN), ceil_div(M, self.BM)

    def phases(self, K: int) -> int:
        return ceil_div(K, self.BK)

    def lead(self, K: int) -> int:
        """How many padding zeros come before column 0 of A (row 0 of B) in phase 0: none in the
        rungs, which put K's padding zeros after column K - 1, in their last phase (the tuning
        engine's kernel copies its partial phase first)."""
        return 0

    def fast(self, M: int, N: int, K: int) -> bool:
        """Whether (M, N, K) takes the unguarded fast instantiation."""
        return M % self.BM == 0 and N % self.BN == 0 and K % self.BK == 0

    @property
    def min_blocks(self) -> int:
        """The blocks per SM its ``__launch_bounds__`` leave room for (``MINB``; 1 without)."""
        return int(dict(self.params).get("MINB", 1))

    @property
    def splits_k(self) -> bool:
        """Whether the kernel can cut its K loop into slices (split-K): not the rungs (the tuning
        engine's configurations can, :mod:`explainer.tuning`)."""
        return False

    def expression(self, guard: bool) -> str:
        """The template instantiation a launch names: the fast one (``GUARD = false``) or the
        guarded one (padding zeros outside A and B, stores inside C only)."""
        args = ", ".join(str(v) for _, v in self.params)
        return f"{self.symbol}<{args}, {'true' if guard else 'false'}>"

    @property
    def expressions(self) -> list[str]:
        return [self.expression(False), self.expression(True)]

    def launch_expression(self, M: int, N: int, K: int, splits: int = 1, tail: int = 0, pad: bool = False) -> str:
        """The instantiation a launch of (M, N, K) names: the fast one where the block tile
        divides the shape, else the guarded one."""
        return self.expression(not self.fast(M, N, K))

    def device_expression(self, cfg, sms: int) -> str:
        """The instantiation that runs launch ``cfg`` on a device of ``sms`` SMs: the launch's own."""
        return cfg.expression

    def trace(self, M: int, N: int, K: int, **launch) -> "LadderTrace":
        """What a trace build of this launch records (:func:`predict_trace`)."""
        return predict_trace(self, M, N, K)

    # ---- per-step counts (what the page's sentences and the roofline use) --------------
    @property
    def fma_per_lds(self) -> float:
        """Multiply-adds per shared-memory load instruction in the inner loop."""
        tm, tn = self.thread_tile
        v = 4 if self.transposed else 1
        if self.layout == "1d":
            return tm / (1 + tm)  # TM As reads + 1 Bs read for TM FMAs
        return (tm * tn) / (tm / v + tn / v)

    def intensity(self) -> float:
        """FLOP per byte of global traffic with perfect reuse inside a block tile and none
        across blocks: 2*BM*BN*BK / (4*(BM*BK + BK*BN)) = BM*BN / (2*(BM + BN))."""
        return self.BM * self.BN / (2.0 * (self.BM + self.BN))


def _r(name, file, symbol, params, title, idea) -> Rung:
    return Rung(name, file, symbol, tuple(params), title, idea)


RUNGS: tuple[Rung, ...] = (
    _r("blocktile_1d", "10_blocktile_1d.cu", "blocktile_1d_gemm",
       [("BM", 64), ("BN", 64), ("BK", 8), ("TM", 8)],
       N_("1D block tiling"),
       N_("each thread computes 8 outputs of a column, so one value read from Bs serves 8 "
          "multiply-adds instead of 1: fewer shared-memory loads per FMA")),
    _r("blocktile_2d", "11_blocktile_2d.cu", "blocktile_2d_gemm",
       [("BM", 128), ("BN", 128), ("BK", 8), ("TM", 8), ("TN", 8)],
       N_("2D block tiling"),
       N_("each thread computes an 8 x 8 tile as outer products of 8 As and 8 Bs values held in "
          "registers: 64 FMAs per 16 shared loads, and a 128 x 128 block tile halves DRAM traffic")),
    _r("vectorized", "12_vectorized.cu", "vectorized_gemm",
       [("BM", 128), ("BN", 128), ("BK", 8), ("TM", 8), ("TN", 8)],
       N_("float4 loads, As transposed"),
       N_("16-byte loads and stores move 4 floats per instruction (global and shared), and the "
          "transposed As makes a thread's 8 A values adjacent: a quarter of the memory instructions")),
    _r("double_buffered", "13_double_buffered.cu", "double_buffered_gemm",
       [("BM", 128), ("BN", 128), ("BK", 8), ("TM", 8), ("TN", 8)],
       N_("double buffering"),
       N_("two shared buffers: the global loads of tile t+1 travel while tile t is multiplied, and "
          "one barrier per phase instead of two")),
    _r("warptile", "14_warptile.cu", "warptile_gemm",
       [("BM", 256), ("BN", 128), ("BK", 8), ("WM", 64), ("WN", 64), ("WNITER", 2),
        ("TM", 8), ("TN", 4), ("THREADS", 256), ("PAD", 4), ("MINB", 1)],
       N_("warp tiling"),
       N_("a warp owns a compact 64 x 64 region and its lanes read adjacent float4s of As and Bs "
          "(no bank conflicts); a 256 x 128 block tile with 16 x 8 outputs per thread reads each "
          "loaded value more often")),
)
BY_NAME: dict[str, Rung] = {r.name: r for r in RUNGS}
NAMES = tuple(r.name for r in RUNGS)


def rung(name: str) -> Rung:
    """A rung by name."""
    if name not in BY_NAME:
        raise ValueError(f"unknown ladder kernel {name!r}; choose one of {', '.join(BY_NAME)}")
    return BY_NAME[name]


# ---- the model: which thread owns which output, which element sits in which shared slot ------
def thread_outputs(r: Rung, tid) -> tuple[np.ndarray, np.ndarray]:
    """(rows, cols) inside the block tile of the outputs of thread(s) ``tid``, shape
    ``(..., outputs_per_thread)``, in store-loop order ``j``."""
    tid = np.asarray(tid)
    p = r.p
    tm, tn = r.thread_tile
    i = np.arange(tm)[:, None]
    j = np.arange(tn)[None, :]
    if r.layout == "1d":
        trow, tcol = tid // r.BN, tid % r.BN
        rows = trow[..., None, None] * p["TM"] + i
        cols = np.broadcast_to(tcol[..., None, None], rows.shape)
    elif r.layout == "2d":
        trow, tcol = tid // (r.BN // p["TN"]), tid % (r.BN // p["TN"])
        rows = trow[..., None, None] * p["TM"] + i
        cols = tcol[..., None, None] * p["TN"] + j
    else:
        w = r.warp_dims
        warp, lane = tid // WARP, tid % WARP
        wrow, wcol = warp // (r.BN // w["WN"]), warp % (r.BN // w["WN"])
        trow, tcol = lane // (w["WSUBN"] // p["TN"]), lane % (w["WSUBN"] // p["TN"])
        wm, ii = i // p["TM"], i % p["TM"]
        wn, jj = j // p["TN"], j % p["TN"]
        rows = (wrow * w["WM"] + trow * p["TM"])[..., None, None] + wm * w["WSUBM"] + ii
        cols = (wcol * w["WN"] + tcol * p["TN"])[..., None, None] + wn * w["WSUBN"] + jj
    rows, cols = np.broadcast_arrays(rows, cols)
    shape = tid.shape + (tm * tn,)
    return rows.reshape(shape), cols.reshape(shape)


def owner_map(r: Rung) -> np.ndarray:
    """(BM, BN) array: the thread that computes each output of the block tile."""
    tids = np.arange(r.threads)
    rows, cols = thread_outputs(r, tids)
    out = np.full((r.BM, r.BN), -1, dtype=np.int64)
    out[rows, cols] = np.broadcast_to(tids[:, None], rows.shape)
    return out


def as_swizzle(r: Rung, k):
    """What column m of A's tile is XORed with in row ``k`` of the transposed As: 0 in the rungs;
    in the tuning engine's configurations with BK = 32 (``r.swizzled``) 4 in rows 8-15 and 24-31,
    so that the stores of a warp's float4s fall in 16 banks instead of 8
    (kernels/tuned/warptile_tuned.cu's ``as_swz``; the compute loop's float4 reads stay whole)."""
    k = np.asarray(k)
    return ((k >> 3) & 1) << 2 if r.swizzled else np.zeros_like(k)


def slot_coords_a(r: Rung) -> tuple[np.ndarray, np.ndarray]:
    """(m, k) inside the A window held by each As slot; (-1, -1) for padding slots."""
    s = np.arange(r.slots_a)
    if r.transposed:
        k, m = s // r.lda, s % r.lda
        pad = m >= r.BM
        return np.where(pad, -1, m ^ as_swizzle(r, k)), np.where(pad, -1, k)
    return s // r.BK, s % r.BK


def slot_coords_b(r: Rung) -> tuple[np.ndarray, np.ndarray]:
    """(k, n) inside the B window held by each Bs slot."""
    s = np.arange(r.slots_b)
    return s // r.BN, s % r.BN


def loader_a(r: Rung) -> np.ndarray:
    """(BM, BK) array: the thread that copies each element of the A window into As (in one
    instruction with its 3 neighbours along k when the rung loads float4s)."""
    v = r.vector
    m, kq = np.meshgrid(np.arange(r.BM), np.arange(r.BK) // v, indexing="ij")
    i = m * (r.BK // v) + kq
    return i % r.threads


def loader_b(r: Rung) -> np.ndarray:
    """(BK, BN) array: the thread that copies each element of the B window into Bs."""
    v = r.vector
    k, nq = np.meshgrid(np.arange(r.BK), np.arange(r.BN) // v, indexing="ij")
    i = k * (r.BN // v) + nq
    return i % r.threads


@dataclass(frozen=True)
class LadderTrace:
    """The model's prediction of what a trace build records (same layout as gpu.trace)."""

    a: np.ndarray  # (gy, gx, phases, slots_a)
    b: np.ndarray  # (gy, gx, phases, slots_b)
    c: np.ndarray  # (gy, gx, threads, outputs_per_thread)


def predict_trace(r: Rung, M: int, N: int, K: int) -> LadderTrace:
    """What every slot held in every phase and which outputs every thread stored, for the
    launch of rung ``r`` on C = A (M x K) @ B (K x N): phase ``t`` copies columns
    ``t*BK .. t*BK + BK - 1`` of A (rows of B), padding zeros past K, M and N; a thread stores
    the outputs of its thread tile that lie inside C."""
    gx, gy = r.grid(M, N)
    P = r.phases(K)
    by = np.arange(gy)[:, None, None, None]
    bx = np.arange(gx)[None, :, None, None]
    t = np.arange(P)[None, None, :, None]

    m, k = slot_coords_a(r)
    row = by * r.BM + m
    col = t * r.BK + k
    a = np.where((row < M) & (col < K), row * K + col, PAD)
    a = np.where(m < 0, NEVER, a)
    a = np.broadcast_to(a, (gy, gx, P, r.slots_a))

    k, n = slot_coords_b(r)
    row = t * r.BK + k
    col = bx * r.BN + n
    b = np.where((row < K) & (col < N), row * N + col, PAD)
    b = np.broadcast_to(b, (gy, gx, P, r.slots_b))

    rows, cols = thread_outputs(r, np.arange(r.threads))
    R = by * r.BM + rows
    Cc = bx * r.BN + cols
    c = np.where((R < M) & (Cc < N), R * N + Cc, NEVER)
    return LadderTrace(np.array(a), np.array(b), np.array(c))


def read_slot_a(r: Rung, m, k):
    """The As slot the compute loop reads for row ``m`` of the block tile at step ``k`` (the
    kernel's read index, written separately from the store index :func:`slot_coords_a`)."""
    m, k = np.asarray(m), np.asarray(k)
    return k * r.lda + (m ^ as_swizzle(r, k)) if r.transposed else m * r.BK + k


def read_slot_b(r: Rung, k, n):
    """The Bs slot the compute loop reads for step ``k`` and column ``n`` of the block tile."""
    return np.asarray(k) * r.BN + np.asarray(n)


def replay(r: Rung, A: np.ndarray, B: np.ndarray, pad: bool = False) -> np.ndarray:
    """C computed the way the kernel does it, from the model alone: per block and phase the
    As / Bs slots are filled as :func:`predict_trace` says (the store side); then every thread
    accumulates its outputs from the slots its compute loop reads (:func:`read_slot_a`,
    :func:`read_slot_b`, the load side); a slot nobody stored reads as NaN. Equals A @ B
    exactly when stores, reads and output ownership agree. The slots come from ``r.trace``
    (:func:`predict_trace` for a rung); ``pad``: a padded launch's (the tuning engine's ``+pad``)."""
    M, K = A.shape
    N = B.shape[1]
    tr = r.trace(M, N, K, pad=True) if pad else r.trace(M, N, K)
    # index -1 (padding) -> 0.0, index -2 (never stored) -> NaN
    flatA = np.concatenate([A.ravel().astype(np.float64), [np.nan, 0.0]])
    flatB = np.concatenate([B.ravel().astype(np.float64), [np.nan, 0.0]])
    gx, gy = r.grid(M, N)
    C = np.full((M, N), np.nan)
    rows, cols = thread_outputs(r, np.arange(r.threads))  # (threads, outs)
    kk = np.arange(r.BK)
    ra = read_slot_a(r, rows[..., None], kk)  # (threads, outs, BK)
    rb = read_slot_b(r, kk, cols[..., None])
    for y in range(gy):
        for x in range(gx):
            acc = np.zeros(rows.shape)
            for t in range(r.phases(K)):
                As = flatA[tr.a[y, x, t]]
                Bs = flatB[tr.b[y, x, t]]
                acc += (As[ra] * Bs[rb]).sum(axis=-1)
            dst = tr.c[y, x]
            ok = dst >= 0
            C.ravel()[dst[ok]] = acc[ok]
    return C
