"""The warp scheduler stepper (page 06): one SM sub-partition's warps, cycle by cycle, for the
tiled kernel at a few occupancies.

:func:`scheduler_data` runs :func:`explainer.model.scheduler.tile_run` for one preset (a tile and
registers per thread on an architecture: the resident warps come from page 06's occupancy model)
and one recorded latency, and sends what ``scheduler.js`` draws: scheduler 0's warps as rows and
every cycle as a column (a window of them around the current cycle, and the whole run binned
below), the warp each scheduler issued in each cycle and the instruction, and the running
utilisation. Stepping is a lookup in the browser; Python is asked only for another preset or
latency (``{cmd: "kernel", name: "<preset>|<latency kind>"}``, the keyed store of a static page).

Arrays (``r`` = a row: a warp of scheduler 0, ``c`` = a cycle, ``s`` = a scheduler, ``b`` = a bin):
``state[r, c]`` (:data:`explainer.model.scheduler.STATES`); ``issued_row[c]`` (the row scheduler 0
issued, -1 idle), ``issued_kind`` / ``issued_k`` / ``issued_phase[c]`` (its instruction);
``issued_all[s, c]`` (the warp each scheduler issued, -1 idle); ``slots[c]`` (issue slots used
on the SM); ``running[c]`` / ``running_sm[c]`` (utilisation of scheduler 0 / of all over cycles
0..c, in percent); ``overview[r, b]`` (the state a row spent most of bin b in); ``busy[0, b]``
(scheduler 0's share of issuing cycles in bin b, as a shade 0..4).
"""

from __future__ import annotations

import numpy as np

from .. import resources
from ..i18n import N_, _
from ..model import hardware
from ..model import scheduler as sm
from .payload import narrow, pack, unpack
from .store import STATIC_BUDGET, BrowserView, keyed_store

#: The architecture of the presets: the recorded latency was measured on an sm_90 GPU.
ARCH = "hopper"
#: The presets: key -> (T, registers per thread or None). Registers only limit residency here
#: (the model's program does not use them): they are page 06's lever on the resident warps.
PRESETS = {
    "T16-r255": (16, 255),
    "T16-r128": (16, 128),
    "T16": (16, None),
    "T8": (8, None),
    "T32": (32, None),
}
OPENING = "T16-r255"
LATENCIES = ("global_l2_hit", "global_dram")
#: State colours (:data:`explainer.model.scheduler.STATES`): issuing, ready, stalled, barrier, done.
PALETTE = ["#16a34a", "#fde68a", "#fca5a5", "#c4b5fd", "#e5e7eb"]
#: Shades of scheduler 0's issuing share per bin (0 = idle throughout .. 4 = issued every cycle).
BUSY_PALETTE = ["#ffffff", "#dcfce7", "#86efac", "#22c55e", "#15803d"]
BUSY_TEXT = [N_("idle throughout"), N_("issued in under a third of its cycles"), N_("a third to two thirds"),
             N_("over two thirds"), N_("every cycle")]
#: Letters on the issuing cells (:data:`explainer.model.scheduler.KINDS`).
LETTERS = ["L", "L", "S", "S", "B", "F", "C"]
LETTER_TEXT = "L a global load (ldg), S a store into As / Bs (sts), B __syncthreads(), F an FMA, C the store of C"
WINDOW = 40  # cycles shown around the current one
MAX_BINS = 120
PHASES = 3


def preset_label(key: str, occ: hardware.Occupancy, per_sched: int, schedulers: int) -> str:
    T, regs = PRESETS[key]
    r = _("{regs} registers per thread", regs=regs) if regs else _("registers not limiting")
    return _("{arch}, T={T}, {regs}: {blocks} block(s) of {per_block} warps = {warps} warps ({occupancy}), "
             "{per_scheduler} per scheduler", arch=hardware.arch(ARCH)["label"].split(" (")[0], T=T, regs=r,
             blocks=occ.blocks_per_sm, per_block=occ.warps_per_block, warps=occ.active_warps,
             occupancy=f"{occ.occupancy:.0%}", per_scheduler=per_sched)


def _bins(cycles: int) -> int:
    return max(1, -(-cycles // MAX_BINS))


def scheduler_data(key: str = f"{OPENING}|{LATENCIES[0]}", policy: str = "oldest",
                   phases: int = PHASES) -> tuple[dict, dict[str, np.ndarray]]:
    """``(meta, arrays)`` for ``"<preset>|<latency kind>"`` (see the module doc)."""
    preset, _sep, lat_kind = str(key).partition("|")
    if preset not in PRESETS:
        raise sm.SchedulerError(_("unknown preset {preset}; choose one of {presets}", preset=repr(preset),
                                  presets=", ".join(PRESETS)))
    if lat_kind not in LATENCIES:
        raise sm.SchedulerError(_("latency must be one of {kinds}, got {kind}", kinds=", ".join(LATENCIES),
                                  kind=repr(lat_kind)))
    T, regs = PRESETS[preset]
    run, occ, lat = sm.tile_run(ARCH, T, regs, phases=phases, policy=policy, latency_kind=lat_kind)
    if run.schedulers >= len(BUSY_PALETTE):  # (slots[c] is a colour of BUSY_PALETTE)
        raise sm.SchedulerError(_("{n} schedulers: the view draws at most {most}", n=run.schedulers,
                                  most=len(BUSY_PALETTE) - 1))
    s = sm.summary(run)
    rows = run.warps_of(0)
    C = run.cycles
    state = run.state[rows]
    row_of = {w: i for i, w in enumerate(rows)}
    iss = run.issued[0]
    issued_row = np.array([row_of[int(w)] if w >= 0 else -1 for w in iss], np.int64)
    pc = np.array([run.pc_of[int(w), c] if w >= 0 else 0 for c, w in enumerate(iss)], np.int64)
    prog = run.program
    kind = np.where(iss >= 0, [prog[p][0] for p in pc], -1)
    k = np.where(iss >= 0, [prog[p][2] for p in pc], -1)
    phase = np.where(iss >= 0, [prog[p][1] for p in pc], -1)
    bin_ = _bins(C)
    nb = -(-C // bin_)
    pad = nb * bin_ - C
    padded = np.pad(state, ((0, 0), (0, pad)), constant_values=sm.DONE).reshape(len(rows), nb, bin_)
    counts = np.stack([(padded == v).sum(axis=2) for v in range(len(sm.STATES))], axis=2)
    overview = counts.argmax(axis=2)  # ties: the lower state (issuing before ready before stalled ...)
    busy0 = np.pad(run.busy()[0], (0, pad)).reshape(nb, bin_).mean(axis=1)
    shade = np.select([busy0 == 0, busy0 < 1 / 3, busy0 <= 2 / 3, busy0 < 1], [0, 1, 2, 3], 4)
    arrays = narrow({
        "state": state.astype(np.int8), "issued_row": issued_row, "issued_kind": kind.astype(np.int64),
        "issued_k": k.astype(np.int64), "issued_phase": phase.astype(np.int64),
        "issued_all": run.issued, "slots": run.slots,
        "overview": overview.astype(np.int8), "busy": shade.astype(np.int8)[None, :],
        "bin_start": np.arange(nb) * bin_, "bin_of": np.arange(C) // bin_,
    })
    arrays["running"] = (100 * run.running(0)).astype(np.float32)
    arrays["running_sm"] = (100 * run.running()).astype(np.float32)
    per_sched = len(rows)
    labels = [_("warp {w} (block {b})", w=w, b=run.block_of(w)) for w in rows]
    lat_label = lat["label"]
    meta = {
        "view": "scheduler", "key": f"{preset}|{lat_kind}", "preset": preset, "latency_kind": lat_kind,
        "presets": [[p, preset_label(p, *_occ_of(p))] for p in PRESETS],
        "latencies": [[kk, _(sm.LATENCY_BUTTONS[kk])] for kk in LATENCIES],
        "arch": ARCH, "T": T, "regs": regs, "policy": policy, "policy_text": _(sm.POLICY_TEXT[policy]),
        "phases": phases, "cycles": C, "window": WINDOW, "bin": bin_, "bins": nb,
        "schedulers": run.schedulers, "rows": labels, "row_warps": rows,
        "states": [_(s) for s in sm.STATES], "palette": PALETTE, "busy_palette": BUSY_PALETTE,
        "busy_text": [_(t) for t in BUSY_TEXT],
        "kinds": list(sm.KINDS), "kind_text": [_(sm.KIND_TEXT[i]) for i in range(len(sm.KINDS))], "letters": LETTERS,
        "letter_text": _(LETTER_TEXT),
        "latency": run.latency, "latency_label": lat_label, "measured": lat["measured"],
        "summary": s,
        "occupancy": preset_label(preset, occ, per_sched, run.schedulers),
        "rule": _("Rule of thumb: a warp issues n = T + 6 = {n} instructions per phase (2 loads, 2 shared stores, 2 "
                  "barriers, {T} FMAs), then waits L = {L} cycles for its next loads. One scheduler issuing one "
                  "instruction per cycle needs about L × 1 / n = {L} / {n} → {needed} warps to stay busy; it has {has}.",
                  n=s["per_phase"], T=T, L=run.latency, needed=s["warps_needed"], has=per_sched),
        "result": _("Scheduler 0 issued in {issued} of {cycles} cycles ({share}); idle {idle}. From cycle {L} (no load "
                    "has returned before it) until the first warp finishes (cycle {first_done}) the SM's schedulers "
                    "issued in {steady} of the cycles.", issued=f"{s['issued_0']:,}", cycles=f"{C:,}",
                    share=f"{s['utilisation_0']:.0%}", idle=f"{s['idle_0']:,}", L=run.latency,
                    first_done=f"{s['first_done']:,}", steady=f"{s['steady']:.0%}"),
        "caption": _("{phases} phases of the tiled kernel's loop (K = {phases}×T) on one {arch} SM: {schedulers} "
                     "schedulers, resident warp w on scheduler w mod {schedulers}; rows: scheduler 0's warps. Policy: "
                     "{policy}. {latency}. Computed by explainer.model.scheduler; shared-memory latency, the FMA chain "
                     "through sum and address arithmetic are left out, so the model is kind to few warps.",
                     phases=phases, arch=hardware.arch(ARCH)["label"], schedulers=run.schedulers,
                     policy=_(sm.POLICY_TEXT[policy]), latency=lat_label),
    }
    return meta, arrays


def _occ_of(preset: str) -> tuple[hardware.Occupancy, int, int]:
    T, regs = PRESETS[preset]
    o = hardware.tile_occupancy(ARCH, T, regs)
    S = hardware.arch(ARCH)["schedulers_per_sm"]
    return o, len(range(0, o.active_warps, S)), S


def scheduler_payload(key: str, policy: str = "oldest") -> tuple[dict, bytes]:
    meta, arrays = scheduler_data(key, policy)
    meta["arrays"], buf = pack(arrays)
    return meta, buf


class SchedulerView(BrowserView):
    """The warp scheduler stepper's front end (``common.js`` + ``present.js`` + ``scheduler.js``)."""

    NAME = "scheduler"
    FRONT_END = ("common.js", "present.js", "scheduler.js")
    _esm = resources.front_end(*FRONT_END)


class SchedulerExplorer:
    """Warps of one SM sub-partition, cycle by cycle, for a preset and a latency; ``.widget``."""

    def __init__(self, preset: str = OPENING, latency: str = LATENCIES[0]):
        self.view = SchedulerView()
        self.view.on_msg(self._on_msg)
        self.view.static_store = self.static_store
        self.key = None
        if not self.select(preset, latency):
            raise sm.SchedulerError(self.view.error)

    @property
    def widget(self) -> SchedulerView:
        return self.view

    def data(self):
        """``(meta, arrays)`` the browser was sent last (for tests)."""
        return self.view.meta, unpack(self.view.meta["arrays"], self.view.buf)

    def select(self, preset: str | None = None, latency: str | None = None) -> bool:
        """Show ``preset`` with ``latency`` (unchanged where None); on bad input one line in the
        view, the last good state stays."""
        cur_p, _sep, cur_l = (self.key or f"{OPENING}|{LATENCIES[0]}").partition("|")
        key = f"{cur_p if preset is None else preset}|{cur_l if latency is None else latency}"
        try:
            meta, buf = scheduler_payload(key)
        except sm.SchedulerError as e:
            self.view.fail(e)
            return False
        self.key = key
        self.view.show(meta, buf)
        return True

    def _on_msg(self, widget, content, buffers):
        if isinstance(content, dict) and content.get("cmd") == "kernel":
            preset, _sep, latency = str(content.get("name", "")).partition("|")
            self.select(preset, latency)

    def static_store(self, budget: int = STATIC_BUDGET) -> dict:
        """Every preset at every latency (the page's own first), within ``budget`` bytes."""
        keys = [f"{p}|{lk}" for lk in LATENCIES for p in PRESETS]
        return keyed_store(scheduler_payload, keys, self.key, min(budget, 2 << 20))
