"""How an SM's warp schedulers keep busy: the tiled kernel's warps, cycle by cycle.

An SM is split into ``S`` sub-partitions (``schedulers_per_sm`` in ``data/arches.json``: 2 on
Fermi, 4 since Maxwell), each with one warp scheduler that issues **at most one instruction per
cycle**, from one of its warps that is ready (SIMT: the instruction runs for all 32 lanes of the
warp). A warp waiting for a global load cannot issue the instruction that uses the loaded value;
the scheduler then picks another warp. With enough resident warps there is always one ready:
that is how a GPU *hides* memory latency, and why occupancy (page 06) matters.

The model (pure Python, deterministic):

* **Warps.** The SM holds ``blocks`` blocks of ``warps_per_block`` warps, as
  :func:`explainer.model.hardware.tile_occupancy` says for a tile. Resident warp ``w`` (numbered
  block by block) runs on scheduler ``w % S`` (an assumption: NVIDIA does not document the
  mapping). Every block starts at cycle 0.
* **The program** of every warp is the tiled kernel's loop, ``phases`` times, then the store of C
  (:data:`KINDS`): ``ldg A``, ``ldg B`` (global loads, independent of each other: issued back to
  back), ``sts A``, ``sts B`` (the stores into As / Bs, which need the loaded values: a warp waits
  on the *scoreboard* until ``latency`` cycles after its load issued), ``bar`` (``__syncthreads()``:
  the warp waits until every warp of its block has issued it; it may issue again the next cycle),
  ``T`` × ``fma`` (``sum += As[ty][k] * Bs[k][tx]``), ``bar``; after the last phase ``stg C``.
  Left out, so the model is kind to few warps: the shared-memory reads' own latency, the chain of
  FMAs through ``sum`` (each FMA here may issue the cycle after the one before), the address
  arithmetic and the loop's branch.
* **The scheduler's policy** (:data:`POLICIES`): ``"oldest"`` issues the ready warp with the
  lowest number (the oldest, as all start together); ``"round_robin"`` the first ready warp after
  the one it issued last (loose round-robin). NVIDIA does not document its policy; both are
  common in the literature.

Per warp and cycle the state (:data:`STATES`) is one of: issuing, ready (eligible, not picked),
stalled on a load (scoreboard), waiting at a barrier, done.

The rule of thumb it illustrates: between two waits for memory a warp issues ``n`` instructions
(one phase: :func:`per_phase`); a scheduler issuing one instruction per cycle stays busy through a
wait of ``L`` cycles if its other warps have ``L`` instructions to give, so it needs about
``L × issue rate / n`` warps (:func:`warps_needed`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..i18n import N_, _
from . import hardware
from .launch import MAX_TILE

ISSUING, READY, STALLED, BARRIER, DONE = range(5)
#: (English; marked for the catalogue, a view shows them with _())
STATES = (N_("issuing"), N_("ready, not picked"), N_("stalled on a load (scoreboard)"), N_("waiting at a barrier"),
          N_("done"))
#: Instruction kinds of the program (``Run.instr`` holds their index where a warp issued).
KINDS = ("ldg A", "ldg B", "sts A", "sts B", "bar", "fma", "stg C")
LDG_A, LDG_B, STS_A, STS_B, BAR, FMA, STG = range(len(KINDS))
#: What each kind does, as the view spells it.
KIND_TEXT = {
    LDG_A: N_("global load of its A element (the value arrives L cycles later)"),
    LDG_B: N_("global load of its B element"),
    STS_A: N_("As[ty][tx] = the loaded A value (needs the load)"),
    STS_B: N_("Bs[ty][tx] = the loaded B value (needs the load)"),
    BAR: "__syncthreads()",
    FMA: "sum += As[ty][k] * Bs[k][tx]",
    STG: "C[row][col] = sum",
}
POLICIES = ("oldest", "round_robin")
POLICY_TEXT = {"oldest": N_("oldest first (the lowest-numbered ready warp)"),
               "round_robin": N_("loose round-robin (the next ready warp after the last one issued)")}
#: The latency used where no measurement is recorded (labelled as assumed wherever it is shown).
ASSUMED_LATENCY = 400
#: Which recorded latency a run may use (``cycles_per_load`` keys of the latency record).
LATENCY_KINDS = {"global_dram": N_("a global load from DRAM"), "global_l2_hit": N_("a global load that hits in L2")}
#: The same, as a table's cell says where the load is served, and as the stepper's buttons name them.
LATENCY_WHERE = {"global_dram": N_("from DRAM"), "global_l2_hit": N_("that hits in L2")}
LATENCY_BUTTONS = {"global_dram": N_("loads from DRAM"), "global_l2_hit": N_("loads that hit in L2")}
MAX_CYCLES = 200_000


class SchedulerError(ValueError):
    """Bad input for the scheduler model: one readable line."""


def program(T: int, phases: int) -> list[tuple[int, int, int]]:
    """Every warp's instructions in order: ``(kind, phase, k)`` (``k`` = -1 where it has none;
    the two barriers of a phase are ``k`` 0 and 1, the first and the second ``__syncthreads()``)."""
    out = []
    for t in range(phases):
        out += [(LDG_A, t, -1), (LDG_B, t, -1), (STS_A, t, -1), (STS_B, t, -1), (BAR, t, 0)]
        out += [(FMA, t, k) for k in range(T)]
        out += [(BAR, t, 1)]
    out.append((STG, phases - 1, -1))
    return out


def per_phase(T: int) -> int:
    """Instructions a warp issues per phase: 2 loads, 2 shared stores, 2 barriers, T FMAs."""
    return T + 6


def warps_needed(latency: float, T: int, issue_rate: float = 1.0) -> int:
    """The rule of thumb: warps one scheduler needs to stay busy through a load of ``latency``
    cycles, each warp giving ``per_phase(T)`` instructions per wait: ``ceil(L × rate / n)``."""
    return math.ceil(latency * issue_rate / per_phase(T))


def latency_choice(kind: str = "global_dram") -> dict:
    """``{"cycles", "label", "measured", "device", "date", "source"}``: the newest recorded
    latency measurement (:func:`explainer.model.corrections.latency_records`) of ``kind``, rounded
    to whole cycles, else :data:`ASSUMED_LATENCY`, labelled as assumed."""
    from .corrections import latency_records

    if kind not in LATENCY_KINDS:
        raise SchedulerError(_("latency kind must be one of {kinds}, got {kind}", kinds=", ".join(LATENCY_KINDS),
                               kind=repr(kind)))
    what = _(LATENCY_KINDS[kind])
    for r in latency_records():
        c = r.get("cycles_per_load", {}).get(kind)
        if c:
            return {"cycles": int(round(c)), "measured": True, "kind": kind, "device": r["device"]["name"],
                    "date": r["date"], "source": r["source"],
                    "short": _("{what}, measured on the {device} ({date})", what=what, device=r["device"]["name"],
                               date=r["date"][:10]),
                    "label": _("L = {cycles} cycles: {what}, measured by pointer chasing on the {device} ({date}, "
                               "{source})", cycles=round(c), what=what, device=r["device"]["name"], date=r["date"],
                               source=r["source"])}
    return {"cycles": ASSUMED_LATENCY, "measured": False, "kind": kind, "device": None, "date": None, "source": None,
            "short": _("{what}, assumed: no measurement is recorded", what=what),
            "label": _("L = {cycles} cycles, assumed: no latency measurement is recorded "
                       "({command} measures it on a GPU)", cycles=ASSUMED_LATENCY,
                       command="benchmarks/bench_latency.py")}


@dataclass(frozen=True)
class Run:
    """One simulated SM. Arrays: ``state[w, c]`` (:data:`STATES`), ``instr[w, c]`` (the kind
    issued, -1 where none), ``pc_of[w, c]`` (the index in :func:`program` of the warp's next
    instruction at the start of cycle c), ``issued[s, c]`` (the warp scheduler ``s`` issued in
    cycle c, -1 when idle), ``slots[c]`` (issue slots used in cycle c, 0..S)."""

    arch: str
    T: int
    blocks: int
    warps_per_block: int
    schedulers: int
    latency: int
    policy: str
    phases: int
    state: np.ndarray
    instr: np.ndarray
    pc_of: np.ndarray
    issued: np.ndarray
    slots: np.ndarray
    program: list = field(repr=False)

    @property
    def warps(self) -> int:
        return self.blocks * self.warps_per_block

    @property
    def cycles(self) -> int:
        return self.state.shape[1]

    def scheduler_of(self, w: int) -> int:
        return w % self.schedulers

    def block_of(self, w: int) -> int:
        return w // self.warps_per_block

    def warps_of(self, s: int) -> list[int]:
        """The warps scheduler ``s`` issues from, in order."""
        return list(range(s, self.warps, self.schedulers))

    def busy(self) -> np.ndarray:
        """``busy[s, c]``: scheduler s issued in cycle c."""
        return self.issued >= 0

    def utilisation(self, s: int | None = None, start: int = 0, stop: int | None = None) -> float:
        """Fraction of cycles ``start..stop-1`` in which scheduler ``s`` (all of them: None) issued."""
        b = self.busy()[:, start:stop] if s is None else self.busy()[s, start:stop]
        return float(b.mean()) if b.size else 0.0

    def idle_cycles(self, s: int = 0, start: int = 0, stop: int | None = None) -> int:
        return int((~self.busy()[s, start:stop]).sum())

    def first_done(self) -> int:
        """The first cycle at which some warp has finished (every warp has work before it)."""
        done = (self.state == DONE).any(axis=0)
        return int(np.argmax(done)) if done.any() else self.cycles

    def steady(self, s: int | None = None) -> float:
        """Utilisation from cycle ``latency`` (no load can have returned before: those cycles are
        idle whatever the warps) to :meth:`first_done`: the stretch where every warp has work."""
        stop = self.first_done()
        return self.utilisation(s, self.latency, stop) if stop > self.latency else 0.0

    def running(self, s: int | None = None) -> np.ndarray:
        """``running[c]``: utilisation over cycles 0..c (scheduler ``s``, or all)."""
        b = self.busy() if s is None else self.busy()[s:s + 1]
        per = b.sum(axis=0).astype(np.float64)
        return np.cumsum(per) / (np.arange(1, self.cycles + 1) * b.shape[0])


def simulate(T: int, blocks: int, warps_per_block: int, schedulers: int, latency: int, phases: int = 4,
             policy: str = "oldest", arch: str = "") -> Run:
    """Run every warp's :func:`program` until all are done (see the module doc)."""
    for name, v, lo in (("T", T, 1), (N_("blocks"), blocks, 1), (N_("warps per block"), warps_per_block, 1),
                        (N_("schedulers"), schedulers, 1), (N_("latency"), latency, 1), (N_("phases"), phases, 1)):
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v < lo:
            raise SchedulerError(_("{name} must be a whole number >= {lo}, got {value}", name=_(name), lo=lo,
                                   value=repr(v)))
    if T > MAX_TILE:
        raise SchedulerError(_("T must be at most {most}, got {T}", most=MAX_TILE, T=T))
    if policy not in POLICIES:
        raise SchedulerError(_("policy must be one of {policies}, got {policy}", policies=", ".join(POLICIES),
                               policy=repr(policy)))
    prog = program(T, phases)
    n_prog = len(prog)
    kind = np.array([p[0] for p in prog], np.int8)
    W, S = blocks * warps_per_block, schedulers
    pc = np.zeros(W, np.int64)
    ready_a = np.zeros(W, np.int64)  # cycle from which the loaded A value may be used
    ready_b = np.zeros(W, np.int64)
    waiting = np.zeros(W, bool)  # issued a barrier its block has not completed
    arrived = np.zeros(blocks, np.int64)
    block = np.arange(W) // warps_per_block
    sched = np.arange(W) % S
    members = [np.flatnonzero(sched == s) for s in range(S)]
    last = [-1] * S  # position in members[s] of the warp issued last (round-robin)
    states, instrs, pcs, issued = [], [], [], []
    c = 0
    while (pc < n_prog).any():
        if c >= MAX_CYCLES:
            raise SchedulerError(_("no end after {cycles} cycles", cycles=MAX_CYCLES))
        done = pc >= n_prog
        k = np.where(done, -1, kind[np.minimum(pc, n_prog - 1)])
        blocked = ((k == STS_A) & (ready_a > c)) | ((k == STS_B) & (ready_b > c))
        eligible = ~done & ~waiting & ~blocked
        st = np.full(W, READY, np.uint8)
        st[blocked] = STALLED
        st[waiting] = BARRIER
        st[done] = DONE
        ins = np.full(W, -1, np.int8)
        row = np.full(S, -1, np.int64)
        for s in range(S):
            m = members[s]
            ok = eligible[m]
            if not ok.any():
                continue
            if policy == "oldest":
                j = int(np.argmax(ok))
            else:
                order = (np.arange(len(m)) + last[s] + 1) % len(m)
                j = int(order[np.argmax(ok[order])])
                last[s] = j
            w = int(m[j])
            row[s] = w
            st[w] = ISSUING
            ins[w] = k[w]
        pcs.append(pc.copy())
        for w in row[row >= 0]:
            kw = kind[pc[w]]
            if kw == LDG_A:
                ready_a[w] = c + latency
            elif kw == LDG_B:
                ready_b[w] = c + latency
            elif kw == BAR:
                waiting[w] = True
                arrived[block[w]] += 1
            pc[w] += 1
        for b in np.flatnonzero(arrived == warps_per_block):  # all arrived: released for the next cycle
            waiting[block == b] = False
            arrived[b] = 0
        states.append(st)
        instrs.append(ins)
        issued.append(row)
        c += 1
    state = np.array(states, np.uint8).T
    issued_a = np.array(issued, np.int64).T
    return Run(arch, T, blocks, warps_per_block, S, int(latency), policy, phases, state,
               np.array(instrs, np.int8).T, np.array(pcs, np.int64).T, issued_a,
               (issued_a >= 0).sum(axis=0).astype(np.int64), prog)


def tile_run(arch: str, T: int, regs: int | None = None, latency: int | None = None, phases: int = 4,
             policy: str = "oldest", latency_kind: str = "global_dram") -> tuple[Run, hardware.Occupancy, dict]:
    """The tiled kernel with a T×T block on ``arch``: the resident blocks and warps from page 06's
    occupancy model (:func:`hardware.tile_occupancy`, ``regs`` registers per thread or none),
    the schedulers from the preset, the latency from :func:`latency_choice` unless given.
    Returns ``(run, occupancy, latency)``."""
    try:
        o = hardware.tile_occupancy(arch, T, regs)
    except hardware.OccupancyError as e:
        raise SchedulerError(str(e)) from None
    if o.blocks_per_sm < 1:
        raise SchedulerError(_("a {T}×{T} block with {regs} registers per thread does not fit on one {arch} SM",
                               T=T, regs=regs, arch=arch))
    lat = latency_choice(latency_kind) if latency is None else {
        "cycles": int(latency), "measured": False, "kind": "given", "device": None, "date": None, "source": None,
        "short": _("given"),
        "label": _("L = {cycles} cycles (given)", cycles=int(latency))}
    a = hardware.arch(arch)
    run = simulate(T, o.blocks_per_sm, o.warps_per_block, a["schedulers_per_sm"], lat["cycles"], phases, policy, arch)
    return run, o, lat


def summary(run: Run) -> dict:
    """The figures a page states about a run."""
    n = per_phase(run.T)
    need = warps_needed(run.latency, run.T)
    per_sched = run.warps // run.schedulers + (1 if run.warps % run.schedulers else 0)
    return {
        "warps": run.warps, "blocks": run.blocks, "warps_per_block": run.warps_per_block,
        "schedulers": run.schedulers, "warps_per_scheduler": len(run.warps_of(0)), "most_per_scheduler": per_sched,
        "latency": run.latency, "per_phase": n, "warps_needed": need, "warps_needed_sm": need * run.schedulers,
        "cycles": run.cycles, "utilisation": run.utilisation(), "utilisation_0": run.utilisation(0),
        "steady": run.steady(), "steady_0": run.steady(0), "first_done": run.first_done(),
        "idle_0": run.idle_cycles(0), "issued_0": int(run.busy()[0].sum()),
    }
