"""The copy pipeline of kernel 16 (page 09): its shared buffers phase by phase, what each
``cp.async.wait_group`` and barrier guarantees, and the kernel line each step runs.

:func:`pipeline_data` takes every step from :func:`explainer.model.mma.pipeline` and the kernel's
own lines from ``kernels/16_mma_tf32_staged.cu``; ``pipeline.js`` draws them (stepping is a
lookup in the browser).
"""

from __future__ import annotations

import re

from .. import resources
from ..i18n import _, N_
from ..model import mma
from .store import STATIC_BUDGET, BrowserView, keyed_store

K_DEFAULT = 2 * mma.STAGED.stages * mma.STAGED.BK  # 6 phases: the buffers wrap twice
#: Buffer colours by state (mma.BUF_*): free, in flight, landed, read by the mma.
PALETTE = ["#f3f4f6", "#fde68a", "#86efac", "#93c5fd"]
#: The model's buffer states (mma.BUF_STATES) marked for the catalogue; shown with _().
STATE_WORDS = (N_("free"), N_("copy in flight"), N_("landed"), N_("read by the mma"))
#: The kernel lines each step runs, found in the .cu file: (step kind, a fragment of the line, which
#: of the matching lines: 0 the first, -1 the last).
CODE = (("prologue", "if (ph < phases) issue(ph, ph, fast);", 0),
        ("prologue", 'asm volatile("cp.async.commit_group;");', 0),
        ("prologue wait", 'asm volatile("cp.async.wait_group %0;"', 0),
        ("prologue barrier", "__syncthreads();", 0),
        ("issue", "if (ph + SG_STAGES - 1 < phases) issue(ph + SG_STAGES - 1, fill, fast);", -1),
        ("issue", 'asm volatile("cp.async.commit_group;");', -1),
        ("wait", 'asm volatile("cp.async.wait_group %0;"', -1),
        ("barrier", "__syncthreads();", -1),
        ("compute", "mma_m16n8k8(acc[mi][ni], a[s % 2][mi], b[s % 2][ni]);", -1),
        ("drain", 'asm volatile("cp.async.wait_group 0;");', -1))


def _kind(step: mma.PipelineStep) -> str:
    """The CODE kind whose lines a step highlights (the prologue has its own issue, wait and barrier)."""
    if step.phase >= 0 or step.line == "drain":
        return step.line
    return "prologue" if step.line == "issue" else f"prologue {step.line}"


def kernel_lines(kern: mma.MmaKernel = mma.STAGED) -> list[tuple[str, int, str]]:
    """``(kind, line number, text)`` of the lines of the kernel file that the steps run."""
    text = (resources.kernels_dir() / kern.file).read_text().splitlines()
    out = []
    for kind, frag, which in CODE:
        hits = [i for i, line in enumerate(text) if frag in line and not line.lstrip().startswith("//")]
        if not hits:
            raise ValueError(f"{kern.file} has no line with {frag!r}")
        i = hits[which]
        out.append((kind, i + 1, text[i].strip()))
    return out


def pipeline_data(K: int = K_DEFAULT, kern: mma.MmaKernel = mma.STAGED) -> dict:
    steps = mma.pipeline(K, kern)
    lines = sorted(kernel_lines(kern), key=lambda x: x[1])  # in the file's order
    first_of = {}
    for j, (kind, _line, _text) in enumerate(lines):
        first_of.setdefault(kind, []).append(j)
    return {
        "view": "pipeline", "kernel": kern.name, "K": K, "stages": kern.stages, "phases": kern.phases(K),
        "palette": PALETTE, "states": [_(s) for s in mma.BUF_STATES],
        "code": [{"line": n, "text": re.sub(r"\s*// @step:\w+\s*$", "", t)} for _, n, t in lines],
        "steps": [{"line": s.line, "phase": s.phase, "holds": list(s.holds), "state": list(s.state),
                   "in_flight": list(s.in_flight), "text": s.text,
                   "ksteps": list(s.ksteps), "code": first_of[_kind(s)]} for s in steps],
        "caption": _("Kernel 16 with K = {K} ({phases} phases of {BK}), {stages} shared buffers, as one thread sees "
                     "it: computed by explainer.model.mma.pipeline; the code lines are the kernel's own.",
                     K=K, phases=kern.phases(K), BK=kern.BK, stages=kern.stages),
    }


class PipelineView(BrowserView):
    """Page 09's pipeline stepper (``common.js`` + ``pipeline.js``)."""

    NAME = "pipeline"
    FRONT_END = ("common.js", "pipeline.js")
    _esm = resources.front_end(*FRONT_END)


class PipelineExplorer:
    """Kernel 16's copy pipeline, stepped in the browser; ``.widget`` displays it."""

    def __init__(self, K: int = K_DEFAULT):
        self.view = PipelineView()
        self.view.static_store = self.static_store
        self.K = K
        self.view.show(pipeline_data(K), b"")

    @property
    def widget(self) -> PipelineView:
        return self.view

    def static_store(self, budget: int = STATIC_BUDGET) -> dict:
        return keyed_store(lambda key: (pipeline_data(int(key)), b""), [str(self.K)], str(self.K), budget)
