"""The tiled-kernel stepper (:class:`TiledStepper`: pages 02-04) and the plotly helpers the other
views still share (:func:`abc_figure`, :func:`guard`, ...).

The stepper steps in the browser: :mod:`explainer.views.tiled` computes, from
:mod:`explainer.model`, arrays for every step of the chosen block, and ``views/tiled.js`` draws
them. This module answers what needs Python (a new launch, preset, block or chunk of phases);
bad input shows one line and the view keeps its last good state.
"""

from __future__ import annotations

import html

import ipywidgets as W
import numpy as np
import plotly.graph_objects as go

from ..i18n import N_, _
from ..model import Launch, LaunchError, Step, steps
from .plotly_widget import Figure


from .common import (  # noqa: F401  (re-exported: pages and tests import them from here)
    ACTIVE, COLORSCALE, HAZARD, IDLE, LEGEND, PADDING, PALETTE, PANEL, PINNED, SANS, STALE, STEP_WORDS, STORED,
    TEXT_MAX, TILE, ZRANGE, DemoMatrix, demo_matrices, source_lines, whole, window,
)


def sync_figure(*figs: go.FigureWidget) -> None:
    """Push a FigureWidget's current data and layout into its synced state.

    Since plotly 6 a FigureWidget copies its figure into the synced traits only when it is
    displayed itself (plotly.py issue #4998); one placed inside a VBox would render empty.
    Call this after the initial draw of every figure that lives in a container.
    """
    for f in figs:
        f._repr_mimebundle_()


def abc_domains(mw: int, nw: int, kw: int) -> dict:
    """Axis domains for the textbook layout: A left of C, B above C, widths in proportion."""
    left = kw / (kw + nw) * 0.92
    top = kw / (kw + mw) * 0.92
    return dict(x_a=[0.0, left], x_c=[left + 0.08, 1.0], y_c=[0.0, 1.0 - top - 0.08], y_b=[1.0 - top, 1.0])


def abc_figure(height=560, width=760) -> Figure:
    """One FigureWidget with three grids: A (x, y), B (x2, y2) and C (x3, y3)."""
    g = Figure()
    g.add_trace(_grid_heatmap("A", xaxis="x", yaxis="y"))
    g.add_trace(_grid_heatmap("B", xaxis="x2", yaxis="y2"))
    g.add_trace(_grid_heatmap("C", xaxis="x3", yaxis="y3"))
    g.update_layout(
        height=height,
        width=width,
        margin=dict(l=50, r=10, t=30, b=40),
        plot_bgcolor="white",
        font=dict(family=SANS),
        xaxis=_axis(_("A: column (k)"), anchor="y"),
        yaxis=_axis(_("A: row"), anchor="x", autorange="reversed"),
        xaxis2=_axis("", anchor="y2", side="top"),
        yaxis2=_axis(_("B: row (k)"), anchor="x2", autorange="reversed"),
        xaxis3=_axis(_("C: column (= B column)"), anchor="y3"),
        yaxis3=_axis("", anchor="x3", autorange="reversed"),
    )
    return g


def draw_abc_window(g: Figure, L: Launch, win, title: str) -> None:
    """Point an :func:`abc_figure` at a window ``((m0, m1), (n0, n1), (k0, k1))`` of ``L``:
    cell coordinates, panel sizes, axis titles that say what is cut off. Call it inside
    ``g.batch_update()``; the caller sets the cells' colours and labels."""
    (m0, m1), (n0, n1), (k0, k1) = win
    d = abc_domains(m1 - m0, n1 - n0, k1 - k0)
    ta, tb, tc = g.data
    ta.x, ta.y = np.arange(k0, k1), np.arange(m0, m1)
    tb.x, tb.y = np.arange(n0, n1), np.arange(k0, k1)
    tc.x, tc.y = np.arange(n0, n1), np.arange(m0, m1)
    ta.hovertemplate = "A[%{y}][%{x}]<extra></extra>"
    tb.hovertemplate = "B[%{y}][%{x}]<extra></extra>"
    gap = 1 if max(m1 - m0, n1 - n0, k1 - k0) <= 32 else 0  # hairlines would wash out tiny cells
    for tr in (ta, tb, tc):
        tr.xgap = tr.ygap = gap
    g.layout.xaxis.domain, g.layout.yaxis.domain = d["x_a"], d["y_c"]
    g.layout.xaxis2.domain, g.layout.yaxis2.domain = d["x_c"], d["y_b"]
    g.layout.xaxis3.domain, g.layout.yaxis3.domain = d["x_c"], d["y_c"]

    def clip(lo, hi, n):
        return "" if (lo == 0 and hi == n) else _(" (showing {lo}..{last} of {n})", lo=lo, last=hi - 1, n=n)

    g.layout.xaxis.title.text = _("A: column k") + clip(k0, k1, L.K)
    g.layout.yaxis.title.text = _("A / C: row") + clip(m0, m1, L.M)
    g.layout.xaxis3.title.text = _("B / C: column") + clip(n0, n1, L.N)
    g.layout.title = dict(text=title, font=dict(size=13), x=0.01)


def guard(fn, error: W.HTML, restore) -> None:
    """Run a state change; on bad input show one line in ``error`` and call ``restore`` so the
    controls show the last good state again."""
    try:
        fn()
        error.value = ""
    except (LaunchError, ValueError) as e:
        error.value = f'<span style="color:#b91c1c">⚠ {html.escape(str(e))}</span>'
        restore()


def _grid_heatmap(name: str, **kw):
    return go.Heatmap(
        name=name,
        z=[[0]],
        xgap=1,
        ygap=1,
        hoverongaps=False,
        texttemplate="%{text}",
        textfont=dict(size=10),
        **ZRANGE,
        **kw,
    )


def _axis(title: str, **kw):
    return dict(title=dict(text=title, font=dict(size=11)), showgrid=False, zeroline=False, ticks="", **kw)


class TiledStepper:
    """Step through one block of the tiled kernel, phase by phase, barrier by barrier.

    ``TiledStepper(M, N, K, tile, block=(x, y), thread=(x, y))``; display ``.widget``.

    The stepping happens in the browser (``views/tiled.js``) over arrays computed here by
    :func:`explainer.views.tiled.tiled_data`; this object answers only what needs Python: a new
    launch or preset, another block, the next chunk of a very long K loop. Its ``go`` / ``pin``
    move the browser's view too (for notebooks and tests), but the browser never reports its
    steps back: ``index`` is the last step set from Python.
    """

    #: name -> launch; the names are the menu's keys (English), shown in the reader's language
    PRESETS = {
        N_("the gemm_tiled walk-through: 1024³, T=16, block (x=2, y=1), thread (x=4, y=3)"): (1024, 1024, 1024, 16, (2, 1), (4, 3)),
        N_("small: 8×8×8, T=4"): (8, 8, 8, 4, (1, 0), (1, 2)),
        N_("the course notes: Width=3, TILE_WIDTH=2 (padding)"): (3, 3, 3, 2, (1, 0), (1, 0)),
        N_("rectangular: 35×79×19, T=8"): (35, 79, 19, 8, (3, 2), (5, 1)),
        "64³, T=16": (64, 64, 64, 16, (1, 2), (4, 3)),
        N_("the sliding-window write-up: A 4×8, B 8×4, BLOCK_SIZE=2 (4 windows)"): (4, 4, 8, 2, (1, 0), (1, 1)),
    }

    def __init__(self, M=1024, N=1024, K=1024, tile=16, block=(2, 1), thread=(4, 3), window_cells=48, per_k=True,
                 kernel="tiled", mark_ghosts=False, presets=None, variants=(), exercise=False):
        # kernel: "tiled" or a barrier-less variant (explainer.model.TILED_BARRIERS; not the
        # unguarded one, whose reads leave A and B). mark_ghosts / the variant's hazards only
        # add marks (page 03 / 04); presets: extra entries for the Preset menu; variants: the
        # kernels the view's own picker offers (page 04), the browser's {cmd: "kernel"}.
        from .tiled import TiledView

        self.kernel = kernel
        self.mark_ghosts = mark_ghosts
        self.exercise = exercise  # page 02's "Your turn": the student writes the kernel's indices
        if presets:
            self.PRESETS = {**self.PRESETS, **presets}
        self.window_cells = window_cells
        self.per_k = per_k
        # a page that opens on one of the presets says so in the Preset menu
        self.preset = next((name for name, spec in self.PRESETS.items()
                            if spec == (M, N, K, tile, tuple(block), tuple(thread))), None)
        L = Launch(kernel, M, N, K, tile)
        if not L.guarded:
            raise LaunchError(_("the stepper draws guarded kernels; see model.unguarded_report"))
        L.check_block(*block)
        L.check_thread(*thread)
        self.variants = tuple(variants)
        if self.variants and kernel not in self.variants:
            raise LaunchError(_("kernel {name} is not one of the variants {variants}", name=repr(kernel),
                                variants=", ".join(self.variants)))
        self.view = TiledView(presets=list(self.PRESETS), kernels=list(self.variants))
        # the preset menu shows each name in the reader's language (tiled.js: tr(name)); the names stay the keys
        named = {n: _(n) for n in self.PRESETS if _(n) != n}
        if named:
            self.view.i18n = {**self.view.i18n, "strings": {**self.view.i18n.get("strings", {}), **named}}
        self.view.on_msg(self._on_msg)
        self.view.static_store = self.static_store
        self._set(L, tuple(block), tuple(thread), 0)

    # ---- state ------------------------------------------------------------------------
    @property
    def mode(self) -> str:
        return "k" if self.per_k else "loop"

    @property
    def steps(self) -> list[Step]:
        return steps(self.L, per_k=self.per_k)

    @property
    def step(self) -> Step:
        from ..model import steps_of_phases, phase_of_step

        t = phase_of_step(self.L, self.index, self.per_k)
        s0, chunk = steps_of_phases(self.L, t, t + 1, self.per_k)
        return chunk[self.index - s0]

    def label(self) -> str:
        from .tiled import step_label

        return step_label(self.L, self.block, self.step)

    @property
    def error(self) -> str:
        return self.view.error

    def data(self):
        """``(meta, arrays)`` the browser was sent last (for tests)."""
        from .payload import unpack

        return self.view.meta, unpack(self.view.meta["arrays"], self.view.buf)

    def _set(self, L: Launch, block, thread, index: int):
        """Compute the arrays for (launch, block) around step ``index`` and send them."""
        from ..model import phase_of_step
        from .tiled import tiled_payload

        index = max(0, int(index))
        meta, buf = tiled_payload(L, block, thread, phase_of_step(L, index, self.per_k),
                                  window_cells=self.window_cells, mark_ghosts=self.mark_ghosts, exercise=self.exercise)
        total = meta["steps"][self.mode]["total"]
        index = max(0, min(index, total - 1))
        self.L, self.block, self.thread, self.index = L, tuple(block), tuple(thread), index
        self.A, self.B = demo_matrices(L.M, L.N, L.K)
        meta["start"] = {"index": index, "mode": self.mode, "thread": int(thread[0] + thread[1] * L.T)}
        meta["preset"] = self.preset
        self.view.show(meta, buf)
        self._send_student()  # a student's kernel drawn over the new block, if one is shown

    def _fail(self, e: Exception):
        self.view.fail(e)

    # ---- what the browser asks for ----------------------------------------------------
    def _on_msg(self, widget, content, buffers):
        if not isinstance(content, dict):
            return
        cmd = content.get("cmd")
        if content.get("mode") in ("k", "loop"):
            self.per_k = content["mode"] == "k"
        try:
            if cmd == "launch":
                M, N, K, T = (whole(n, content.get(n)) for n in ("M", "N", "K", "T"))
                block = content.get("block")
                if block is not None:
                    block = tuple(whole(f"blockIdx.{a}", v) for a, v in zip("xy", block))
                self._apply_size(M, N, K, T, block)
            elif cmd == "preset":
                self.set_preset(content.get("name"))
            elif cmd == "block":
                bx, by = (whole(f"blockIdx.{a}", v) for a, v in zip("xy", content.get("block", ())))
                self.L.check_block(bx, by)
                tx, ty = self._thread_of(int(content.get("thread", 0)))
                self._set(self.L, (bx, by), (tx, ty), int(content.get("step", 0)))
            elif cmd == "kernel":
                name = content.get("name")
                if name not in self.variants:
                    raise LaunchError(_("unknown kernel {name}: this view offers {variants}", name=repr(name),
                                        variants=", ".join(self.variants) or _("no other")))
                self.set_kernel(name, self._thread_of(int(content.get("thread", 0))))
            elif cmd == "chunk":
                tx, ty = self._thread_of(int(content.get("thread", 0)))
                self._set(self.L, self.block, (tx, ty), int(content.get("step", 0)))
        except (LaunchError, ValueError, TypeError) as e:
            self._fail(e)

    def _thread_of(self, p: int) -> tuple[int, int]:
        meta, arrays = self.data()
        tx, ty = arrays["thread_xy"][p]
        return int(tx), int(ty)

    # ---- a student's kernel, as the simulator ran it -------------------------------------
    def show_student(self, run) -> None:
        """Draw a student's kernel over this stepper: ``run``, the simulator's result for one
        launch (:class:`explainer.sim.LaunchResult`, or only its :class:`explainer.sim.Trace`); for
        the block shown, each As / Bs cell in each phase holds the element the student's kernel
        copied there, red where it is not the kernel's or where the simulator saw a race on it
        (``None`` clears it). The stepper moves to the run's launch first, and keeps the overlay
        when the student picks another block."""
        trace = getattr(run, "trace", run)
        self.student, self.student_races = trace, getattr(run, "races", None)
        if trace is not None and (self.L.M, self.L.N, self.L.K, self.L.T) != (trace.M, trace.N, trace.K, trace.tile):
            self.preset = None
            self.set_launch(trace.M, trace.N, trace.K, trace.tile, (0, 0), (0, 0))
        else:
            self._send_student()

    def student_copies(self) -> dict | None:
        """``{"A": [[r, c, bad], ...], "B": [...]}`` for the block shown, one entry per phase the
        payload holds and per cell (``tp * T * T + row * T + col``); ``r = -1``: a padding zero
        (a constant store); ``bad``: not what the kernel stores there (the model's a_src / b_src)."""
        trace = getattr(self, "student", None)
        if trace is None:
            return None
        from .payload import unpack

        meta, arrays = self.view.meta, unpack(self.view.meta["arrays"], self.view.buf)
        T, (bx, by), pbase = meta["T"], meta["block"], meta["pbase"]
        nph = arrays["a_src"].shape[0]
        # the student's arrays by the matrix their stores come from (1: A, 2: B); names are theirs
        which, named = {}, {}
        for name in trace.arrays:
            src = trace.shared_sources(name)
            m = src["matrix"][by, bx]
            kinds = set(np.unique(m[m > 0]).tolist())
            if len(kinds) == 1:
                key = {1: "A", 2: "B"}.get(kinds.pop(), "?")
                which[key], named[name] = src, key
        out = {}
        for key, model_src, cols in (("A", arrays["a_src"], trace.K), ("B", arrays["b_src"], trace.N)):
            src = which.get(key)
            entries = []
            for tp in range(nph):
                t = pbase + tp
                for cell in range(T * T):
                    r, c = (int(v) for v in model_src[tp, cell])
                    if src is None or t >= src["matrix"].shape[2]:
                        entries.append(None)
                        continue
                    mat = int(src["matrix"][by, bx, t].reshape(-1)[cell]) if src["matrix"][by, bx, t].size == T * T else None
                    idx = int(src["index"][by, bx, t].reshape(-1)[cell]) if mat is not None else -1
                    if mat is None:
                        entries.append(None)
                    elif mat in (1, 2):
                        sr, sc = divmod(idx, cols)
                        entries.append([sr, sc, int((sr, sc) != (r, c))])
                    else:  # a constant (the padding zero) or never stored
                        entries.append([-1, -1, int(r >= 0)])
            out[key] = entries
        # each thread's store into C ([row, col, bad]; row -1: none), against the model's c_rc / writes
        targets = trace.c_targets()[by, bx].reshape(-1)  # [ty, tx] -> thread p = tx + ty*T
        c_out = []
        for p in range(T * T):
            want = (int(arrays["c_rc"][p, 0]), int(arrays["c_rc"][p, 1])) if arrays["writes"][p] else None
            idx = int(targets[p])
            got = divmod(idx, trace.N) if idx >= 0 else None
            c_out.append([got[0] if got else -1, got[1] if got else -1, int(got != want)])
        out["C"] = c_out
        # what each thread read in the compute loop: the n-th read of the array in phase t, against
        # the model's k-th read (As[ty][k], Bs[k][tx]); [position in the T x T grid (-1: outside it), bad]
        reads = {}
        for name, key in named.items():
            cells = trace.read_cells(name, (bx, by))
            if not cells.shape[2]:
                continue
            dims = trace.arrays[name]
            cols = dims[-1] if len(dims) > 1 else T
            model_read = arrays["read_as" if key == "A" else "read_bs"]  # [k, p] -> cell
            entries = []
            for tp in range(nph):
                t = pbase + tp
                for k in range(T):
                    for p in range(T * T):
                        want = int(arrays["cell_rc"][model_read[k, p], 0]) * T + int(arrays["cell_rc"][model_read[k, p], 1])
                        got = int(cells[t, p, k]) if t < cells.shape[0] and k < cells.shape[2] else -2
                        if got < 0:  # fewer reads than the kernel's: wrong, except for a ghost thread
                            # that skips the loop (it stores nothing, so its reads do not matter)
                            entries.append([-1, 1] if arrays["writes"][p] else None)
                            continue
                        r, c = divmod(got, cols)
                        pos = r * T + c if r < T and c < T else -1
                        entries.append([pos, int(pos != want)])
            reads[key] = entries
        out["reads"] = reads
        # races the simulator saw on a cell of this block, in a phase held: marked (2)
        races = getattr(self, "student_races", None)
        if races is not None and len(races.get("block", ())):
            gx = trace.grid[0]
            for b, cell, ph, mem in zip(races["block"], races["cell"], races["phase"], races["memory"]):
                key, tp = named.get(str(mem)), int(ph) - pbase
                if key and int(b) == by * gx + bx and 0 <= tp < nph and 0 <= int(cell) < T * T:
                    e = out[key][tp * T * T + int(cell)]
                    if e is not None:
                        e[2] = 2
        return out

    def _send_student(self) -> None:
        if getattr(self, "student", None) is not None or getattr(self, "_student_shown", False):
            self._student_shown = self.student is not None
            self.view.send({"mine": self.student_copies()})

    # ---- what Python callers (notebooks, tests) do --------------------------------------
    def go(self, index: int):
        """Show step ``index`` (0-based, clamped)."""
        total = self.view.meta["steps"][self.mode]
        index = max(0, min(total["total"] - 1, int(index)))
        if total["s0"] <= index < total["s1"]:
            self.index = index
            self.view.send({"go": index})
        else:
            self._set(self.L, self.block, self.thread, index)

    def set_launch(self, M, N, K, tile, block=None, thread=None):
        L = Launch(self.kernel, M, N, K, tile)
        block = tuple(block) if block is not None else (0, 0)
        thread = tuple(thread) if thread is not None else (0, 0)
        L.check_block(*block)
        L.check_thread(*thread)
        self._set(L, block, thread, 0)

    def _apply_size(self, M, N, K, T, block=None):
        """A typed launch: the typed block if one came with it, else the current block moved
        into the new grid."""
        L = Launch(self.kernel, M, N, K, T)
        gx, gy = L.grid
        if block is not None:
            L.check_block(*block)
        else:
            block = (min(self.block[0], gx - 1), min(self.block[1], gy - 1))
        thread = (min(self.thread[0], L.T - 1), min(self.thread[1], L.T - 1))
        self.preset = None
        self.set_launch(L.M, L.N, L.K, L.T, block, thread)

    def set_preset(self, name: str):
        if name not in self.PRESETS:
            raise LaunchError(_("unknown preset {name}", name=repr(name)))
        M, N, K, T, block, thread = self.PRESETS[name]
        self.preset = name
        self.set_launch(M, N, K, T, block, thread)

    def set_kernel(self, kernel: str, thread=None):
        """Another variant (page 04) on the same launch and block, from step 0; the pinned
        ``thread`` (x, y) stays (default: the last one set from Python)."""
        L = Launch(kernel, self.L.M, self.L.N, self.L.K, self.L.T)
        if not L.guarded:
            raise LaunchError(_("the stepper draws guarded kernels; see model.unguarded_report"))
        self.kernel = kernel
        self._set(L, self.block, tuple(thread) if thread is not None else self.thread, 0)

    def pin(self, block, thread):
        """Pin thread (x, y) of block (x, y), moving the view to that block if needed."""
        self.L.check_block(*block)
        self.L.check_thread(*thread)
        if tuple(block) != self.block:
            self._set(self.L, tuple(block), tuple(thread), self.index)
        else:
            self.thread = tuple(thread)
            self.view.send({"pin": int(thread[0] + thread[1] * self.L.T)})

    def static_store(self, budget: int) -> dict:
        """What an exported page embeds: the current state, each variant and preset, and the
        nearby blocks within ``budget`` bytes (:func:`explainer.views.tiled.static_store`)."""
        from .tiled import static_store

        launches = [(self.preset, self.L, self.block, self.thread)] + [
            (name, Launch(self.kernel, M, N, K, T), block, thread)
            for name, (M, N, K, T, block, thread) in self.PRESETS.items()]
        return static_store(self.variants or (self.kernel,), launches, (self.kernel, self.L, self.block, self.thread),
                            budget, window_cells=self.window_cells, mark_ghosts=self.mark_ghosts, exercise=self.exercise)

    @property
    def widget(self):
        """The whole stepper, ready to display."""
        return self.view


def tiled_stepper(**kw) -> W.Widget:
    """Build the stepper and return its widget (for a notebook's last line)."""
    return TiledStepper(**kw).widget
