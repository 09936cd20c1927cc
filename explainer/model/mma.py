"""Tensor cores, one level down (kernel 15): the warp-wide ``mma.sync`` TF32 product
m16n8k8 and the kernel built on it, pure numpy.

One ``mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32`` multiplies a 16 x 8 tile of A by an
8 x 8 tile of B and adds a 16 x 8 tile of C, the 32 lanes of a warp together. No lane holds a
whole row or column: each holds a *fragment*, a few registers whose elements the PTX ISA fixes
(section "Matrix Fragments for mma.m16n8k8", the .tf32 figures). With ``g = lane // 4`` (the
groupID) and ``t = lane % 4`` (threadID_in_group):

    A (16 x 8, row-major)  a0 (g, t)   a1 (g + 8, t)   a2 (g, t + 4)   a3 (g + 8, t + 4)
    B (8 x 8, column)      b0 (t, g)   b1 (t + 4, g)                      (row k, column n)
    C (16 x 8, float)      c0 (g, 2t)  c1 (g, 2t + 1)  c2 (g + 8, 2t)  c3 (g + 8, 2t + 1)

:func:`fragment` gives these tables; :func:`c_owner` inverts C's. :class:`MmaKernel` is kernel
15's geometry (block tile, warp tiles, k-steps) and :func:`predict_trace` says, for every block,
phase, k-step, warp, m16n8 tile, lane and register, which element of A, B (and C at the store)
that register holds: the GPU test compares it with the kernel's own record (-DEXPLAINER_TRACE).
:func:`tf32` rounds float32 to TF32 the way the kernels' cvt does (10 mantissa bits, to nearest;
:func:`rounding` says how ties go on a device), for the precision the page reports.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..i18n import N_, _
from .memory import BANKS

WARP = 32
MMA_M, MMA_N, MMA_K = 16, 8, 8  # one mma.sync: (16 x 8) += (16 x 8) @ (8 x 8)
REGS = {"a": 4, "b": 2, "c": 4}  # 32-bit registers per lane
PADDING = -1  # a register that holds a padding zero (outside A or B)
NEVER = -2  # nothing recorded (an output outside C is not stored)
TF32_MANTISSA_BITS = 10


def fragment(which: str) -> np.ndarray:
    """``(32, regs, 2)`` int array: for lane L and register i of fragment ``which`` ("a", "b"
    or "c"), the (row, column) of the element it holds inside its tile (A: 16 x 8 as (m, k);
    B: 8 x 8 as (k, n); C: 16 x 8 as (m, n))."""
    if which not in REGS:
        raise ValueError(f"fragment is one of 'a', 'b', 'c', got {which!r}")
    lane = np.arange(WARP)
    g, t = lane // 4, lane % 4
    if which == "a":
        rows = [g, g + 8, g, g + 8]
        cols = [t, t, t + 4, t + 4]
    elif which == "b":
        rows = [t, t + 4]
        cols = [g, g]
    else:
        rows = [g, g, g + 8, g + 8]
        cols = [2 * t, 2 * t + 1, 2 * t, 2 * t + 1]
    return np.stack([np.stack(rows, axis=1), np.stack(cols, axis=1)], axis=2)


def register_name(which: str, reg: int, mi: int = 0, ni: int = 0) -> str:
    """A lane's fragment register as kernels/15_mma_tf32.cu names it: A's register ``reg`` of
    m16 tile ``mi`` is ``a[mi][reg]``, B's of n8 tile ``ni`` ``b[ni][reg]``, C's of m16n8 tile
    (mi, ni) ``acc[mi][ni][reg]``; ``reg`` is the PTX ISA's register number (a0..a3, b0, b1,
    c0..c3 of :func:`fragment`)."""
    if which not in REGS:
        raise ValueError(f"fragment is one of 'a', 'b', 'c', got {which!r}")
    if not 0 <= reg < REGS[which]:
        raise ValueError(f"{which} has registers 0..{REGS[which] - 1}, got {reg!r}")
    return {"a": f"a[{mi}][{reg}]", "b": f"b[{ni}][{reg}]", "c": f"acc[{mi}][{ni}][{reg}]"}[which]


def register_index(which: str, reg: int, mi: int = 0, ni: int = 0, kern: "MmaKernel | None" = None) -> int:
    """Where :func:`register_name` of (which, reg, mi, ni) stands in :func:`register_names`."""
    kern = kern or KERNEL
    if which == "a":
        return mi * REGS["a"] + reg
    if which == "b":
        return ni * REGS["b"] + reg
    return (mi * kern.niter + ni) * REGS["c"] + reg


def register_names(which: str, kern: "MmaKernel | None" = None) -> list[str]:
    """Every ``which`` register a lane of one of ``kern``'s warps holds, named as in the kernel,
    in the kernel's order (a[0][0], a[0][1], ... a[MITER-1][3]; b[0][0] ...; acc[0][0][0] ...): one
    name for each register, none repeated."""
    if which not in REGS:
        raise ValueError(f"fragment is one of 'a', 'b', 'c', got {which!r}")
    kern = kern or KERNEL
    tiles = {"a": [(mi, 0) for mi in range(kern.miter)], "b": [(0, ni) for ni in range(kern.niter)],
             "c": [(mi, ni) for mi in range(kern.miter) for ni in range(kern.niter)]}[which]
    return [register_name(which, reg, mi, ni) for mi, ni in tiles for reg in range(REGS[which])]


def tile_shape(which: str) -> tuple[int, int]:
    return {"a": (MMA_M, MMA_K), "b": (MMA_K, MMA_N), "c": (MMA_M, MMA_N)}[which]


def owners(which: str) -> np.ndarray:
    """``(rows, cols, 2)`` int array: the (lane, register) holding each element of the tile."""
    f = fragment(which)
    out = np.full((*tile_shape(which), 2), -1, dtype=np.int64)
    for lane in range(WARP):
        for i, (r, c) in enumerate(f[lane]):
            out[r, c] = (lane, i)
    return out


def c_owner(row: int, col: int) -> tuple[int, int]:
    """(lane, register) of element (row, col) of an m16n8 C tile (0 <= row < 16, 0 <= col < 8)."""
    if not (0 <= row < MMA_M and 0 <= col < MMA_N):
        raise ValueError(f"(row, col) must lie in the 16 x 8 tile, got ({row}, {col})")
    lane, reg = owners("c")[row, col]
    return int(lane), int(reg)


@dataclass(frozen=True)
class FragmentBanks:
    """One warp's shared-memory read of one fragment register (k-step 0, the first m16 / n8
    tile): the 4-byte word each lane reads, its bank, and the wavefronts the read takes (the most
    distinct words any one bank is asked for)."""

    which: str  # "a" (As[BM][BK + pad]) or "b" (Bs[BK][BN + pad])
    reg: int
    pad: int
    words: tuple[int, ...]
    banks: tuple[int, ...]
    degree: int


def fragment_banks(which: str, kern: "MmaKernel | None" = None, pad: int | None = None) -> list[FragmentBanks]:
    """Banks of kernel 15 / 16's fragment loads, register by register: A's rows are BK + pad
    floats long (``kern.PAD_A`` unless ``pad`` is given), B's BN + pad (``kern.PAD_B``)."""
    if which not in ("a", "b"):
        raise ValueError(f"fragments are read from shared memory for 'a' and 'b', got {which!r}")
    kern = kern or KERNEL
    pad = (kern.PAD_A if which == "a" else kern.PAD_B) if pad is None else pad
    row_len = (kern.BK if which == "a" else kern.BN) + pad
    f = fragment(which)
    out = []
    for reg in range(f.shape[1]):
        words = f[:, reg, 0] * row_len + f[:, reg, 1]
        banks = words % BANKS
        degree = max(len(set(words[banks == b].tolist())) for b in set(banks.tolist()))
        out.append(FragmentBanks(which, reg, pad, tuple(words.tolist()), tuple(banks.tolist()), degree))
    return out


def rounding(compute_capability) -> str:
    """How kernels 15 and 16 round to TF32 on a device (common.cuh ``tf32_bits``): "rne" (ties to
    even, ``cvt.rn.tf32.f32``, one instruction) from compute capability 9.0, "rna" (ties away from
    zero, ``cvt.rna``, the only mode before) on 8.x. ``compute_capability``: "9.0", 9.0 or (9, 0)."""
    if isinstance(compute_capability, (tuple, list)):
        major = int(compute_capability[0])
    else:
        major = int(str(compute_capability).split(".")[0])
    return "rne" if major >= 9 else "rna"


def tf32(x, rounding: str = "rna") -> np.ndarray:
    """float32 -> TF32 (as float32): the 23-bit mantissa cut to 10 bits (finite inputs).
    ``rounding``: "rna", what ``cvt.rna.tf32.f32`` gives (kernels 15, 16 on compute capability
    8.x): to nearest, ties away from zero; "rne": to nearest, ties to even, what ``cvt.rn`` (kernels
    15, 16 on 9.0) and the TMA's TFLOAT32 copy (kernel 17) give;
    "truncate": the low 13 bits dropped, what a tensor core reads from an unrounded float."""
    bits = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    drop = 23 - TF32_MANTISSA_BITS
    if rounding == "truncate":
        half = np.uint64(0)
    elif rounding == "rne":  # half minus one, plus the lowest kept bit: ties go to the even side
        half = np.uint64((1 << (drop - 1)) - 1) + ((bits >> np.uint64(drop)) & np.uint64(1))
    elif rounding == "rna":
        half = np.uint64(1 << (drop - 1))
    else:
        raise ValueError(f"rounding is 'rna', 'rne' or 'truncate', got {rounding!r}")
    rounded = ((bits + half) >> np.uint64(drop)) << np.uint64(drop)  # magnitude: sign bit unaffected
    return rounded.astype(np.uint32).view(np.float32)


@dataclass(frozen=True)
class MmaKernel:
    """Kernel 15's launch geometry: 1D blocks of ``threads`` threads (one warp per WM x WN warp
    tile of the BM x BN block tile), K in phases of BK, each phase in BK / 8 k-steps; a warp tile
    is MITER x NITER m16n8 tiles."""

    name: str = "mma_tf32"
    file: str = "15_mma_tf32.cu"
    symbol: str = "mma_tf32_gemm"
    BM: int = 64
    BN: int = 64
    BK: int = 16
    WM: int = 32
    WN: int = 32
    PAD_A: int = 4  # As[BM][BK + PAD_A]: a warp's fragment reads fall in 32 different banks
    PAD_B: int = 8  # Bs[BK][BN + PAD_B]: likewise
    stages: int = 1  # 1: copies through registers (kernel 15); > 1: cp.async buffers (kernel 16)
    title: str = "tensor cores: mma.sync m16n8k8 TF32 on shared-memory tiles (64 x 64, 4 warps)"

    @property
    def warps(self) -> int:
        return (self.BM // self.WM) * (self.BN // self.WN)

    @property
    def threads(self) -> int:
        return WARP * self.warps

    @property
    def miter(self) -> int:
        return self.WM // MMA_M

    @property
    def niter(self) -> int:
        return self.WN // MMA_N

    @property
    def ksteps(self) -> int:
        return self.BK // MMA_K

    @property
    def shared_bytes(self) -> int:
        """As and Bs, every stage: static for kernel 15, dynamic for the staged kernel."""
        return 4 * self.stages * (self.BM * (self.BK + self.PAD_A) + self.BK * (self.BN + self.PAD_B))

    @property
    def dynamic(self) -> bool:
        return self.stages > 1

    @property
    def barriers_per_phase(self) -> int:
        return 1 if self.stages > 1 else 2

    def grid(self, M: int, N: int) -> tuple[int, int]:
        return -(-N // self.BN), -(-M // self.BM)

    def phases(self, K: int) -> int:
        return -(-K // self.BK)

    def warp_origin(self, warp: int) -> tuple[int, int]:
        """(row, col) of a warp's tile inside the block tile (warps row-major over BN / WN)."""
        per_row = self.BN // self.WN
        return (warp // per_row) * self.WM, (warp % per_row) * self.WN

    def trace_shapes(self, M: int, N: int, K: int) -> dict[str, tuple[int, ...]]:
        """The recorded arrays' shapes (the kernel's g_trace_a / b / c layouts, row-major)."""
        gx, gy = self.grid(M, N)
        P = self.phases(K)
        return {
            "a": (gy, gx, P, self.ksteps, self.warps, self.miter, WARP, REGS["a"]),
            "b": (gy, gx, P, self.ksteps, self.warps, self.niter, WARP, REGS["b"]),
            "c": (gy, gx, self.warps, self.miter, self.niter, WARP, REGS["c"]),
        }


KERNEL = MmaKernel()
#: Kernel 16: the same fragments, 128 x 256 blocks of 8 warps (64 x 64 each), three cp.async
#: stages, fragments loaded one k-step ahead.
STAGED = MmaKernel(name="mma_tf32_staged", file="16_mma_tf32_staged.cu", symbol="mma_tf32_staged_gemm",
                   BM=128, BN=256, BK=32, WM=64, WN=64, stages=3,
                   title="tensor cores fed by cp.async: mma.sync TF32, 128 x 256 blocks, 3 staged copies")
KERNELS = {k.name: k for k in (KERNEL, STAGED)}


@dataclass(frozen=True)
class MmaTrace:
    a: np.ndarray  # A's linear index r * K + c held by each register, or PADDING
    b: np.ndarray  # B's linear index r * N + c, or PADDING
    c: np.ndarray  # the C element row * N + col each register is stored to, or NEVER


def predict_trace(M: int, N: int, K: int, kern: MmaKernel = KERNEL) -> MmaTrace:
    """What every register of every lane holds, for C = A (M x K) @ B (K x N), in the layout of
    :meth:`MmaKernel.trace_shapes`."""
    shapes = kern.trace_shapes(M, N, K)
    gy, gx, P, S, W, MI = shapes["a"][:6]
    NI = shapes["b"][5]
    fa, fb, fc = fragment("a"), fragment("b"), fragment("c")
    by = np.arange(gy).reshape(gy, 1, 1, 1, 1, 1, 1, 1)
    bx = np.arange(gx).reshape(1, gx, 1, 1, 1, 1, 1, 1)
    t = np.arange(P).reshape(1, 1, P, 1, 1, 1, 1, 1)
    s = np.arange(S).reshape(1, 1, 1, S, 1, 1, 1, 1)
    origin = np.array([kern.warp_origin(w) for w in range(W)])
    wr = origin[:, 0].reshape(1, 1, 1, 1, W, 1, 1, 1)
    wc = origin[:, 1].reshape(1, 1, 1, 1, W, 1, 1, 1)
    k0 = t * kern.BK + s * MMA_K

    mi = np.arange(MI).reshape(1, 1, 1, 1, 1, MI, 1, 1)
    row = by * kern.BM + wr + mi * MMA_M + fa[:, :, 0].reshape(1, 1, 1, 1, 1, 1, WARP, 4)
    col = k0 + fa[:, :, 1].reshape(1, 1, 1, 1, 1, 1, WARP, 4)
    a = np.where((row < M) & (col < K), row * K + col, PADDING)

    ni = np.arange(NI).reshape(1, 1, 1, 1, 1, NI, 1, 1)
    krow = k0 + fb[:, :, 0].reshape(1, 1, 1, 1, 1, 1, WARP, 2)
    ncol = bx * kern.BN + wc + ni * MMA_N + fb[:, :, 1].reshape(1, 1, 1, 1, 1, 1, WARP, 2)
    b = np.where((krow < K) & (ncol < N), krow * N + ncol, PADDING)

    by_c, bx_c = by.reshape(gy, 1, 1, 1, 1, 1, 1), bx.reshape(1, gx, 1, 1, 1, 1, 1)
    wr_c, wc_c = wr.reshape(1, 1, W, 1, 1, 1, 1), wc.reshape(1, 1, W, 1, 1, 1, 1)
    mi_c = np.arange(MI).reshape(1, 1, 1, MI, 1, 1, 1)
    ni_c = np.arange(NI).reshape(1, 1, 1, 1, NI, 1, 1)
    crow = by_c * kern.BM + wr_c + mi_c * MMA_M + fc[:, :, 0].reshape(1, 1, 1, 1, 1, WARP, 4)
    ccol = bx_c * kern.BN + wc_c + ni_c * MMA_N + fc[:, :, 1].reshape(1, 1, 1, 1, 1, WARP, 4)
    c = np.where((crow < M) & (ccol < N), crow * N + ccol, NEVER)
    shape = shapes["a"], shapes["b"], shapes["c"]
    return MmaTrace(*(np.broadcast_to(x, sh).astype(np.int64) for x, sh in zip((a, b, c), shape)))


def error_bound(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Elementwise bound on |C_tf32 - A @ B| (float64 product of the float32 inputs): each input
    rounded to TF32 is off by at most 2^-11 of itself, so each product by about 2^-10 of
    |a||b|, and the float32 accumulation adds K * 2^-24 of the running sums."""
    A64, B64 = np.abs(np.asarray(A, dtype=np.float64)), np.abs(np.asarray(B, dtype=np.float64))
    K = A64.shape[1]
    return (2.0 ** -10 + 2.0 ** -21 + K * 2.0 ** -24) * (A64 @ B64)


# ---- kernel 16's pipeline: which buffer holds which phase, and what each wait guarantees ----------
BUF_FREE, BUF_IN_FLIGHT, BUF_LANDED, BUF_READ = range(4)
BUF_STATES = (N_("free"), N_("copy in flight"), N_("landed"), N_("read by the mma"))  # shown with _()


@dataclass(frozen=True)
class PipelineStep:
    """One step of kernel 16's loop as one thread sees it: the kernel line (``line``: "issue",
    "wait", "barrier", "compute" or "drain"), the phase each shared buffer holds or is receiving
    (-1: none yet), each buffer's state (``BUF_*``), the phases whose copies may still be in
    flight (groups not yet waited for), the phase and k-steps whose mma.sync the step issues
    (``ksteps``, empty but for "compute"), and what the line guarantees, in words."""

    line: str
    phase: int  # the loop's phase (-1 in the prologue)
    holds: tuple[int, ...]
    state: tuple[int, ...]
    in_flight: tuple[int, ...]
    text: str
    ksteps: tuple[int, ...] = ()


def pipeline(K: int, kern: MmaKernel = STAGED) -> list[PipelineStep]:
    """Kernel 16's copy pipeline over the phases of K, step by step (kernels/16_mma_tf32_staged.cu):
    the prologue issues STAGES - 1 phases, waits for phase 0 and loads its first fragments; each
    phase then issues the phase STAGES - 1 ahead, runs its k-steps but the last (each loading the
    next k-step's fragments), waits and meets the barrier (the next phase has landed; its own
    buffer is read), and runs its last k-step while the next phase's first fragments load."""
    if isinstance(K, bool) or not isinstance(K, (int, np.integer)) or K < 1:
        raise ValueError(f"K must be a whole number >= 1, got {K!r}")
    S, P, KS = kern.stages, kern.phases(K), kern.ksteps
    holds, state = [-1] * S, [BUF_FREE] * S
    groups: list[int | None] = []  # committed, not yet waited for (None: an empty group)
    out: list[PipelineStep] = []

    def add(line, phase, text, ksteps=()):
        out.append(PipelineStep(line, phase, tuple(holds), tuple(state),
                                tuple(g for g in groups if g is not None), text, tuple(ksteps)))

    def issue(ph):
        b = ph % S
        holds[b], state[b] = ph, BUF_IN_FLIGHT
        groups.append(ph)
        return b

    def wait():
        keep = S - 2
        done = groups[:len(groups) - keep] if keep else groups[:]
        del groups[:len(done)]
        for g in done:
            if g is not None:
                state[g % S] = BUF_LANDED
        return keep

    def k_text(ks):  # at the start of a sentence
        return _("K-step {k}", k=ks[0]) if len(ks) == 1 else _("K-steps {first}–{last}", first=ks[0], last=ks[-1])

    per = kern.miter * kern.niter
    for ph in range(S - 1):
        if ph < P:
            b = issue(ph)
            add("issue", -1, _("Prologue: issue the cp.async copies of phase {phase} into buffer {buffer} and commit "
                               "them as one group. The thread goes on at once; nothing has landed yet.",
                               phase=ph, buffer=b))
        else:
            groups.append(None)
            add("issue", -1, _("Prologue: K has only {phases} phase(s); commit an empty group, so that the waits "
                               "below count groups the same way.", phases=P))
    keep = wait()
    add("wait", -1, _("Prologue: cp.async.wait_group {keep}: at most {keep} of this thread's groups may still be in "
                      "flight, so its copies of phase 0 (buffer 0) have landed. Other threads' copies: not yet known.",
                      keep=keep))
    state[0] = BUF_READ
    add("barrier", -1, _("Prologue: __syncthreads(): every thread has passed its wait, so all of phase 0 is in "
                         "buffer 0. Each warp loads the fragments of phase 0's k-step 0 into its first register set."))
    for ph in range(P):
        nxt = ph + S - 1
        if nxt < P:
            b = issue(nxt)
            add("issue", ph, _("Issue phase {next} into buffer {buffer} and commit: its copies travel while the "
                               "warps work on phase {phase}.", next=nxt, buffer=b, phase=ph)
                + (" " + _("Buffer {buffer} is free: every warp loaded its last fragments of phase {phase} before "
                           "the last barrier.", buffer=b, phase=ph - 1) if ph else ""))
        else:
            groups.append(None)
            add("issue", ph, _("No phase {next} (K has {phases} phases): commit an empty group.", next=nxt, phases=P))
        first = tuple(range(KS - 1))
        if first:
            add("compute", ph, _("{ksteps} of phase {phase}: each k-step loads the fragments of the next one from "
                                 "buffer {buffer} into the other register set, then issues its {per} mma.sync per "
                                 "warp on the fragments already there.", ksteps=k_text(first), phase=ph,
                                 buffer=ph % S, per=per), first)
        keep = wait()
        add("wait", ph, _("cp.async.wait_group {keep}: this thread's copies of phase {phase} (buffer {buffer}) "
                          "have landed.", keep=keep, phase=ph + 1, buffer=(ph + 1) % S) if ph + 1 < P else
                        _("cp.async.wait_group {keep}: phase {phase} is the last; nothing more is needed.",
                          keep=keep, phase=ph))
        state[ph % S] = BUF_FREE
        if ph + 1 < P:
            state[(ph + 1) % S] = BUF_READ
        add("barrier", ph, _("__syncthreads(): all of phase {next} is in buffer {next_buffer}; and every warp has "
                             "loaded its last fragments of phase {phase}, so buffer {buffer} is free for the next "
                             "issue.", next=ph + 1, next_buffer=(ph + 1) % S, phase=ph, buffer=ph % S)
                           if ph + 1 < P else
                           _("__syncthreads(): every warp has loaded its last fragments of phase {phase}.", phase=ph))
        add("compute", ph, _("K-step {k} of phase {phase}: {per} mma.sync per warp on the fragments in registers, "
                             "while the fragments of phase {next}'s k-step 0 load from buffer {buffer}.",
                             k=KS - 1, phase=ph, per=per, next=ph + 1, buffer=(ph + 1) % S) if ph + 1 < P else
                           _("K-step {k} of phase {phase}: {per} mma.sync per warp on the fragments in registers.",
                             k=KS - 1, phase=ph, per=per), (KS - 1,))
    groups.clear()
    add("drain", P - 1, _("cp.async.wait_group 0: no copy is left in flight when the block stores C and exits."))
    return out
