"""The tiled-kernel stepper: reusable views, assembled into one widget by :class:`TiledStepper`.

Everything drawn comes from :mod:`explainer.model`. Figures are built once and updated in
place inside ``batch_update`` (STYLE.md 9); Play is jslinked to the step slider so it runs in
the browser; callbacks never raise into the page: bad input shows one line and the widget keeps
its last good state.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from pathlib import Path

import anywidget
import ipywidgets as W
import numpy as np
import plotly.graph_objects as go
import traitlets

from .model import PAD, Launch, LaunchError, Step, steps
from .plotly_widget import Figure, runtime

KERNELS_DIR = Path(__file__).resolve().parent.parent / "kernels"

# ---- colours: one discrete palette shared by every grid --------------------------------
IDLE, PANEL, TILE, ACTIVE, PINNED, PADDING, STORED, STALE, HAZARD = range(9)
PALETTE = [
    "#f3f4f6",  # IDLE      outside the current block's panel
    "#dbeafe",  # PANEL     the block's row panel of A / column panel of B / its C tile
    "#93c5fd",  # TILE      the tile of the current phase
    "#3b82f6",  # ACTIVE    being copied / read in this step
    "#f97316",  # PINNED    the pinned thread's element
    "#d1d5db",  # PADDING   a padding zero in As / Bs
    "#86efac",  # STORED    stored to C
    "#e5e7eb",  # STALE     left over from the previous phase
    "#dc2626",  # HAZARD    a shared cell / thread in a race (page 04, explainer.hazards)
]
LEGEND = [
    (PANEL, "this block's panel"),
    (TILE, "tile of this phase"),
    (ACTIVE, "copied / read now"),
    (PINNED, "pinned thread"),
    (PADDING, "padding zero"),
    (STORED, "stored to C"),
]


def _colorscale():
    n = len(PALETTE)
    scale = []
    for i, c in enumerate(PALETTE):
        scale += [[i / n, c], [(i + 1) / n, c]]
    return scale


COLORSCALE = _colorscale()
ZRANGE = dict(zmin=0, zmax=len(PALETTE), colorscale=COLORSCALE, showscale=False)

STEP_WORDS = {
    "load_a": "loading the A tile into As",
    "load_b": "loading the B tile into Bs",
    "barrier1": "barrier 1: waiting until every thread has stored its elements",
    "compute": "multiply-adds from As and Bs",
    "barrier2": "barrier 2: waiting until every thread has finished reading the tiles",
    "store": "storing C",
}
TEXT_MAX = 24  # draw cell labels only when a view has at most this many cells per axis


def window(total: int, lo: int, T: int, cells: int) -> tuple[int, int]:
    """A [start, stop) range of at most ``cells`` indices of ``0..total`` that contains the
    tile starting at ``lo`` and is aligned to tile boundaries where it can be."""
    if total <= cells:
        return 0, total
    tiles = max(1, cells // T)
    start = max(0, lo - ((tiles - 1) // 2) * T)
    stop = min(total, start + tiles * T)
    start = max(0, stop - tiles * T)
    return start, stop


class DemoMatrix:
    """Small, non-symmetric integers in -4..4, computed from (row, col) on demand, so a
    2^20 x 2^10 launch costs nothing until a window of it is drawn. Indexes like a 2-D
    numpy array (ints, slices, integer arrays); values are exact in any product."""

    def __init__(self, rows: int, cols: int, seed: int):
        self.shape = (rows, cols)
        self.seed = seed

    def _axis(self, k, n):
        if isinstance(k, slice):
            return np.arange(*k.indices(n))
        if isinstance(k, (int, np.integer)):
            if not -n <= k < n:
                raise IndexError(f"index {k} out of range 0..{n - 1}")
            return np.int64(k % n)
        return np.asarray(k)

    def __getitem__(self, key):
        r, c = key if isinstance(key, tuple) else (key, slice(None))
        ri, ci = self._axis(r, self.shape[0]), self._axis(c, self.shape[1])
        if isinstance(r, slice) and isinstance(c, slice):
            ri, ci = np.ix_(ri, ci)
        # A hash of (row, col) kept below 2^63: row, col < 2^31 by the launch limits.
        h = (ri.astype(np.int64) * 2654435761 + ci.astype(np.int64) * 40503 + self.seed * 97) % 4294967291
        h = (h ^ (h >> 15)) * 40503 % 4294967291
        return (h % 9 - 4).astype(np.int8)


def demo_matrices(M: int, N: int, K: int, seed: int = 7):
    """A (M x K) and B (K x N) of readable small integers; B is not A's transpose."""
    return DemoMatrix(M, K, seed), DemoMatrix(K, N, seed + 1)


@dataclass
class StepState:
    """What the views show at one step, computed from the model."""

    step: Step
    index: int
    total: int
    phase: int | None  # phase whose tiles are current (None before the first load)


def source_lines(name: str = "03_tiled.cu"):
    """The kernel function from ``kernels/<name>``: [(line_no, text, step_kind|None)], with
    trace-recording lines (no-ops in timed builds) left out."""
    text = (KERNELS_DIR / name).read_text()
    lines = text.splitlines()
    start = next(i for i, l in enumerate(lines) if "__global__" in l and "(" in l)
    if start > 0 and lines[start - 1].startswith("template"):
        start -= 1
    depth, end = 0, start
    for i in range(start, len(lines)):
        depth += lines[i].count("{") - lines[i].count("}")
        if "{" in "".join(lines[start : i + 1]) and depth == 0:
            end = i
            break
    out = []
    for i in range(start, end + 1):
        line = lines[i]
        if line.strip().startswith("TRACE_"):
            continue
        kind = None
        if "// @step:" in line:
            line, marker = line.split("// @step:", 1)
            kind = marker.strip().split()[0]
            line = line.rstrip()
        out.append((i + 1, line, kind))
    return out


class _Keys(anywidget.AnyWidget):
    """Left / right arrow keys anywhere on the page step back / forward (not while typing)."""

    _esm = """
    function render({ model, el }) {
      const onKey = (e) => {
        const t = e.target;
        if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.isContentEditable)) return;
        if (e.key === "ArrowRight" || e.key === "ArrowLeft") {
          model.send({ key: e.key });
          e.preventDefault();
        }
      };
      document.addEventListener("keydown", onKey);
      return () => document.removeEventListener("keydown", onKey);
    }
    export default { render };
    """
    _css = ""
    enabled = traitlets.Bool(True).tag(sync=True)


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
        font=dict(family="Inter, Segoe UI, Helvetica, Arial, sans-serif"),
        xaxis=_axis("A: column (k)", anchor="y"),
        yaxis=_axis("A: row", anchor="x", autorange="reversed"),
        xaxis2=_axis("", anchor="y2", side="top"),
        yaxis2=_axis("B: row (k)", anchor="x2", autorange="reversed"),
        xaxis3=_axis("C: column (= B column)", anchor="y3"),
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
        return "" if (lo == 0 and hi == n) else f" (showing {lo}..{hi - 1} of {n})"

    g.layout.xaxis.title.text = f"A: column k{clip(k0, k1, L.K)}"
    g.layout.yaxis.title.text = f"A / C: row{clip(m0, m1, L.M)}"
    g.layout.xaxis3.title.text = f"B / C: column{clip(n0, n1, L.N)}"
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
    """

    PRESETS = {
        "seed 001: 1024³, T=16, block (x=2, y=1), thread (x=4, y=3)": (1024, 1024, 1024, 16, (2, 1), (4, 3)),
        "small: 8×8×8, T=4": (8, 8, 8, 4, (1, 0), (1, 2)),
        "seed 000: Width=3, TILE_WIDTH=2 (padding)": (3, 3, 3, 2, (1, 0), (1, 0)),
        "rectangular: 35×79×19, T=8": (35, 79, 19, 8, (3, 2), (5, 1)),
        "64³, T=16": (64, 64, 64, 16, (1, 2), (4, 3)),
        "seed 003: A 4×8, B 8×4, BLOCK_SIZE=2 (4 windows)": (4, 4, 8, 2, (1, 0), (1, 1)),
    }

    def __init__(self, M=1024, N=1024, K=1024, tile=16, block=(2, 1), thread=(4, 3), window_cells=48, per_k=True,
                 kernel="tiled", mark_ghosts=False, presets=None):
        # kernel: "tiled" or a barrier-less variant (explainer.model.TILED_BARRIERS; not the
        # unguarded one, whose reads leave A and B). mark_ghosts / the variant's hazards only
        # add marks (page 03 / 04); presets: extra entries for the Preset menu.
        self.kernel = kernel
        self.mark_ghosts = mark_ghosts
        if presets:
            self.PRESETS = {**self.PRESETS, **presets}
        self.window_cells = window_cells
        self.per_k = per_k
        self.show_values = False
        self._busy = False
        self._set_launch(Launch(kernel, M, N, K, tile))
        if not self.L.guarded:
            raise LaunchError("the stepper draws guarded kernels; see model.unguarded_report")
        self.L.check_block(*block)
        self.L.check_thread(*thread)
        self.block, self.thread = tuple(block), tuple(thread)
        self._build_widgets()
        self._build_figures()
        self._sync_controls()
        self._full_redraw()

    # ---- state ------------------------------------------------------------------------
    def _set_launch(self, L: Launch):
        self.L = L
        self.A, self.B = demo_matrices(L.M, L.N, L.K)
        self.steps = steps(L, per_k=self.per_k)
        self.index = 0

    @property
    def step(self) -> Step:
        return self.steps[self.index]

    def _phase_of_tiles(self) -> int | None:
        """The phase whose data sits in As/Bs at the current step (after its loads)."""
        s = self.step
        if s.kind == "store":
            return self.L.phases - 1
        return s.phase

    def label(self) -> str:
        s, L = self.step, self.L
        bx, by = self.block
        where = f"block (x={bx}, y={by})"
        if s.kind == "store":
            what = f"after the last phase · {STEP_WORDS['store']}"
        else:
            what = f"phase {s.phase + 1} of {L.phases} · {STEP_WORDS[s.kind]}"
            if s.kind == "compute":
                what += f" (k = {s.k} of 0..{L.T - 1})" if s.k is not None else f" (the whole loop, k = 0..{L.T - 1})"
        return f"{where} · {what}"

    # ---- widgets ----------------------------------------------------------------------
    def _build_widgets(self):
        small = W.Layout(width="150px")
        self.w_preset = W.Dropdown(options=["(custom)"] + list(self.PRESETS), value="(custom)", description="Preset", layout=W.Layout(width="470px"))
        # Plain IntText (not Bounded): a bad value must reach the model and its one-line error,
        # not be clamped silently into a different launch.
        self.w_M = W.IntText(description="M", layout=small)
        self.w_N = W.IntText(description="N", layout=small)
        self.w_K = W.IntText(description="K", layout=small)
        self.w_T = W.IntText(description="tile T", layout=small)
        self.w_bx = W.BoundedIntText(description="blockIdx.x", min=0, layout=small, style={"description_width": "75px"})
        self.w_by = W.BoundedIntText(description="blockIdx.y", min=0, layout=small, style={"description_width": "75px"})
        self.w_tx = W.BoundedIntText(description="threadIdx.x", min=0, layout=small, style={"description_width": "80px"})
        self.w_ty = W.BoundedIntText(description="threadIdx.y", min=0, layout=small, style={"description_width": "80px"})
        self.w_error = W.HTML(layout=W.Layout(min_height="1.4em"))

        self.w_step = W.IntSlider(min=0, description="step", continuous_update=True, layout=W.Layout(width="420px"))
        self.w_play = W.Play(interval=600, min=0, description="Play", tooltip="play in the browser")
        self.w_speed = W.IntSlider(value=600, min=100, max=2000, step=50, description="ms / step", layout=W.Layout(width="260px"))
        W.jslink((self.w_play, "value"), (self.w_step, "value"))
        W.jslink((self.w_play, "max"), (self.w_step, "max"))
        W.jslink((self.w_speed, "value"), (self.w_play, "interval"))
        btn = W.Layout(width="44px")
        self.w_first = W.Button(icon="fast-backward", tooltip="first step", layout=btn)
        self.w_prev = W.Button(icon="step-backward", tooltip="previous step (←)", layout=btn)
        self.w_next = W.Button(icon="step-forward", tooltip="next step (→)", layout=btn)
        self.w_last = W.Button(icon="fast-forward", tooltip="last step", layout=btn)
        for b in (self.w_first, self.w_prev, self.w_next, self.w_last):
            b.add_class("explainer-stepbtn")
        self.w_next.add_class("explainer-next")
        self.w_prev.add_class("explainer-prev")
        self.w_perk = W.ToggleButtons(options=["one k per step", "whole loop"], value="one k per step" if self.per_k else "whole loop", description="compute", style={"button_width": "120px"})
        self.w_show = W.ToggleButtons(options=["names", "values"], value="names", description="As / Bs show", style={"button_width": "70px"})
        self.w_label = W.HTML()
        self.w_label.add_class("explainer-step-label")
        self.w_sum = W.HTML()
        self.w_sum.add_class("explainer-sum")
        self.w_code = W.HTML()
        self.w_summary = W.HTML()
        self.w_keys = _Keys()
        self.w_keys.on_msg(self._on_key)

        self.w_first.on_click(lambda _: self.go(0))
        self.w_prev.on_click(lambda _: self.go(self.index - 1))
        self.w_next.on_click(lambda _: self.go(self.index + 1))
        self.w_last.on_click(lambda _: self.go(len(self.steps) - 1))
        self.w_step.observe(self._on_step, names="value")
        self.w_preset.observe(self._on_preset, names="value")
        for w in (self.w_M, self.w_N, self.w_K, self.w_T):
            w.observe(self._on_size, names="value")
        for w in (self.w_bx, self.w_by):
            w.observe(self._on_block, names="value")
        for w in (self.w_tx, self.w_ty):
            w.observe(self._on_thread, names="value")
        self.w_perk.observe(self._on_perk, names="value")
        self.w_show.observe(self._on_show, names="value")

    def _sync_controls(self):
        """Push the model state into the controls without triggering their callbacks."""
        self._busy = True
        try:
            L = self.L
            gx, gy = L.grid
            self.w_M.value, self.w_N.value, self.w_K.value, self.w_T.value = L.M, L.N, L.K, L.T
            self.w_bx.max, self.w_by.max = gx - 1, gy - 1
            self.w_tx.max = self.w_ty.max = L.T - 1
            self.w_bx.value, self.w_by.value = self.block
            self.w_tx.value, self.w_ty.value = self.thread
            self.w_step.max = len(self.steps) - 1
            self.w_play.max = len(self.steps) - 1
            # Play is jslinked to the slider: when the views appear, the link copies Play's
            # value onto the slider, so both must already agree.
            self.w_play.value = self.index
            self.w_step.value = self.index
        finally:
            self._busy = False

    # ---- figures ----------------------------------------------------------------------
    def _build_figures(self):
        # Global memory: the textbook layout, B above C, A to the left of C.
        g = abc_figure()
        # Shared memory of the block and its threads.
        s = Figure()
        s.add_trace(_grid_heatmap("As", xaxis="x", yaxis="y"))
        s.add_trace(_grid_heatmap("Bs", xaxis="x2", yaxis="y2"))
        s.add_trace(_grid_heatmap("threads", xaxis="x3", yaxis="y3"))
        s.update_layout(
            height=330,
            width=960,
            margin=dict(l=40, r=10, t=40, b=40),
            plot_bgcolor="white",
            font=dict(family="Inter, Segoe UI, Helvetica, Arial, sans-serif"),
            xaxis=_axis("tx (column of As)", anchor="y", domain=[0.0, 0.3]),
            yaxis=_axis("ty", anchor="x", autorange="reversed"),
            xaxis2=_axis("tx (column of Bs)", anchor="y2", domain=[0.35, 0.65]),
            yaxis2=_axis("", anchor="x2", autorange="reversed"),
            xaxis3=_axis("threadIdx.x", anchor="y3", domain=[0.7, 1.0]),
            yaxis3=_axis("threadIdx.y", anchor="x3", autorange="reversed"),
        )
        self.fig_global, self.fig_shared = g, s
        g.data[2].on_click(self._on_click_c)
        s.data[2].on_click(self._on_click_thread)
        legend = " ".join(
            f'<span style="display:inline-block;width:12px;height:12px;background:{PALETTE[c]};'
            f'border:1px solid #9ca3af;vertical-align:middle"></span> {html.escape(t)}&nbsp;&nbsp;'
            for c, t in LEGEND
        )
        self.w_legend = W.HTML(f'<div style="font-size:12px">{legend}</div>')
        self._box = W.VBox(
            [
                runtime(),
                self.w_keys,
                W.HBox([self.w_preset]),
                W.HBox([self.w_M, self.w_N, self.w_K, self.w_T]),
                W.HBox([self.w_bx, self.w_by, self.w_tx, self.w_ty]),
                self.w_error,
                W.HBox([self.w_first, self.w_prev, self.w_play, self.w_next, self.w_last, self.w_step, self.w_speed]),
                W.HBox([self.w_perk, self.w_show]),
                self.w_label,
                self.w_legend,
                self.fig_global,
                self.w_sum,
                self.fig_shared,
                self.w_code,
                self.w_summary,
            ]
        )
        self._box.add_class("explainer-stepper")

    @property
    def widget(self) -> W.VBox:
        """The whole stepper, ready to display (figure state synced for the first view)."""
        sync_figure(self.fig_global, self.fig_shared)
        return self._box

    def _windows(self):
        L, T = self.L, self.L.T
        bx, by = self.block
        t = self._phase_of_tiles() or 0
        cells = max(self.window_cells, T)
        return (
            window(L.M, by * T, T, cells),
            window(L.N, bx * T, T, cells),
            window(L.K, t * T, T, cells),
        )

    def _full_redraw(self):
        """Redraw everything (launch, window or mode changed); the figures stay the same objects."""
        (m0, m1), (n0, n1), (k0, k1) = self._windows()
        self._win = ((m0, m1), (n0, n1), (k0, k1))
        L = self.L
        A, B = self.A, self.B
        small = lambda a, b: (a <= TEXT_MAX and b <= TEXT_MAX)  # noqa: E731
        g = self.fig_global
        with g.batch_update():
            ta, tb, tc = g.data
            draw_abc_window(g, L, self._win, f"Global memory · A is {L.M}×{L.K}, B is {L.K}×{L.N}, C is {L.M}×{L.N}")
            ta.text = A[m0:m1, k0:k1].astype(str) if small(m1 - m0, k1 - k0) else None
            tb.text = B[k0:k1, n0:n1].astype(str) if small(k1 - k0, n1 - n0) else None
            tc.hovertemplate = "C[%{y}][%{x}] · click to pin its thread<extra></extra>"
            g.layout.yaxis2.title.text = "B: row k"
            self._shapes_global()
        T = L.T
        s = self.fig_shared
        with s.batch_update():
            for tr in s.data:
                tr.x, tr.y = np.arange(T), np.arange(T)
            s.data[0].hovertemplate = "As[%{y}][%{x}] = %{customdata}<extra></extra>"
            s.data[1].hovertemplate = "Bs[%{y}][%{x}] = %{customdata}<extra></extra>"
            s.data[2].hovertemplate = "thread (x=%{x}, y=%{y}) · %{text} · click to pin<extra></extra>"
            s.data[2].textfont.size = 9 if T > 8 else 11
        self._render_step()

    def _shapes_global(self):
        """Tile grid lines over A, B and C (drawn once per window)."""
        (m0, m1), (n0, n1), (k0, k1) = self._win
        T = self.L.T
        shapes = []
        line = dict(color="#6b7280", width=1)
        for ax, (lo, hi), (olo, ohi), vertical in (
            ("", (k0, k1), (m0, m1), True), ("", (m0, m1), (k0, k1), False),
            ("2", (n0, n1), (k0, k1), True), ("2", (k0, k1), (n0, n1), False),
            ("3", (n0, n1), (m0, m1), True), ("3", (m0, m1), (n0, n1), False),
        ):
            first = -(-lo // T) * T
            for v in range(first, hi + 1, T):
                p = v - 0.5
                if vertical:
                    shapes.append(dict(type="line", xref=f"x{ax}", yref=f"y{ax}", x0=p, x1=p, y0=olo - 0.5, y1=ohi - 0.5, line=line))
                else:
                    shapes.append(dict(type="line", xref=f"x{ax}", yref=f"y{ax}", y0=p, y1=p, x0=olo - 0.5, x1=ohi - 0.5, line=line))
        if len(shapes) > 200:  # tile 1 or 2 on a big window: lines would hide the cells
            shapes = []
        self.fig_global.layout.shapes = shapes

    # ---- one step ---------------------------------------------------------------------
    def _render_step(self):
        L, T = self.L, self.L.T
        s = self.step
        bx, by = self.block
        tx, ty = self.thread
        (m0, m1), (n0, n1), (k0, k1) = self._win
        t = self._phase_of_tiles()
        row, col = L.c_index(bx, by, tx, ty)

        # Global views: panel of this block, tile of this phase, what moves in this step.
        za = np.full((m1 - m0, k1 - k0), IDLE, np.int8)
        zb = np.full((k1 - k0, n1 - n0), IDLE, np.int8)
        zc = np.full((m1 - m0, n1 - n0), IDLE, np.int8)
        r_lo, r_hi = by * T - m0, min(L.M, by * T + T) - m0
        c_lo, c_hi = bx * T - n0, min(L.N, bx * T + T) - n0
        za[max(r_lo, 0) : max(r_hi, 0), :] = PANEL
        zb[:, max(c_lo, 0) : max(c_hi, 0)] = PANEL
        zc[max(r_lo, 0) : max(r_hi, 0), max(c_lo, 0) : max(c_hi, 0)] = PANEL
        if t is not None:
            kt_lo, kt_hi = t * T - k0, min(L.K, t * T + T) - k0
            a_tile = za[max(r_lo, 0) : max(r_hi, 0), max(kt_lo, 0) : max(kt_hi, 0)]
            b_tile = zb[max(kt_lo, 0) : max(kt_hi, 0), max(c_lo, 0) : max(c_hi, 0)]
            a_tile[:] = ACTIVE if s.kind == "load_a" else TILE
            # B's tile of this phase is not loaded yet while A's is being copied.
            b_tile[:] = {"load_a": PANEL, "load_b": ACTIVE}.get(s.kind, TILE)
        pin_a = pin_b = None
        if s.kind in ("load_a", "load_b"):
            v = L.thread(self.block, self.thread).load(s.phase)
            pin_a = v["a"] if s.kind == "load_a" else None
            pin_b = v["b"] if s.kind == "load_b" else None
        elif s.kind == "compute":
            ks = range(T) if s.k is None else [s.k]
            kk = [t * T + k for k in ks if t * T + k < L.K]
            if row < L.M:
                for k in kk:
                    if k0 <= k < k1 and m0 <= row < m1:
                        za[row - m0, k - k0] = PINNED
            if col < L.N:
                for k in kk:
                    if k0 <= k < k1 and n0 <= col < n1:
                        zb[k - k0, col - n0] = PINNED
        if pin_a and m0 <= pin_a[0] < m1 and k0 <= pin_a[1] < k1:
            za[pin_a[0] - m0, pin_a[1] - k0] = PINNED
        if pin_b and k0 <= pin_b[0] < k1 and n0 <= pin_b[1] < n1:
            zb[pin_b[0] - k0, pin_b[1] - n0] = PINNED
        stored = s.kind == "store"
        if stored:
            zc[max(r_lo, 0) : max(r_hi, 0), max(c_lo, 0) : max(c_hi, 0)] = STORED
        if m0 <= row < m1 and n0 <= col < n1:
            zc[row - m0, col - n0] = PINNED
        tc_text = None
        if stored and (m1 - m0) <= TEXT_MAX and (n1 - n0) <= TEXT_MAX:
            C = self.A[m0:m1].astype(np.int64) @ self.B[:, n0:n1].astype(np.int64)
            mask = zc == IDLE
            tc_text = np.where(mask, "", C.astype(str))

        # Shared tiles: which element sits in each cell after this step.
        zs_a, zs_b, txt_a, txt_b, hov_a, hov_b = self._shared_views(s, t)
        # Threads of the block: warp stripes; all arrived at a barrier; the pinned one.
        lin = np.arange(T * T).reshape(T, T)
        warp = lin // 32
        zt = np.where(warp % 2 == 0, PANEL, TILE).astype(np.int8)
        if s.kind.startswith("barrier"):
            zt[:] = STORED
            t_text = np.full((T, T), "✓")
        else:
            t_text = np.char.add("w", warp.astype(str)) if T <= 16 else np.full((T, T), "")
        if self.mark_ghosts:  # threads of this block outside C: they load and multiply, never store
            gr, gc = L.c_index(bx, by, np.arange(T)[None, :], np.arange(T)[:, None])
            ghost = (gr >= L.M) | (gc >= L.N)
            zt[ghost] = PADDING
            t_text = np.where(ghost, "ghost", t_text)
        self._mark_hazards(s, t, zs_a, zs_b, zt)
        zt[ty, tx] = PINNED

        g, sh = self.fig_global, self.fig_shared
        with g.batch_update():
            g.data[0].z, g.data[1].z, g.data[2].z = za, zb, zc
            g.data[2].text = tc_text
        with sh.batch_update():
            sh.data[0].z, sh.data[1].z, sh.data[2].z = zs_a, zs_b, zt
            sh.data[0].text, sh.data[1].text, sh.data[2].text = txt_a, txt_b, t_text
            sh.data[0].customdata, sh.data[1].customdata = hov_a, hov_b
            phase_txt = f"phase {t + 1}" if t is not None else "empty"
            sh.layout.title = dict(
                text=f"Shared memory of block (x={bx}, y={by}) · As and Bs hold {phase_txt} · its {T * T} threads ({-(-T * T // 32)} warps)",
                font=dict(size=13), x=0.01,
            )
        self.w_label.value = (
            f'<div style="font-size:17px;font-weight:600;padding:6px 0">{html.escape(self.label())}</div>'
            f'<div style="color:#4b5563">step {self.index + 1} of {len(self.steps)}</div>'
        )
        self.w_sum.value = self._sum_text(s, t, row, col)
        self.w_code.value = self._code_html(s.kind)
        self.w_summary.value = self._summary_html()

    def _mark_hazards(self, s: Step, t, zs_a, zs_b, zt):
        """Barrier-less variants: colour the cells in a race at this step (explainer.hazards),
        and the threads whose stores the pinned thread's reads race with."""
        if t is None or all(self.L.barriers):
            return
        from .hazards import READ_BEFORE_WRITE, WRITE_BEFORE_READ, cells_at

        tx, ty = self.thread
        if s.kind == "compute" and not self.L.barriers[0]:
            cells = cells_at(self.L, t, READ_BEFORE_WRITE)
            ks = range(self.L.T) if s.k is None else [s.k]
            for k in ks:  # As[ty][k] stored by (x=k, y=ty); Bs[k][tx] by (x=tx, y=k)
                if (ty, k) in cells["As"] and (k, ty) != (tx, ty):
                    zt[ty, k] = HAZARD
                if (k, tx) in cells["Bs"] and (tx, k) != (tx, ty):
                    zt[k, tx] = HAZARD
        elif s.kind in ("load_a", "load_b") and t > 0 and not self.L.barriers[1]:
            cells = cells_at(self.L, t - 1, WRITE_BEFORE_READ)  # phase t overwrites phase t-1
        else:
            return
        for (i, j) in cells["As"]:
            if zs_a[i, j] != PINNED:  # the pinned thread's own cells stay orange
                zs_a[i, j] = HAZARD
        for (i, j) in cells["Bs"]:
            if zs_b[i, j] != PINNED:
                zs_b[i, j] = HAZARD

    def _shared_views(self, s: Step, t: int | None):
        """As/Bs categories and labels. Before the loads of phase t, a tile still holds
        phase t-1's data (stale) or nothing (phase 0)."""
        L, T = self.L, self.L.T
        bx, by = self.block
        tx, ty = self.thread
        ii, jj = np.meshgrid(np.arange(T), np.arange(T), indexing="ij")  # (ty, tx) of each cell

        def tile(which, ph, loading):
            if ph is None or ph < 0:
                return np.full((T, T), IDLE, np.int8), np.full((T, T), "")
            if which == "A":
                r, c = L.a_load(by, ph, ii, jj)
                src = self.A
            else:
                r, c = L.b_load(bx, ph, ii, jj)
                src = self.B
            pad = r == PAD
            z = np.where(pad, PADDING, ACTIVE if loading else TILE).astype(np.int8)
            if self.show_values:
                vals = src[np.maximum(r, 0), np.maximum(c, 0)].astype(np.int64)
                text = np.where(pad, "0", vals.astype(str))
            else:
                text = np.where(pad, "0 (pad)", np.char.add(np.char.add(np.char.add(f"{which}[", r.astype(str)), np.char.add("][", c.astype(str))), "]"))
            return z, text

        kind = s.kind
        # In load_a, As receives phase t while Bs still holds phase t-1 (or nothing yet).
        b_phase = t if kind != "load_a" else (t - 1 if t else None)
        za, ta = tile("A", t, kind == "load_a")
        zb, tb = tile("B", b_phase, kind == "load_b")
        if kind == "load_a" and b_phase is not None:
            zb = np.where(zb == PADDING, PADDING, STALE).astype(np.int8)
        if kind == "compute":
            ks = list(range(T)) if s.k is None else [s.k]
            for k in ks:
                if za[ty, k] != PADDING:
                    za[ty, k] = PINNED
                if zb[k, tx] != PADDING:
                    zb[k, tx] = PINNED
        elif kind in ("load_a", "load_b"):
            (za if kind == "load_a" else zb)[ty, tx] = PINNED
        hover_a, hover_b = ta, tb
        if T > 8 and not self.show_values:
            # Names do not fit in small cells: label only what the pinned thread touches
            # (every cell still says what it holds on hover).
            ta = np.where(za == PINNED, ta, "")
            tb = np.where(zb == PINNED, tb, "")
        return za, zb, ta, tb, hover_a, hover_b

    def _sum_text(self, s: Step, t, row, col) -> str:
        """The pinned thread's running sum after this step, and the multiply-add(s) it did."""
        L, T = self.L, self.L.T
        tx, ty = self.thread
        if s.kind == "store":
            kend = L.K
        elif s.kind == "compute":
            kend = t * T + (T if s.k is None else s.k + 1)
        elif s.kind == "barrier2":
            kend = (t + 1) * T
        else:
            kend = t * T
        kend = min(kend, L.K)
        a_row = self.A[row, :kend].astype(np.int64) if row < L.M else np.zeros(kend, np.int64)
        b_col = self.B[:kend, col].astype(np.int64) if col < L.N else np.zeros(kend, np.int64)
        total = int(a_row @ b_col)
        who = f"thread (x={tx}, y={ty}) owns C[{row}][{col}]"
        if row >= L.M or col >= L.N:
            who += " (outside C: it loads and multiplies but stores nothing)"
        detail = ""
        if s.kind == "compute" and s.k is not None:
            v = L.thread(self.block, self.thread).compute(t, s.k)
            a = "0 (padding)" if v["a"] is None else f"A[{v['a'][0]}][{v['a'][1]}] = {int(self.A[tuple(v['a'])])}"
            b = "0 (padding)" if v["b"] is None else f"B[{v['b'][0]}][{v['b'][1]}] = {int(self.B[tuple(v['b'])])}"
            detail = f" · sum += As[{ty}][{s.k}] × Bs[{s.k}][{tx}] = {a} × {b}"
        elif s.kind == "store" and row < L.M and col < L.N:
            detail = f" · C[{row}][{col}] = {total} (numpy says {int(self.A[row].astype(np.int64) @ self.B[:, col].astype(np.int64))})"
        return (
            f'<div style="font-size:14px;padding:4px 0"><b>Pinned</b> {html.escape(who)} · '
            f"sum = <b>{total}</b>{html.escape(detail)}</div>"
        )

    def _code_html(self, kind: str) -> str:
        if not hasattr(self, "_src"):
            from .model import KERNELS as _FILES

            self._src = source_lines(_FILES[self.kernel])
        rows = []
        for no, text, k in self._src:
            hl = k == kind
            style = "background:#fde68a;font-weight:600" if hl else ""
            rows.append(f'<span style="{style};display:block"><span style="color:#9ca3af">{no:>3}</span>  {html.escape(text)}</span>')
        return (
            f'<div style="font-size:12px;color:#4b5563">kernels/{html.escape(self._src_name())} (trace-recording lines hidden); '
            "highlighted: the line(s) this step runs</div>"
            f'<pre class="explainer-code" style="font-size:12px;line-height:1.35;background:#f9fafb;padding:8px;border:1px solid #e5e7eb">{"".join(rows)}</pre>'
        )

    def _src_name(self) -> str:
        from .model import KERNELS as _FILES

        return _FILES[self.kernel]

    def _summary_html(self) -> str:
        L = self.L
        st = L.stats()
        naive = Launch("naive", L.M, L.N, L.K, L.T).stats()
        T = L.T
        return (
            '<div style="font-size:13px;line-height:1.5">'
            f"<b>Data reuse.</b> Each element copied into As is read by the {T} threads of its row, and each "
            f"element of Bs by the {T} threads of its column: {T} multiply-adds per shared load. "
            f"Global loads for this launch: naive {naive['global_loads']:,}, tiled {st['global_loads']:,} "
            f"({naive['global_loads'] / st['global_loads']:.1f}× fewer); "
            f"FLOP per byte of DRAM traffic {naive['flop_per_byte']:.2f} → {st['flop_per_byte']:.2f} "
            "(a bound that ignores caches). "
            f"Grid {L.grid[0]}×{L.grid[1]} blocks of {T}×{T} threads, {L.phases} phases, "
            f"{L.barriers_per_block} barriers per block, {st['padding_loads']:,} padding zeros stored, "
            f"{st['ghost_threads']:,} threads outside C.</div>"
        )

    # ---- callbacks --------------------------------------------------------------------
    def _guard(self, fn):
        guard(fn, self.w_error, self._sync_controls)

    def go(self, index: int):
        index = max(0, min(len(self.steps) - 1, int(index)))
        self.w_play.value = index  # (jslinked in the browser; keep the kernel's copy equal)
        if index != self.index or self.w_step.value != index:
            self.w_step.value = index  # -> _on_step

    def _on_step(self, change):
        if self._busy:
            return
        self.index = int(change["new"])
        old_win = getattr(self, "_win", None)
        if self._windows() != old_win:
            self._full_redraw()
        else:
            self._render_step()

    def _on_key(self, widget, content, buffers):
        key = content.get("key") if isinstance(content, dict) else None
        if key == "ArrowRight":
            self.go(self.index + 1)
        elif key == "ArrowLeft":
            self.go(self.index - 1)

    def set_launch(self, M, N, K, tile, block=None, thread=None):
        L = Launch(self.kernel, M, N, K, tile)
        block = tuple(block) if block is not None else (0, 0)
        thread = tuple(thread) if thread is not None else (0, 0)
        L.check_block(*block)
        L.check_thread(*thread)
        self._set_launch(L)
        self.block, self.thread = block, thread
        self._sync_controls()
        self._full_redraw()

    def _on_size(self, change):
        if self._busy:
            return
        T = self.w_T.value

        def apply():
            L = Launch(self.kernel, self.w_M.value, self.w_N.value, self.w_K.value, T)
            gx, gy = L.grid
            block = (min(self.block[0], gx - 1), min(self.block[1], gy - 1))
            thread = (min(self.thread[0], T - 1), min(self.thread[1], T - 1))
            self.set_launch(L.M, L.N, L.K, T, block, thread)
            self.w_preset.value = "(custom)"

        self._guard(apply)

    def _on_preset(self, change):
        if self._busy or change["new"] not in self.PRESETS:
            return
        M, N, K, T, block, thread = self.PRESETS[change["new"]]
        self._guard(lambda: self.set_launch(M, N, K, T, block, thread))

    def _on_block(self, change):
        if self._busy:
            return

        def apply():
            self.L.check_block(self.w_bx.value, self.w_by.value)
            self.block = (self.w_bx.value, self.w_by.value)
            self._full_redraw()

        self._guard(apply)

    def _on_thread(self, change):
        if self._busy:
            return

        def apply():
            self.L.check_thread(self.w_tx.value, self.w_ty.value)
            self.thread = (self.w_tx.value, self.w_ty.value)
            self._render_step()

        self._guard(apply)

    def pin(self, block, thread):
        """Pin thread (x, y) of block (x, y), moving the view to that block if needed."""
        self.L.check_block(*block)
        self.L.check_thread(*thread)
        moved = tuple(block) != self.block
        self.block, self.thread = tuple(block), tuple(thread)
        self._sync_controls()
        self._full_redraw() if moved else self._render_step()

    def _on_click_c(self, trace, points, state):
        if not points.xs:
            return
        col, row = int(points.xs[0]), int(points.ys[0])
        T = self.L.T
        self._guard(lambda: self.pin((col // T, row // T), (col % T, row % T)))

    def _on_click_thread(self, trace, points, state):
        if not points.xs:
            return
        self._guard(lambda: self.pin(self.block, (int(points.xs[0]), int(points.ys[0]))))

    def _on_perk(self, change):
        if self._busy:
            return
        cur = self.step
        self.per_k = change["new"] == "one k per step"
        self.steps = steps(self.L, per_k=self.per_k)
        # Land on the same place in the program: same phase and kind (k 0 / whole loop).
        target = next(
            (i for i, s in enumerate(self.steps) if s.kind == cur.kind and s.phase == cur.phase and (s.k in (None, 0) or s.k == cur.k)),
            0,
        )
        self.index = target
        self._sync_controls()
        self._render_step()

    def _on_show(self, change):
        self.show_values = change["new"] == "values"
        self._render_step()


def tiled_stepper(**kw) -> W.Widget:
    """Build the stepper and return its widget (for a notebook's last line)."""
    return TiledStepper(**kw).widget
