"""Your turn, the whole kernel: write or repair a kernel of the ladder's first rungs and check it
with the simulator (:mod:`explainer.sim`), no GPU needed.

Each exercise starts from a skeleton (the kernel's lines with the parts to write marked ``TODO``)
or from a broken kernel of ``kernels/`` (pages 03-04), is checked on several launches (odd
shapes, one-block and one-thread edge cases: :func:`explainer.sim.default_launches`) and answers
with the simulator's problems, one line each (kind, source line, threads, phase). Hints open one
at a time. On a machine with a CUDA GPU a kernel that passed the simulator (and only then: an
endless loop never reaches a shared GPU) also runs on the GPU, checked against numpy and timed.

The simulator is Python: the exercise works in the live app, JupyterLab and the class hub; an
exported static page shows it disabled with the one line that says so.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

import ipywidgets as W

from .. import resources
from ..i18n import _


@dataclass(frozen=True)
class Exercise:
    key: str
    title: str
    task: str
    starter: str  # the source the editor opens with
    hints: tuple[str, ...]
    tile: int = 16


def _kernel_body(name: str) -> str:
    """A kernel of ``kernels/`` as a student starts from it: without its header comment (the
    manual would give the answer away), the explainer's trace-recording lines and step marks, and
    the explicit instantiations (the exercise instantiates its own tile)."""
    text = (resources.kernels_dir() / name).read_text(encoding="utf-8")
    lines = text.splitlines()
    i = 0
    while i < len(lines) and (lines[i].startswith("//") or not lines[i].strip()):
        i += 1
    out = []
    for line in lines[i:]:
        if "TRACE_" in line:
            continue
        if line.startswith("template __global__") or line.startswith("// The tile widths") or \
                line.startswith("// name_expressions"):
            continue
        out.append(re.sub(r"\s*// @step:\w+", "", line).rstrip())
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).rstrip() + "\n"


def _skeleton(name: str, todo: dict[str, str]) -> str:
    """``name``'s body with each line matching a ``todo`` pattern replaced by a marked blank."""
    out = []
    for line in _kernel_body(name).splitlines():
        for pattern, blank in todo.items():
            if re.search(pattern, line):
                indent = line[: len(line) - len(line.lstrip())]
                line = f"{indent}{blank}  // TODO" if blank else f"{indent}// TODO"
                break
        out.append(line)
    return "\n".join(out) + "\n"


def exercises() -> dict[str, Exercise]:
    """Every exercise, by key (the pages pick theirs)."""
    naive = _skeleton("01_naive.cu", {
        r"const int row =": "const int row = 0;",
        r"const int col =": "const int col = 0;",
        r"sum \+= A\[": "sum += 0.0f;",
    })
    tiled = _skeleton("03_tiled.cu", {
        r"const int row =": "const int row = 0;",
        r"const int col =": "const int col = 0;",
        r"const int a_col =": "const int a_col = 0;",
        r"const int b_row =": "const int b_row = 0;",
        r"^\s*__syncthreads\(\);": "",
        r"sum \+= As\[": "sum += 0.0f;",
    })
    return {e.key: e for e in (
        Exercise("naive", _("Write the naive kernel"),
                 _("Give each thread its row and column of C and the multiply-add of its loop."), naive,
                 (_("x is the column direction: col comes from blockIdx.x, blockDim.x and threadIdx.x."),
                  "row = blockIdx.y * blockDim.y + threadIdx.y.",
                  _("A is M x K and B is K x N, row-major: element (r, c) of A is A[r * K + c]."))),
        Exercise("tiled", _("Write the tiled kernel"),
                 _("Fill in the indices of the copies into As and Bs and of the compute loop, and put the "
                 "two barriers back."), tiled,
                 (_("row and col are as in the naive kernel, with TILE for blockDim."),
                  _("In phase t a thread copies A[row][t * TILE + tx] and B[t * TILE + ty][col]."),
                  _("The compute loop reads As[ty][k] and Bs[k][tx]."),
                  _("One __syncthreads() after the copies (nobody reads a tile before it is whole), one after "
                  "the loop (nobody overwrites it while others still read it)."))),
        Exercise("any_size", _("Make the tiled kernel work for any M, N, K"),
                 _("PMPP fig. 5.9 as printed: correct only when TILE divides M, N and K. Add the checks."),
                 _kernel_body("06_tiled_unguarded.cu"),
                 (_("Run it as it is first: the simulator names the out-of-bounds accesses and their lines."),
                  _("A load past A's or B's edge must store a zero instead (it adds nothing to the sum)."),
                  _("The number of phases is CEIL_DIV(K, TILE), not K / TILE."),
                  _("Only threads inside C may store: if (row < M && col < N)."))),
        Exercise("no_barriers", _("Repair the kernel without barriers"),
                 _("Both __syncthreads() are gone: the simulator finds the races. Put back what is needed."),
                 _kernel_body("09_tiled_no_barriers.cu"),
                 (_("Which thread writes a cell of As that another thread reads, with no barrier between?"),
                  _("Barrier 1: after the copies, before the compute loop."),
                  _("Barrier 2: after the compute loop, before the next phase's copies."))),
        Exercise("no_barrier1", _("Repair the kernel without barrier 1"),
                 _("One barrier is missing: threads read the tile before every thread has written it."),
                 _kernel_body("07_tiled_no_barrier1.cu"),
                 (_("The simulator reports reads of cells not yet written in this phase."),
                  _("Put __syncthreads() between the copies and the compute loop."))),
        Exercise("no_barrier2", _("Repair the kernel without barrier 2"),
                 _("One barrier is missing: a fast thread overwrites the tile while a slow one still reads it."),
                 _kernel_body("08_tiled_no_barrier2.cu"),
                 (_("The race is between the compute loop of phase t and the copies of phase t + 1."),
                  _("Put __syncthreads() after the compute loop."))),
    )}


#: The launch a student's tiled kernel is stepped at after a check (small: every cell readable;
#: odd: edge blocks and padding zeros): M, N, K, T, the block and thread shown first.
STEPPED = (10, 10, 10, 4, (1, 1), (1, 2))

#: The shape a kernel the simulator passed runs at on a GPU (odd, not a multiple of any tile).
GPU_SHAPE = (1000, 600, 777)

#: The one line a static page shows in the exercise's place.
STATIC_NOTE = ("This exercise runs the simulator, which is Python: open this page in the live app "
               "(tiled-explainer serve), in JupyterLab or on the class hub to write and check your kernel.")

#: The exercises each page offers.
PAGE_EXERCISES = {"01_naive": ("naive",), "02_tiled": ("tiled",), "03_boundaries": ("any_size",),
                  "04_barriers": ("no_barriers", "no_barrier1", "no_barrier2")}

_MONO = "font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace"


class KernelExercise:
    """The editor, Check, Hint and Start over for the exercises ``keys``; display ``.widget``."""

    def __init__(self, keys=("tiled",), launches=None, stepper: bool = False):
        all_ = exercises()
        self.items = [all_[k] for k in keys]
        self.launches = launches
        # pages 02-04: after a check, the student's kernel stepped (STEPPED's launch) in a stepper
        # of its own, its copies drawn over the kernel's, red where they differ or race
        # (made at the first check that has something to step: a page opens with one stepper)
        self.steps_kernel, self.stepper = stepper, None
        self.stepped = W.HTML()
        self.pick = W.Dropdown(options=[(e.title, e.key) for e in self.items], value=self.items[0].key,
                               description=_("exercise"), style={"description_width": "initial"},
                               layout=W.Layout(width="auto"))
        self.task = W.HTML()
        self.editor = W.Textarea(layout=W.Layout(width="100%", height="420px"))
        self.editor.add_class("explainer-kernel-editor")
        self.check_button = W.Button(description=_("Check with the simulator"), button_style="primary",
                                     layout=W.Layout(width="auto"))
        self.hint_button = W.Button(description=_("Hint"), layout=W.Layout(width="auto"))
        self.reset_button = W.Button(description=_("Start over"), layout=W.Layout(width="auto"))
        self.result = W.HTML()
        self.hints = W.HTML()
        self.shown = 0
        self.pick.observe(lambda ch: self.start(ch["new"]), names="value")
        self.check_button.on_click(lambda _: self.check())
        self.hint_button.on_click(lambda _: self.hint())
        self.reset_button.on_click(lambda _: self.start(self.pick.value))
        style = W.HTML(f"<style>.explainer-kernel-editor textarea {{{_MONO};font-size:13px;line-height:1.4}}</style>")
        self.stepper_box = W.VBox([self.stepped])
        self.stepper_box.layout.display = "none"
        self.widget = W.VBox([style, self.pick, self.task, self.editor,
                              W.HBox([self.check_button, self.hint_button, self.reset_button]),
                              self.result, self.hints, self.stepper_box])
        self.start(self.items[0].key)

    def static_view(self) -> W.HTML:
        """What an exported static page shows: the tasks and their starting code, and the one line
        that says where the simulator runs."""
        parts = "".join(
            f'<details style="margin:4px 0"><summary style="cursor:pointer"><b>{html.escape(e.title)}</b>: '
            f'{html.escape(e.task)}</summary><pre style="{_MONO};font-size:12px;background:#f9fafb;'
            f'padding:6px;overflow-x:auto">{html.escape(e.starter)}</pre></details>' for e in self.items)
        return W.HTML(f'<div class="explainer-kernel-exercise-static">{parts}<div class="ex-note">{_(STATIC_NOTE)}</div></div>')

    @property
    def exercise(self) -> Exercise:
        return next(e for e in self.items if e.key == self.pick.value)

    def start(self, key: str) -> None:
        e = next(x for x in self.items if x.key == key)
        self.editor.value = e.starter
        self.task.value = f'<div style="font-size:14px">{html.escape(e.task)}</div>'
        self.result.value = ""
        self.shown = 0
        self._hints()

    def hint(self) -> None:
        self.shown = min(self.shown + 1, len(self.exercise.hints))
        self._hints()

    def _hints(self) -> None:
        e = self.exercise
        items = "".join(f"<li>{html.escape(h)}</li>" for h in e.hints[: self.shown])
        self.hints.value = f'<ol style="font-size:13px">{items}</ol>' if items else ""
        left = len(e.hints) - self.shown
        self.hint_button.description = _("Hint ({n} left)", n=left) if left else _("No more hints")
        self.hint_button.disabled = not left

    def check(self) -> dict:
        """Run the simulator on the editor's source; show and return its report (``to_dict``),
        or ``{"error": line}`` for a kernel it cannot read."""
        from ..sim import SimError, check_kernel

        from ..sim import default_launches, kernel_tile, parse_source

        self.result.value = f'<div class="ex-note">{_("running the simulator…")}</div>'
        try:
            launches, parsed = self.launches, None
            if launches is None and self.steps_kernel:
                parsed = parse_source(self.editor.value)  # (once: check_kernel takes it)
                launches = default_launches(self.exercise.tile)
                if parsed.kernel.template is not None:  # and the stepper's launch, at its own tile
                    launches = launches + [STEPPED[:4]]
                else:
                    launches = default_launches(kernel_tile(parsed))
            report = check_kernel(self.editor.value, launches, tile=self.exercise.tile, parsed=parsed,
                                  reads_for=STEPPED[:4] if self.steps_kernel else None)
        except SimError as err:
            self.result.value = f'<div style="color:#b91c1c">⚠ {html.escape(str(err))}</div>'
            self._step(None)
            return {"error": str(err)}
        d = report.to_dict()
        launches = ", ".join(html.escape(r.launch.label) for r in report.launches)
        if report.passed:
            body = ('<div style="color:#15803d;font-weight:600">✓ '
                    + _("Right on every launch: {launches}, with no race, out-of-bounds access, divergent barrier or "
                        "uninitialised read.", launches=launches) + "</div>")
            body += self._on_gpu()
        else:
            rows = "".join(f'<li style="{_MONO};font-size:12px">{html.escape(line)}</li>' for line in report.lines())
            n = len(report.problems)
            body = ('<div style="color:#b91c1c;font-weight:600">✗ '
                    + (_("{n} problem (launches run: {launches})", n=n, launches=launches) if n == 1 else
                       _("{n} problems (launches run: {launches})", n=n, launches=launches))
                    + f"</div><ul>{rows}</ul>")
        self.result.value = body
        self._step(report)
        return d

    def _step(self, report) -> None:
        """Show the student's kernel in the stepper: the run of the stepper's own launch."""
        if not self.steps_kernel:
            return
        run = next((r for r in (report.launches if report else [])
                    if (r.launch.M, r.launch.N, r.launch.K, r.launch.tile) == STEPPED[:4]), None)
        if run is None:
            self.stepper_box.layout.display = "none"
            if self.stepper is not None:
                self.stepper.show_student(None)
            return
        M, N, K, T, block, thread = STEPPED
        if self.stepper is None:
            from .stepper import TiledStepper

            self.stepper = TiledStepper(M, N, K, T, block=block, thread=thread)
            self.stepper_box.children = (self.stepped, self.stepper.widget)
        self.stepped.value = (
            '<div style="font-size:14px;margin-top:8px">'
            + _("<b>Your kernel, stepped</b> ({M}×{N}×{K}, T = {T}, as the simulator ran it): As and Bs hold the "
                "elements <i>your</i> kernel copied, red where they are not the tiled kernel's or where two threads "
                "raced on the cell; in the compute loop, the cells the pinned thread reads (red where they are not "
                "As[ty][k] and Bs[k][tx]: the one read and the one meant); at the store, the C elements stored in the "
                "wrong place. Pick another block or thread to see theirs.", M=M, N=N, K=K, T=T) + "</div>")
        self.stepper.show_student(run)
        self.stepper_box.layout.display = ""

    def _on_gpu(self) -> str:
        """After the simulator passed it: compile the same source with CuPy and check it against
        numpy on the GPU, where there is one (:func:`explainer.gpu.student.run_student_kernel`
        simulates first again, so nothing the simulator refuses reaches a GPU)."""
        from .. import gpu

        st = gpu.status()
        if not st.available:
            return ('<div class="ex-note">' + _("On a CUDA GPU it would also run on the device here ({why}).",
                                                   why=html.escape(st.why)) + "</div>")
        from ..gpu.student import StudentRun, run_student_kernel

        M, N, K = GPU_SHAPE
        try:
            got = run_student_kernel(self.editor.value, M, N, K, self.exercise.tile, time_it=True)
        except Exception as err:  # a refusal or a compiler error says so in one line
            return ('<div style="color:#b91c1c">⚠ ' + _("on the GPU: {error}", error=html.escape(str(err).splitlines()[0]))
                    + "</div>")
        if not isinstance(got, StudentRun):
            return ('<div style="color:#b91c1c">⚠ ' + _("on the GPU: {error}", error=html.escape(getattr(got, "why", str(got))))
                    + "</div>")
        verdict = _("C matches numpy") if got.passed else _("C does NOT match numpy")
        colour = "#15803d" if got.passed else "#b91c1c"
        unwritten = "" if got.all_written else _("; {n} elements never written", n=f"{got.unwritten:,}")
        line = (f'<div style="color:{colour}">'
                + _("On the GPU ({device}), {M}×{N}×{K}, T={T}: {verdict} (largest relative error {err}, tolerance "
                    "{tol}{unwritten}).", device=html.escape(st.device or "CUDA"), M=M, N=N, K=K, T=got.tile,
                    verdict=verdict, err=f"{got.rel_error:.1e}", tol=f"{got.tol:.1e}", unwritten=unwritten)
                + "</div>")
        if got.ms is not None:
            import datetime as dt

            beside = ""
            if got.rung_ms is not None:
                rung = {"tiled": _("kernel 03 (tiled)"), "naive": _("kernel 01 (naive)")}[got.rung]
                beside = f"{_(', ')}{rung} {got.rung_ms:.3f} ms{_(', ')}cuBLAS {got.cublas_ms:.3f} ms"
            line += ('<div class="ex-note">'
                     + _("Measured, median of CUDA-event timings: yours {ms} ms{beside} ({device}, {date} UTC).",
                         ms=f"{got.ms:.3f}", beside=beside, device=html.escape(got.device or ""),
                         date=f"{dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M}") + "</div>")
        return line
