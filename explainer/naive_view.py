"""The naive kernels: grid -> block -> thread -> the C element it computes, the row of A and
column of B it reads, and the warp it belongs to (``naive`` vs the column-mapped ``naive_col``)."""

from __future__ import annotations

import html

import ipywidgets as W
import numpy as np

from .model import WARP_SIZE, Launch, LaunchError
from .plotly_widget import runtime
from .stepper import (
    ACTIVE, IDLE, LEGEND, PALETTE, PANEL, PINNED, TEXT_MAX, TILE, abc_figure, demo_matrices, draw_abc_window, guard, sync_figure, window,
)

FORMULAS = {
    "naive": ("blockIdx.y*blockDim.y + threadIdx.y", "blockIdx.x*blockDim.x + threadIdx.x"),
    "naive_col": ("blockIdx.y*blockDim.x + threadIdx.x", "blockIdx.x*blockDim.y + threadIdx.y"),
}


class NaiveExplorer:
    """Pick a kernel, a launch, a block and a thread (or click a C cell)."""

    def __init__(self, M=1024, N=1024, K=1024, tile=16, block=(2, 1), thread=(4, 3), kernel="naive", window_cells=32):
        self.window_cells = window_cells
        self.L = Launch(kernel, M, N, K, tile)
        self.L.check_block(*block)
        self.L.check_thread(*thread)
        self.block, self.thread = tuple(block), tuple(thread)
        self._busy = False
        small = W.Layout(width="150px")
        wide = {"description_width": "80px"}
        self.w_kernel = W.ToggleButtons(
            options=[("naive (threadIdx.x → column)", "naive"), ("naive_col (threadIdx.x → row)", "naive_col")],
            value=kernel, description="kernel", style={"button_width": "220px"},
        )
        self.w_M = W.IntText(description="M", layout=small)  # unclamped: bad values get the error
        self.w_N = W.IntText(description="N", layout=small)
        self.w_K = W.IntText(description="K", layout=small)
        self.w_T = W.IntText(description="block T×T", layout=small)
        self.w_bx = W.BoundedIntText(description="blockIdx.x", min=0, layout=small, style=wide)
        self.w_by = W.BoundedIntText(description="blockIdx.y", min=0, layout=small, style=wide)
        self.w_tx = W.BoundedIntText(description="threadIdx.x", min=0, layout=small, style=wide)
        self.w_ty = W.BoundedIntText(description="threadIdx.y", min=0, layout=small, style=wide)
        self.w_error = W.HTML(layout=W.Layout(min_height="1.4em"))
        self.w_text = W.HTML()
        self.w_text.add_class("explainer-naive-text")
        legend = [(PANEL, "this block's C tile"), (TILE, "C elements of the pinned thread's warp"),
                  (ACTIVE, "what the pinned thread reads"), (PINNED, "the pinned thread's C element")]
        self.w_legend = W.HTML('<div style="font-size:12px">' + " ".join(
            f'<span style="display:inline-block;width:12px;height:12px;background:{PALETTE[c]};border:1px solid #9ca3af;'
            f'vertical-align:middle"></span> {html.escape(t)}&nbsp;&nbsp;' for c, t in legend) + "</div>")
        self.fig = abc_figure(height=520, width=720)
        self.fig.data[2].on_click(self._on_click_c)
        self.fig.data[2].hovertemplate = "C[%{y}][%{x}] · click to pin its thread<extra></extra>"
        for w in (self.w_M, self.w_N, self.w_K, self.w_T, self.w_kernel):
            w.observe(self._on_launch, names="value")
        for w in (self.w_bx, self.w_by, self.w_tx, self.w_ty):
            w.observe(self._on_thread, names="value")
        self._box = W.VBox([
            runtime(),
            self.w_kernel,
            W.HBox([self.w_M, self.w_N, self.w_K, self.w_T]),
            W.HBox([self.w_bx, self.w_by, self.w_tx, self.w_ty]),
            self.w_error, self.w_text, self.w_legend, self.fig,
        ])
        self._box.add_class("explainer-naive")
        self._sync()
        self.redraw()

    @property
    def widget(self) -> W.VBox:
        sync_figure(self.fig)  # plotly >= 6: a figure inside a box needs its state pushed
        return self._box

    def _sync(self):
        self._busy = True
        try:
            L = self.L
            gx, gy = L.grid
            self.w_kernel.value = L.kernel
            self.w_M.value, self.w_N.value, self.w_K.value, self.w_T.value = L.M, L.N, L.K, L.T
            self.w_bx.max, self.w_by.max = gx - 1, gy - 1
            self.w_tx.max = self.w_ty.max = L.T - 1
            self.w_bx.value, self.w_by.value = self.block
            self.w_tx.value, self.w_ty.value = self.thread
        finally:
            self._busy = False

    def _guard(self, fn):
        guard(fn, self.w_error, self._sync)

    def _on_launch(self, change):
        if self._busy:
            return

        def apply():
            L = Launch(self.w_kernel.value, self.w_M.value, self.w_N.value, self.w_K.value, self.w_T.value)
            gx, gy = L.grid
            self.L = L
            self.block = (min(self.block[0], gx - 1), min(self.block[1], gy - 1))
            self.thread = (min(self.thread[0], L.T - 1), min(self.thread[1], L.T - 1))
            self._sync()
            self.redraw()

        self._guard(apply)

    def _on_thread(self, change):
        if self._busy:
            return

        def apply():
            self.L.check_block(self.w_bx.value, self.w_by.value)
            self.L.check_thread(self.w_tx.value, self.w_ty.value)
            self.block, self.thread = (self.w_bx.value, self.w_by.value), (self.w_tx.value, self.w_ty.value)
            self.redraw()

        self._guard(apply)

    def pin_c(self, row: int, col: int):
        """Pin the thread that computes C[row][col]."""
        L, T = self.L, self.L.T
        if not (0 <= row < L.M and 0 <= col < L.N):
            raise LaunchError(f"C[{row}][{col}] is outside the {L.M}x{L.N} matrix C")
        by, bx = row // T, col // T
        thread = (col % T, row % T) if L.kernel == "naive" else (row % T, col % T)
        self.block, self.thread = (bx, by), thread
        self._sync()
        self.redraw()

    def _on_click_c(self, trace, points, state):
        if points.xs:
            self._guard(lambda: self.pin_c(int(points.ys[0]), int(points.xs[0])))

    def redraw(self):
        L, T = self.L, self.L.T
        bx, by = self.block
        tx, ty = self.thread
        v = L.thread(self.block, self.thread)
        row, col = v.c
        # The block covers rows by*T.. and columns bx*T.. of C for both mappings (square blocks).
        cells = max(self.window_cells, T)
        (m0, m1), (n0, n1) = window(L.M, by * T, T, cells), window(L.N, bx * T, T, cells)
        k0, k1 = window(L.K, 0, T, cells)
        A, B = demo_matrices(min(L.M, m1), min(L.N, n1), min(L.K, k1))
        za = np.full((m1 - m0, k1 - k0), IDLE, np.int8)
        zb = np.full((k1 - k0, n1 - n0), IDLE, np.int8)
        zc = np.full((m1 - m0, n1 - n0), IDLE, np.int8)
        zc[max(by * T - m0, 0): max(min(L.M, by * T + T) - m0, 0), max(bx * T - n0, 0): max(min(L.N, bx * T + T) - n0, 0)] = PANEL
        # The pinned thread's warp: lanes 0..31 of the block's linear ids.
        lin = np.arange(T * T)
        wtx, wty = lin % T, lin // T
        same = lin // WARP_SIZE == v.warp
        wr, wc = L.c_index(bx, by, wtx[same], wty[same])
        ok = (wr < L.M) & (wc < L.N) & (wr >= m0) & (wr < m1) & (wc >= n0) & (wc < n1)
        zc[wr[ok] - m0, wc[ok] - n0] = TILE
        if v.writes_c:
            if m0 <= row < m1:
                za[row - m0, :] = ACTIVE
            if n0 <= col < n1:
                zb[:, col - n0] = ACTIVE
            if m0 <= row < m1 and n0 <= col < n1:
                zc[row - m0, col - n0] = PINNED
        small = max(m1 - m0, n1 - n0, k1 - k0) <= TEXT_MAX
        g = self.fig
        with g.batch_update():
            ta, tb, tc = g.data
            draw_abc_window(g, L, ((m0, m1), (n0, n1), (k0, k1)),
                            f"{L.kernel}: grid {L.grid[0]}×{L.grid[1]} blocks of {T}×{T} threads")
            ta.z, tb.z, tc.z = za, zb, zc
            ta.text = A[m0:m1, k0:k1].astype(str) if small else None
            tb.text = B[k0:k1, n0:n1].astype(str) if small else None
        self.w_text.value = self._text(v)

    def _text(self, v) -> str:
        L = self.L
        st = L.stats()
        fr, fc = FORMULAS[L.kernel]
        bx, by = self.block
        tx, ty = self.thread
        row, col = v.c
        lines = [
            f"<b>block (x={bx}, y={by}), thread (x={tx}, y={ty})</b> · linear id {v.linear_thread} → warp {v.warp}, lane {v.lane}",
            f"row = {fr} = <b>{row}</b>; col = {fc} = <b>{col}</b>",
        ]
        if v.writes_c:
            lines.append(
                f"computes C[{row}][{col}] = Σ<sub>k</sub> A[{row}][k]·B[k][{col}]: reads {L.K} elements of A "
                f"and {L.K} of B = <b>{2 * L.K:,}</b> global loads for one output"
            )
        else:
            lines.append(f"C[{row}][{col}] is outside C: the guard <code>if (row &lt; M &amp;&amp; col &lt; N)</code> skips this thread")
        lines.append(
            f"whole launch: {st['threads']:,} threads, {st['global_loads']:,} global loads (2·M·N·K), "
            f"{st['flops']:,} flops → {st['flop_per_byte']:.2f} FLOP per byte of DRAM traffic (a bound that ignores caches)"
        )
        if L.kernel == "naive":
            lines.append("neighbouring lanes of a warp (consecutive threadIdx.x) share a row of C: they read the <i>same</i> A element (a broadcast) and <i>neighbouring</i> B elements (coalesced)")
        else:
            lines.append("neighbouring lanes of a warp (consecutive threadIdx.x) walk down a column of C: they read A elements <i>K floats apart</i>, one memory transaction each (uncoalesced)")
        return '<div style="font-size:14px;line-height:1.6">' + "<br>".join(lines) + "</div>"


def naive_explorer(**kw):
    return NaiveExplorer(**kw).widget
