"""Kernel 17's hand-over of stages through mbarriers (page 09): who arrives, who waits, which stage
is full, step by step, with the kernel's own lines.

:func:`handover_data` takes every step from :func:`explainer.model.hopper.schedule` and the lines
from ``kernels/17_wgmma_tma.cu`` by their ``// @step:`` markers; ``handover.js`` draws them
(stepping is a lookup in the browser, as for page 02's ``__syncthreads()``).
"""

from __future__ import annotations

import re

from .. import resources
from ..i18n import _, N_
from ..model import hopper
from .store import STATIC_BUDGET, BrowserView, keyed_store

K_DEFAULT = 6 * hopper.KERNEL.BK  # 6 phases: the producer waits on empty, the stages wrap
#: Stage colours by state (hopper.STAGE_*): free, copy in flight, full, read by wgmma.
PALETTE = ["#f3f4f6", "#fde68a", "#86efac", "#93c5fd"]
#: The model's stage states and roles (hopper.STAGE_STATES, hopper.ACTORS) marked for the catalogue; shown with _().
STATE_WORDS = (N_("free"), N_("TMA copy in flight"), N_("full"), N_("read by wgmma"))
ACTOR_WORDS = (N_("producer"), N_("TMA"), N_("consumer 1"), N_("consumer 2"))
#: The markers each step kind highlights ("land" is the copy engine's: no line of the kernel).
MARKERS = {"init": ("init",), "wait_empty": ("wait_empty",), "expect_tx": ("expect_tx",),
           "load": ("load_a", "load_b"), "land": (), "wait_full": ("wait_full",), "compute": ("compute",),
           "arrive_empty": ("arrive_empty",), "store": ("store",)}


def kernel_lines(kern: hopper.HopperKernel = hopper.KERNEL) -> list[tuple[str, int, str]]:
    """``(marker, line number, text)`` of every marked line the steps run, in the file's order."""
    wanted = {m for ms in MARKERS.values() for m in ms}
    out = []
    for i, line in enumerate((resources.kernels_dir() / kern.file).read_text().splitlines()):
        m = re.search(r"// @step:(\w+)\s*$", line)
        if m and m.group(1) in wanted:
            out.append((m.group(1), i + 1, re.sub(r"\s*// @step:\w+\s*$", "", line).strip()))
    missing = wanted - {m for m, _, _ in out}
    if missing:
        raise ValueError(f"{kern.file} marks no line with {', '.join(sorted(missing))}")
    return out


def handover_data(K: int = K_DEFAULT, kern: hopper.HopperKernel = hopper.KERNEL) -> dict:
    steps = hopper.schedule(K, kern)
    lines = kernel_lines(kern)
    rows = {kind: [j for j, (m, _, _) in enumerate(lines) if m in ms] for kind, ms in MARKERS.items()}
    return {
        "view": "handover", "kernel": kern.name, "K": K, "stages": kern.stages, "phases": kern.phases(K),
        "palette": PALETTE, "states": [_(s) for s in hopper.STAGE_STATES], "actors": [_(a) for a in hopper.ACTORS],
        "full_arrivals": 1, "empty_arrivals": kern.empty_arrivals, "stage_bytes": kern.stage_bytes,
        "code": [{"line": n, "text": t} for _, n, t in lines],
        "steps": [{"actor": s.actor, "line": s.line, "phase": s.phase, "stage": s.stage, "waits": s.waits,
                   "holds": list(s.holds), "state": list(s.state), "full_done": list(s.full_done),
                   "full_arrived": list(s.full_arrived), "full_bytes": list(s.full_bytes),
                   "empty_done": list(s.empty_done), "empty_arrived": list(s.empty_arrived),
                   "doing": list(s.doing), "waiting": list(s.waiting), "text": s.text, "code": rows[s.line]} for s in steps],
        "caption": _("Kernel 17, one block, K = {K} ({phases} phases of {BK}), {stages} stages: one order the roles "
                     "may take (they run at once; the mbarriers make every order compute the same C). Computed by "
                     "explainer.model.hopper.schedule; the code lines are the kernel's own. A barrier's phase bit is "
                     "the number of phases it has completed, mod 2.",
                     K=K, phases=kern.phases(K), BK=kern.BK, stages=kern.stages),
    }


class HandoverView(BrowserView):
    """Page 09's mbarrier stepper (``common.js`` + ``handover.js``)."""

    NAME = "handover"
    FRONT_END = ("common.js", "handover.js")
    _esm = resources.front_end(*FRONT_END)


class HandoverExplorer:
    """Kernel 17's stages and mbarriers, stepped in the browser; ``.widget`` displays it."""

    def __init__(self, K: int = K_DEFAULT):
        self.view = HandoverView()
        self.view.static_store = self.static_store
        self.K = K
        self.view.show(handover_data(K), b"")

    @property
    def widget(self) -> HandoverView:
        return self.view

    def static_store(self, budget: int = STATIC_BUDGET) -> dict:
        return keyed_store(lambda key: (handover_data(int(key)), b""), [str(self.K)], str(self.K), budget)
