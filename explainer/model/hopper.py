"""Kernel 17 (``kernels/17_wgmma_tma.cu``), the Hopper rung: its geometry, and what a launch needs
from the device and the shape. Pure Python (no GPU).

A producer warpgroup has the tensor memory accelerator (TMA) copy one box of A and BN / 32 boxes
of B per phase into one of ``stages`` buffers; two consumer warpgroups multiply with ``wgmma``
(64 x BM x 8 per instruction on C^T, TF32 reads its shared operand K-major only). Two mbarriers
per stage hand buffers over: ``full`` (the producer's arrival + the TMA's bytes) and ``empty``
(one arrival per consumer warp once wgmma has read the stage).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..i18n import N_, _

WARPGROUP = 128  # threads of one warpgroup: 4 consecutive warps
SWIZZLE = 128  # bytes: the TMA's 128-byte swizzle, the width of one box row
ALIGN = 1024  # the swizzle pattern repeats every 8 rows of 128 bytes: buffers start on it
BARRIER_BYTES = 8  # one mbarrier


@dataclass(frozen=True)
class HopperKernel:
    name: str = "wgmma_tma"
    file: str = "17_wgmma_tma.cu"
    symbol: str = "wgmma_tma_gemm"
    BM: int = 256  # rows of C per block: the N of one wgmma on C^T
    BN: int = 128  # columns of C per block: 64 per consumer warpgroup
    BK: int = 32  # k per phase: 32 floats = one 128-byte swizzled row of As
    stages: int = 4
    consumers: int = 2
    arch: str = "sm_90a"  # wgmma and setmaxnreg: the architecture-specific target
    title: str = "Hopper: TMA copies, mbarrier hand-over, wgmma TF32 (256 x 128, 4 stages)"

    @property
    def threads(self) -> int:
        return WARPGROUP * (1 + self.consumers)

    @property
    def box_b(self) -> int:
        """Columns of B per TMA box: one 128-byte swizzled row."""
        return SWIZZLE // 4

    @property
    def stage_bytes(self) -> int:
        """What the TMA delivers into one stage (the bytes ``full`` expects)."""
        return 4 * self.BK * (self.BM + self.BN)

    @property
    def shared_bytes(self) -> int:
        """Dynamic shared memory asked at launch: the stages, room to align them to 1024 bytes,
        and the 2 x stages mbarriers."""
        return self.stages * self.stage_bytes + ALIGN + 2 * self.stages * BARRIER_BYTES

    @property
    def empty_arrivals(self) -> int:
        """Arrivals that free a stage: one per consumer warp."""
        return self.consumers * WARPGROUP // 32

    def grid(self, M: int, N: int) -> tuple[int, int]:
        return -(-N // self.BN), -(-M // self.BM)

    def phases(self, K: int) -> int:
        return -(-K // self.BK)

    def why_not(self, M: int, N: int, K: int, capability: str | None = None) -> str | None:
        """One line saying why this kernel cannot run the shape (or on a device of this compute
        capability, "9.0" etc.), or None."""
        if capability is not None and capability != "9.0":
            return _("kernel 17 ({name}) needs a Hopper GPU (compute capability 9.0: wgmma, TMA); this one is "
                     "{capability}. Kernel 16 runs on 8.0 and newer", name=self.name, capability=capability)
        bad = [f"{n} = {v}" for n, v in (("K", K), ("N", N)) if v % 4]
        if bad:
            return _("kernel 17 ({name}) needs K and N multiples of 4 (the TMA reads rows that start 16 bytes "
                     "apart); {bad}. Kernel 16 runs any shape", name=self.name, bad=", ".join(bad))
        return None


    # ---- where the TMA puts each element, and who stores each element of C ------------------
    def swizzled(self, slot: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(row, column) of the element at float ``slot`` of a box written with the 128-byte
        swizzle (rows of 32 floats): the 16-byte chunk index is XORed with the row mod 8."""
        slot = np.asarray(slot)
        row, chunk, word = slot // 32, (slot % 32) // 4, slot % 4
        return row, ((chunk ^ (row % 8)) * 4 + word)

    def a_slots(self) -> tuple[np.ndarray, np.ndarray]:
        """(m, k) inside the block's A tile of every float slot of a stage of As (one box)."""
        m, k = self.swizzled(np.arange(self.BM * self.BK))
        return m, k

    def b_slots(self) -> tuple[np.ndarray, np.ndarray]:
        """(k, n) inside the block's B tile of every float slot of a stage of Bs (BN / 32 boxes
        of BK rows x 32 columns, one after the other)."""
        slot = np.arange(self.BK * self.BN)
        box, inner = slot // (self.BK * self.box_b), slot % (self.BK * self.box_b)
        k, n = self.swizzled(inner)
        return k, box * self.box_b + n

    def c_owners(self) -> tuple[np.ndarray, np.ndarray]:
        """(row, column) inside the block's tile of C of accumulator d[r] of each lane of each
        warp of each consumer: shape (consumers, 4, 32, BM / 2) each. d[4i + j] is C^T row
        16 w + g + 8 (j / 2), column 8 i + 2 t + j % 2 (lane = 4 g + t)."""
        c, w, lane, r = np.meshgrid(np.arange(self.consumers), np.arange(4), np.arange(32),
                                    np.arange(self.BM // 2), indexing="ij")
        g, t, i, j = lane // 4, lane % 4, r // 4, r % 4
        col = c * (self.BN // self.consumers) + 16 * w + g + 8 * (j // 2)
        row = 8 * i + 2 * t + j % 2
        return row, col

    def trace_shapes(self, M: int, N: int, K: int) -> dict:
        gx, gy = self.grid(M, N)
        P = self.phases(K)
        return {"a": (gy, gx, P, self.BM * self.BK), "b": (gy, gx, P, self.BK * self.BN),
                "c": (gy, gx, self.consumers, 4, 32, self.BM // 2)}

    def predict_trace(self, M: int, N: int, K: int) -> dict:
        """What the trace build records (kernels/17_wgmma_tma.cu, -DEXPLAINER_TRACE): per block
        and phase, the linear index (r * K + c, or r * N + c for B; -1 where the TMA zero-fills
        outside the matrix) of the element in every slot of the stage's As and Bs; per consumer
        thread and accumulator, row * N + col of the element of C it stores (-2: outside C)."""
        gx, gy = self.grid(M, N)
        P = self.phases(K)
        by, bx, ph = np.meshgrid(np.arange(gy), np.arange(gx), np.arange(P), indexing="ij")
        by, bx, ph = by[..., None], bx[..., None], ph[..., None]
        m, k = self.a_slots()
        r, c = by * self.BM + m, ph * self.BK + k
        a = np.where((r < M) & (c < K), r * K + c, -1)
        k, n = self.b_slots()
        r, c = ph * self.BK + k, bx * self.BN + n
        b = np.where((r < K) & (c < N), r * N + c, -1)
        row, col = self.c_owners()
        row = np.arange(gy).reshape(gy, 1, 1, 1, 1, 1) * self.BM + row
        col = np.arange(gx).reshape(1, gx, 1, 1, 1, 1) * self.BN + col
        cc = np.where((row < M) & (col < N), row * N + col, -2)
        return {"a": a.astype(np.int64), "b": b.astype(np.int64), "c": cc.astype(np.int64)}


KERNEL = HopperKernel()


# ---- the hand-over: who arrives, who waits, which stage is full (page 09's stepper) ---------------
STAGE_FREE, STAGE_FILLING, STAGE_FULL, STAGE_READ = range(4)
#: Shown with _() (marked for the catalogue here).
STAGE_STATES = (N_("free"), N_("TMA copy in flight"), N_("full"), N_("read by wgmma"))
ACTORS = (N_("producer"), N_("TMA"), N_("consumer 1"), N_("consumer 2"))


@dataclass(frozen=True)
class Handover:
    """One step of kernel 17's hand-over, one block. ``actor`` (an index into :data:`ACTORS`) did
    ``line`` (a step marker of the kernel file: init, wait_empty, expect_tx, load, land,
    wait_full, compute, arrive_empty, store; "land" is the copy engine's, not a line) for
    ``phase`` in ``stage``; ``waits`` is True when the actor found the barrier not yet complete
    and stays there. After the step: each stage's phase and state; each mbarrier's completed
    phases (its parity bit is that mod 2), arrivals so far and, for ``full``, bytes still to
    come; what each actor is doing (``doing``, in the reader's language); and what the step
    guarantees (``text``, likewise). ``waiting``: for each actor, whether it waits at a barrier
    (what ``doing`` says in words)."""

    actor: int
    line: str
    phase: int
    stage: int
    waits: bool
    holds: tuple[int, ...]
    state: tuple[int, ...]
    full_done: tuple[int, ...]
    full_arrived: tuple[int, ...]
    full_bytes: tuple[int, ...]
    empty_done: tuple[int, ...]
    empty_arrived: tuple[int, ...]
    doing: tuple[str, ...]
    text: str
    waiting: tuple[bool, ...] = ()


def schedule(K: int, kern: HopperKernel = KERNEL) -> list[Handover]:
    """Kernel 17's hand-over of stages for one block over the phases of K, step by step.

    The roles run concurrently; this is one order they may take (each round: the producer issues
    as far ahead as the free stages allow, each consumer takes one phase, then the copy engine
    lands the oldest copy), chosen so that every kind of wait shows. The mbarriers make every order compute the same C: the tests check that no stage is
    overwritten before both consumers released it, none is read before all its bytes landed, and
    each waiter's parity is the one that barrier reaches."""
    if isinstance(K, bool) or not isinstance(K, (int, np.integer)) or K < 1:
        raise ValueError(f"K must be a whole number >= 1, got {K!r}")
    S, P, B = kern.stages, kern.phases(K), kern.stage_bytes
    C = kern.consumers
    warps = WARPGROUP // 32
    holds, state = [-1] * S, [STAGE_FREE] * S
    full_done, full_arrived, full_bytes = [0] * S, [0] * S, [0] * S
    empty_done, empty_arrived = [0] * S, [0] * S
    out: list[Handover] = []

    # what each actor is doing: (English msgid, its fields), put in words when a step is added
    WAITS_SYNC, IDLE, RUNS = (N_("waits at __syncthreads()"), {}), (N_("idle"), {}), (N_("runs"), {})

    def add(actor, line, ph, st, text, waits=False):
        out.append(Handover(actor, line, ph, st, waits, tuple(holds), tuple(state), tuple(full_done),
                            tuple(full_arrived), tuple(full_bytes), tuple(empty_done), tuple(empty_arrived),
                            tuple(_(m, **f) for m, f in doing), text, tuple(m.startswith("waits") for m, _f in doing)))

    doing = [WAITS_SYNC] * len(ACTORS)
    doing[1] = IDLE
    add(0, "init", -1, -1, _("Thread 0 initialises {stages} × 2 mbarriers: full[s] expects 1 arrival (plus bytes), "
                             "empty[s] expects {arrivals} (one per consumer warp). One __syncthreads() publishes "
                             "them; it is the block's only barrier.", stages=S, arrivals=C * warps))
    prod_ph, in_flight = 0, []  # phases whose TMA copies travel, oldest first
    cons_ph = [0] * C
    cons_wait = [False] * C  # waiting on full
    prod_wait = False
    stored = [False] * C
    doing = [RUNS, IDLE] + [RUNS] * C
    while not all(stored):
        progressed = False
        # -- the producer: one thread drives the copy engine, as far ahead as the stages allow
        while prod_ph < P:
            ph, s = prod_ph, prod_ph % S
            need = ph // S  # completions of empty[s] it needs: the consumers of phase ph - S released it
            if ph >= S and empty_done[s] < need:
                if not prod_wait:
                    prod_wait, doing[0] = True, (N_("waits on empty[{s}]"), {"s": s})
                    add(0, "wait_empty", ph, s, _("The producer wants stage {s} for phase {phase}, but phase {before} may "
                                                  "still be read there: it waits on empty[{s}] for parity {parity} "
                                                  "({arrived} of {arrivals} consumer warps have arrived).", s=s,
                                                  phase=ph, before=ph - S, parity=(need - 1) % 2,
                                                  arrived=empty_arrived[s], arrivals=C * warps), True)
                break
            if ph >= S:
                prod_wait, doing[0] = False, RUNS
                add(0, "wait_empty", ph, s, _("empty[{s}] has completed phase {done} (parity {parity}): every consumer "
                                              "warp has finished reading phase {before}. Stage {s} is free.", s=s,
                                              done=need - 1, parity=(need - 1) % 2, before=ph - S))
            full_arrived[s], full_bytes[s] = 1, B
            holds[s], state[s] = ph, STAGE_FILLING
            doing[0] = (N_("issues phase {phase}"), {"phase": ph})
            add(0, "expect_tx", ph, s, _("mbarrier.arrive.expect_tx on full[{s}]: the producer's 1 arrival, and {bytes} "
                                         "bytes still to come. The phase of full[{s}] cannot complete before they land.",
                                         s=s, bytes=f"{B:,}"))
            in_flight.append(ph)
            doing[1] = (N_("copies phase {phase}"), {"phase": in_flight[0]})
            prod_ph += 1
            doing[0] = (N_("done: returns"), {}) if prod_ph == P else RUNS
            add(0, "load", ph, s, _("cp.async.bulk.tensor: one box of A ({BK} × {BM}) and {boxes} boxes of B ({box} × "
                                    "{BK}) for phase {phase} into stage {s}. One thread, no waiting: the copy engine "
                                    "does the work and counts the bytes into full[{s}].", BK=kern.BK, BM=kern.BM,
                                    boxes=kern.BN // kern.box_b, box=kern.box_b, phase=ph, s=s))
            progressed = True
        # -- the consumers
        for c in range(C):
            a = 2 + c
            ph = cons_ph[c]
            if ph == P:
                if not stored[c]:
                    stored[c], doing[a] = True, (N_("stored its C"), {})
                    add(a, "store", P - 1, -1, _("Consumer {c}: every phase done; its 128 threads store their {acc} "
                                                 "accumulators each to C (columns {first}..{last} of the tile).",
                                                 c=c + 1, acc=kern.BM // 2, first=c * kern.BN // C,
                                                 last=(c + 1) * kern.BN // C - 1))
                    progressed = True
                continue
            s = ph % S
            need = ph // S + 1  # completions of full[s] that phase ph is
            if full_done[s] < need:
                if not cons_wait[c]:
                    cons_wait[c], doing[a] = True, (N_("waits on full[{s}]"), {"s": s})
                    add(a, "wait_full", ph, s, _("Consumer {c} needs phase {phase} (stage {s}): it waits on full[{s}] "
                                                 "for parity {parity}; {bytes} bytes have not landed yet.", c=c + 1,
                                                 phase=ph, s=s, parity=(need - 1) % 2, bytes=f"{full_bytes[s]:,}"), True)
                continue
            cons_wait[c], doing[a] = False, RUNS
            add(a, "wait_full", ph, s, _("full[{s}] has completed phase {done} (parity {parity}): all {bytes} bytes of "
                                         "phase {phase} are in stage {s}, visible to consumer {c}.", s=s, done=need - 1,
                                         parity=(need - 1) % 2, bytes=f"{B:,}", phase=ph, c=c + 1))
            state[s], doing[a] = STAGE_READ, (N_("multiplies phase {phase}"), {"phase": ph})
            add(a, "compute", ph, s, _("Consumer {c} loads its B fragments from stage {s} and issues {n} wgmma "
                                       "(64 × {BM} × 8 each), then wgmma.wait_group 0: the tensor cores have finished "
                                       "reading the stage.", c=c + 1, s=s, n=kern.BK // 8, BM=kern.BM))
            empty_arrived[s] += warps
            text = _("Its {warps} warps arrive on empty[{s}]: {arrived} of {arrivals}.", warps=warps, s=s,
                     arrived=empty_arrived[s], arrivals=C * warps)
            if empty_arrived[s] == C * warps:
                empty_done[s] += 1
                empty_arrived[s] = 0
                state[s] = STAGE_FREE
                text += " " + _("That completes empty[{s}] (phase {done}): stage {s} may be refilled.", s=s,
                                done=empty_done[s] - 1)
            cons_ph[c] += 1
            doing[a] = RUNS
            add(a, "arrive_empty", ph, s, _("Consumer {c} is done with phase {phase}.", c=c + 1, phase=ph) + " " + text)
            progressed = True
        # -- the copy engine lands the oldest copy
        if in_flight:
            ph = in_flight.pop(0)
            s = ph % S
            full_bytes[s], full_arrived[s] = 0, 0
            full_done[s] += 1
            state[s] = STAGE_FULL
            doing[1] = (N_("copies phase {phase}"), {"phase": in_flight[0]}) if in_flight else IDLE
            add(1, "land", ph, s, _("The TMA has delivered all {bytes} bytes of phase {phase}: with the producer's "
                                    "arrival that completes full[{s}] (phase {done}, parity bit now {parity}). Waiters "
                                    "on that parity go on.", bytes=f"{B:,}", phase=ph, s=s, done=full_done[s] - 1,
                                    parity=full_done[s] % 2))
            progressed = True
        if not progressed:  # cannot happen: the tests run every K
            raise RuntimeError("the hand-over deadlocked")
    return out


KERNELS = {KERNEL.name: KERNEL}
