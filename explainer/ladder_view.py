"""Page 08's mapping views: for one rung of the ladder (kernels 10-14) and one thread, which
outputs of the BM x BN block tile the thread owns (and its warp), what it reads from the As / Bs
windows at loop step k, which elements it copies from global memory (in float4s from kernel 12
on), and its registers.

Everything drawn comes from :mod:`explainer.ladder` (read-only here): :func:`ladder.thread_outputs`,
:func:`ladder.owner_map`, :func:`ladder.loader_a` / :func:`ladder.loader_b`, the slot layout of
:func:`ladder.slot_coords_a`. The pure functions below derive what the pictures need; the
:class:`LadderExplorer` draws them into one FigureWidget that is built once and updated in place.
Bad input shows one line and keeps the last good state.
"""

from __future__ import annotations

import html

import ipywidgets as W
import numpy as np
import plotly.graph_objects as go

from . import ladder
from .ladder import RUNGS, WARP, Rung
from .plotly_widget import Figure, runtime
from .stepper import sync_figure

FONT = dict(family="Inter, Segoe UI, Helvetica, Arial, sans-serif")

# ---- colours: one discrete palette for every panel ---------------------------------------
OTHER_EVEN, OTHER_ODD, WARP_C, THREAD_C, NOW_C = range(5)
PALETTE = [
    "#f3f4f6",  # OTHER_EVEN  another warp's output / another float4 (even)
    "#e5e7eb",  # OTHER_ODD   the same, odd: warps and float4 groups show as stripes
    "#93c5fd",  # WARP_C      the selected thread's warp (its outputs, its reads at step k, its copies)
    "#fdba74",  # THREAD_C    the selected thread: its reads at the other steps k
    "#ea580c",  # NOW_C       the selected thread: its outputs, its reads at step k, its copies
]
ZRANGE = dict(zmin=0, zmax=len(PALETTE), showscale=False,
              colorscale=[x for i, c in enumerate(PALETTE) for x in ([i / len(PALETTE), c], [(i + 1) / len(PALETTE), c])])
MODES = {"reads": "what the thread reads (compute loop)", "copies": "who copies what (global → shared)"}


def rung_label(r: Rung) -> str:
    return f"{r.file.split('_')[0]} · {r.title}"


# --------------------------------------------------------------------------------------
# Pure: what the pictures show
# --------------------------------------------------------------------------------------
def check_thread(r: Rung, tid) -> int:
    """``tid`` as an int in ``0 .. threads - 1``, or ValueError with a one-line message."""
    try:
        t = int(tid)
    except (TypeError, ValueError):
        raise ValueError(f"thread must be a whole number, got {tid!r}") from None
    if not 0 <= t < r.threads:
        raise ValueError(f"thread must be 0..{r.threads - 1} for kernel {r.file} ({r.threads} threads "
                         f"per block), got {t}")
    return t


def warp_lane(tid: int) -> tuple[int, int]:
    return tid // WARP, tid % WARP


def thread_reads(r: Rung, tid: int) -> tuple[np.ndarray, np.ndarray]:
    """The rows m of the A window (As) and the columns n of the B window (Bs) that thread ``tid``
    reads at every step k of the compute loop, in register order (regM, regN): the rows and
    columns of the outputs it owns."""
    rows, cols = ladder.thread_outputs(r, tid)
    tm, tn = r.thread_tile
    return rows.reshape(tm, tn)[:, 0].copy(), cols.reshape(tm, tn)[0, :].copy()


def warp_outputs(r: Rung, warp: int) -> tuple[np.ndarray, np.ndarray]:
    tids = np.arange(warp * WARP, min((warp + 1) * WARP, r.threads))
    rows, cols = ladder.thread_outputs(r, tids)
    return rows.ravel(), cols.ravel()


def warp_region(r: Rung, warp: int) -> dict:
    """The bounding box of a warp's outputs and whether the warp fills it (compact)."""
    rows, cols = warp_outputs(r, warp)
    box = dict(row0=int(rows.min()), row1=int(rows.max()) + 1, col0=int(cols.min()), col1=int(cols.max()) + 1)
    box["rows"], box["cols"] = box["row1"] - box["row0"], box["col1"] - box["col0"]
    box["compact"] = box["rows"] * box["cols"] == rows.size
    return box


def warp_subtiles(r: Rung, warp: int) -> list[dict]:
    """Warp tiling: the warp's WMITER x WNITER sub-tiles of WSUBM x WSUBN (row0, col0, rows,
    cols inside the block tile); empty for the other rungs."""
    if r.layout != "warp":
        return []
    w = r.warp_dims
    wrow, wcol = warp // (r.BN // w["WN"]), warp % (r.BN // w["WN"])
    return [dict(row0=wrow * w["WM"] + i * w["WSUBM"], col0=wcol * w["WN"] + j * w["WSUBN"],
                 rows=w["WSUBM"], cols=w["WSUBN"]) for i in range(w["WMITER"]) for j in range(w["WNITER"])]


# The As / Bs slot (float index into one buffer) that holds element (m, k) of the A window /
# (k, n) of the B window: the kernels store where their compute loop reads.
as_slot = ladder.read_slot_a
bs_slot = ladder.read_slot_b


def copies(r: Rung, tid: int) -> dict:
    """The global-memory loads of thread ``tid`` in one phase: ``{"a": [(m, k), ...], "b": [(k, n),
    ...]}``, each the first of ``r.vector`` consecutive elements (along k for A, along n for B)
    that one instruction moves, in the order the kernel issues them."""
    v = r.vector
    la, lb = ladder.loader_a(r), ladder.loader_b(r)
    a = [(int(m), int(k)) for m, k in zip(*np.nonzero(la[:, ::v] == tid))]
    b = [(int(k), int(n)) for k, n in zip(*np.nonzero(lb[:, ::v] == tid))]
    a = sorted(((m, k * v) for m, k in a), key=lambda e: e[0] * r.BK + e[1])
    b = sorted(((k, n * v) for k, n in b), key=lambda e: e[0] * r.BN + e[1])
    return {"a": a, "b": b}


def shared_loads_per_k(r: Rung) -> dict:
    """Shared-memory load instructions and FMAs of one thread per step k of the compute loop."""
    tm, tn = r.thread_tile
    if r.layout == "1d":
        lds_a, lds_b, width = tm, 1, 4  # TM As reads straight into the FMAs, one Bs value in a register
    else:
        lds_a, lds_b, width = tm // r.vector, tn // r.vector, 4 * r.vector
    return {"lds_a": lds_a, "lds_b": lds_b, "lds": lds_a + lds_b, "bytes_per_lds": width, "fmas": tm * tn,
            "fma_per_lds": (tm * tn) / (lds_a + lds_b)}


def register_counts(r: Rung) -> dict:
    """Floats one thread keeps in registers for the arithmetic (not counting indices): the
    accumulators, the As / Bs values of one step k, and (double buffering) the staging registers
    that hold tile t+1 on its way from global memory."""
    tm, tn = r.thread_tile
    reg_m = 0 if r.layout == "1d" else tm
    reg_n = 1 if r.layout == "1d" else tn
    staging = (r.BM * r.BK + r.BK * r.BN) // r.threads if r.buffers == 2 else 0
    return {"acc": tm * tn, "acc_shape": (tm, tn), "regM": reg_m, "regN": reg_n, "staging": staging,
            "total": tm * tn + reg_m + reg_n + staging}


def block_tile_z(r: Rung, tid: int) -> np.ndarray:
    """(BM, BN) colour codes: the thread's outputs, its warp's, the other warps in stripes."""
    own = ladder.owner_map(r)
    z = (own // WARP) % 2
    z = np.where(own // WARP == tid // WARP, WARP_C, z)
    return np.where(own == tid, NOW_C, z)


def reads_z(r: Rung, tid: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(BM, BK) and (BK, BN) colour codes of the A and B windows: what thread ``tid`` (and its
    warp) reads from As / Bs at step ``k``, and at the other steps."""
    za = np.tile((np.arange(r.BK) % 2)[None, :], (r.BM, 1))
    zb = np.tile((np.arange(r.BK) % 2)[:, None], (1, r.BN))
    wr, wc = warp_outputs(r, tid // WARP)
    za[np.unique(wr), k] = WARP_C
    zb[k, np.unique(wc)] = WARP_C
    rows, cols = thread_reads(r, tid)
    za[rows, :] = THREAD_C
    zb[:, cols] = THREAD_C
    za[rows, k] = NOW_C
    zb[k, cols] = NOW_C
    return za, zb


def copies_z(r: Rung, tid: int) -> tuple[np.ndarray, np.ndarray]:
    """(BM, BK) and (BK, BN) colour codes: the elements thread ``tid`` copies (float4 groups when
    the rung loads 16 bytes), those of its warp, and the other groups in stripes."""
    v = r.vector
    la, lb = ladder.loader_a(r), ladder.loader_b(r)
    ga = np.arange(r.BM)[:, None] * (r.BK // v) + np.arange(r.BK)[None, :] // v  # instruction index
    gb = np.arange(r.BK)[:, None] * (r.BN // v) + np.arange(r.BN)[None, :] // v
    za, zb = ga % 2, gb % 2
    za = np.where(la // WARP == tid // WARP, WARP_C, za)
    zb = np.where(lb // WARP == tid // WARP, WARP_C, zb)
    return np.where(la == tid, NOW_C, za), np.where(lb == tid, NOW_C, zb)


def ranges(values) -> str:
    """'0–7, 32–39' for the sorted distinct values."""
    vals = sorted({int(v) for v in np.ravel(values)})
    out, start = [], None
    for i, v in enumerate(vals):
        if start is None:
            start = v
        if i + 1 == len(vals) or vals[i + 1] != v + 1:
            out.append(f"{start}" if start == v else f"{start}–{v}")
            start = None
    return ", ".join(out)


def rung_facts(r: Rung) -> dict:
    """The numbers page 08 states about a rung, all computed from :mod:`explainer.ladder`."""
    tm, tn = r.thread_tile
    lds = shared_loads_per_k(r)
    return {"file": r.file, "title": r.title, "BM": r.BM, "BN": r.BN, "BK": r.BK, "threads": r.threads,
            "warps": r.threads // WARP, "thread_tile": (tm, tn), "outputs": r.outputs_per_thread,
            "fma_per_lds": r.fma_per_lds, "lds_per_k": lds["lds"], "bytes_per_lds": lds["bytes_per_lds"],
            "shared_bytes": r.shared_bytes, "buffers": r.buffers, "barriers": r.barriers_per_phase,
            "intensity": r.intensity(), "vector": r.vector, "transposed": r.transposed, "pad": r.p["PAD"],
            "registers": register_counts(r), "warp_dims": r.warp_dims}


# --------------------------------------------------------------------------------------
# The widget
# --------------------------------------------------------------------------------------
def _heatmap(name: str, xaxis: str, yaxis: str) -> go.Heatmap:
    return go.Heatmap(name=name, z=[[0]], xaxis=xaxis, yaxis=yaxis, hoverongaps=False, **ZRANGE)


def _axis(title: str, **kw) -> dict:
    return dict(title=dict(text=title, font=dict(size=11)), showgrid=False, zeroline=False, ticks="", **kw)


def _swatch(c: int, text: str) -> str:
    return (f'<span style="display:inline-block;width:12px;height:12px;background:{PALETTE[c]};'
            f'border:1px solid #9ca3af;vertical-align:middle"></span> {html.escape(text)}&nbsp;&nbsp;')


class LadderExplorer:
    """One rung of the ladder, one thread: its outputs in the block tile, its reads of As / Bs
    (or everyone's global -> shared copies), its warp (tile), its registers.

    ``LadderExplorer(rung="warptile", thread=0)``; display ``.widget``.
    """

    def __init__(self, rung: str = "blocktile_1d", thread: int = 0, k: int = 0, mode: str = "reads"):
        self._busy = False
        self.r = ladder.rung(rung)
        self.tid = check_thread(self.r, thread)
        self.k = int(k)
        self.mode = mode
        self.w_rung = W.ToggleButtons(options=[(rung_label(x), x.name) for x in RUNGS], value=self.r.name,
                                      style={"button_width": "196px"})
        self.w_rung.add_class("explainer-ladder-rung")
        st = {"description_width": "140px"}
        self.w_thread = W.IntText(value=self.tid, description="thread: threadIdx.x", style=st,
                                  layout=W.Layout(width="250px"))
        self.w_k = W.IntSlider(value=self.k, min=0, max=self.r.BK - 1, description="step k in the tile",
                               style=st, layout=W.Layout(width="330px"), continuous_update=False)
        self.w_mode = W.ToggleButtons(options=[(v, k_) for k_, v in MODES.items()], value=mode,
                                      style={"button_width": "250px"})
        self.w_error = W.HTML()
        self.w_error.add_class("explainer-ladder-error")
        self.w_info = W.HTML()
        self.w_info.add_class("explainer-ladder-info")
        self.w_registers = W.HTML()
        self.w_registers.add_class("explainer-ladder-registers")
        self.w_copies = W.HTML()
        self.w_legend = W.HTML()
        self.fig = Figure()
        self.fig.add_trace(_heatmap("As", "x", "y"))
        self.fig.add_trace(_heatmap("Bs", "x2", "y2"))
        self.fig.add_trace(_heatmap("C tile", "x3", "y3"))
        self.fig.update_layout(
            margin=dict(l=60, r=10, t=30, b=40), plot_bgcolor="white", font=FONT, showlegend=False,
            xaxis=_axis("k", anchor="y"), yaxis=_axis("m (row of the block tile)", anchor="x", autorange="reversed"),
            xaxis2=_axis("", anchor="y2", side="top"), yaxis2=_axis("k", anchor="x2", autorange="reversed"),
            xaxis3=_axis("n (column of the block tile)", anchor="y3", matches="x2"),
            yaxis3=_axis("", anchor="x3", autorange="reversed", matches="y"),
        )
        self.fig.data[2].on_click(self._on_click_c)
        self.w_rung.observe(self._on_rung, names="value")
        self.w_thread.observe(self._on_thread, names="value")
        self.w_k.observe(self._on_k, names="value")
        self.w_mode.observe(self._on_mode, names="value")
        self._draw(rung_changed=True)
        sync_figure(self.fig)
        self.widget = W.VBox([
            runtime(),
            self.w_rung,
            W.HBox([self.w_thread, self.w_k]),
            self.w_mode,
            self.w_error,
            self.w_info,
            W.HBox([self.fig, W.VBox([self.w_registers, self.w_copies], layout=W.Layout(max_width="520px"))]),
            self.w_legend,
        ])
        self.widget.add_class("explainer-ladder-view")

    # ---- events ------------------------------------------------------------------------------
    def _fail(self, e: Exception) -> None:
        self.w_error.value = f'<span style="color:#b91c1c">⚠ {html.escape(str(e).splitlines()[0])}</span>'

    def _on_rung(self, change):
        if not self._busy:
            self.select(rung=change["new"])

    def _on_thread(self, change):
        if not self._busy:
            self.select(thread=change["new"])

    def _on_k(self, change):
        if not self._busy:
            self.select(k=change["new"])

    def _on_mode(self, change):
        if not self._busy:
            self.select(mode=change["new"])

    def _on_click_c(self, trace, points, state):
        if points.xs:
            n, m = int(points.xs[0]), int(points.ys[0])
            self.select(thread=int(ladder.owner_map(self.r)[m, n]))

    def select(self, rung: str | None = None, thread: int | None = None, k: int | None = None,
               mode: str | None = None) -> bool:
        """Show ``rung`` / ``thread`` / step ``k`` / ``mode``; on bad input show one line, put the
        controls back to the last good state and return False. A new rung keeps the thread when
        it exists there (else thread 0)."""
        try:
            r = ladder.rung(rung) if rung is not None else self.r
            if thread is None:
                tid = self.tid if self.tid < r.threads else 0
            else:
                tid = check_thread(r, thread)
            kk = self.k if k is None else int(k)
            if not 0 <= kk < r.BK:
                raise ValueError(f"step k must be 0..{r.BK - 1} (BK = {r.BK}), got {kk}")
            md = self.mode if mode is None else mode
            if md not in MODES:
                raise ValueError(f"mode must be one of {', '.join(MODES)}, got {md!r}")
        except ValueError as e:
            self._fail(e)
            self._sync_controls()
            return False
        changed = r is not self.r
        self.r, self.tid, self.k, self.mode = r, tid, kk, md
        self.w_error.value = ""
        self._draw(rung_changed=changed)
        return True

    def _sync_controls(self):
        """Make the controls show the current state, without re-entering :meth:`select`."""
        self._busy = True
        try:
            self.w_rung.value = self.r.name
            self.w_thread.value = self.tid
            self.w_mode.value = self.mode
            self.w_k.max = self.r.BK - 1
            self.w_k.value = self.k
        finally:
            self._busy = False

    # ---- drawing -----------------------------------------------------------------------------
    def _layout(self) -> dict:
        """Axis domains and figure size: the C tile in proportion, As left of it, Bs above it."""
        r = self.r
        s = min(500 / r.BN, 500 / r.BM)  # pixels per cell of the block tile
        wc, hc = s * r.BN, s * r.BM
        wa = hb = max(70.0, s * r.BK)
        gap = 14.0
        W_, H_ = wa + gap + wc, hb + gap + hc
        return dict(width=int(W_ + 70), height=int(H_ + 70),
                    x_a=[0, wa / W_], x_c=[(wa + gap) / W_, 1.0], y_c=[0, hc / H_], y_b=[(hc + gap) / H_, 1.0])

    def _draw(self, rung_changed: bool = False):
        r, tid, k = self.r, self.tid, self.k
        self._sync_controls()
        own = ladder.owner_map(r)
        zc = block_tile_z(r, tid)
        za, zb = reads_z(r, tid, k) if self.mode == "reads" else copies_z(r, tid)
        la, lb = ladder.loader_a(r), ladder.loader_b(r)
        m, kk = np.meshgrid(np.arange(r.BM), np.arange(r.BK), indexing="ij")
        sa = as_slot(r, m, kk)
        k2, n2 = np.meshgrid(np.arange(r.BK), np.arange(r.BN), indexing="ij")
        sb = bs_slot(r, k2, n2)
        as_name = "As[k·%d + m]" % r.lda if r.transposed else "As[m·%d + k]" % r.BK
        with self.fig.batch_update():
            a, b, c = self.fig.data
            a.z, b.z, c.z = za.tolist(), zb.tolist(), zc.tolist()
            if rung_changed:
                lay = self._layout()
                a.customdata = np.stack([la, sa, sa % 32], axis=-1).tolist()
                b.customdata = np.stack([lb, sb, sb % 32], axis=-1).tolist()
                c.customdata = own.tolist()
                a.hovertemplate = (f"A window (m=%{{y}}, k=%{{x}}) → {as_name} = slot %{{customdata[1]}}, "
                                   "bank %{customdata[2]} · copied by thread %{customdata[0]}<extra></extra>")
                b.hovertemplate = (f"B window (k=%{{y}}, n=%{{x}}) → Bs[k·{r.BN} + n] = slot %{{customdata[1]}}, "
                                   "bank %{customdata[2]} · copied by thread %{customdata[0]}<extra></extra>")
                c.hovertemplate = "C tile (m=%{y}, n=%{x}) · computed by thread %{customdata}<extra></extra>"
                gap = 1 if max(r.BM, r.BN) <= 64 else 0
                for t in (a, b, c):
                    t.xgap = t.ygap = gap
                L = self.fig.layout
                L.width, L.height = lay["width"], lay["height"]
                L.xaxis.domain, L.xaxis3.domain, L.xaxis2.domain = lay["x_a"], lay["x_c"], lay["x_c"]
                L.yaxis3.domain, L.yaxis.domain, L.yaxis2.domain = lay["y_c"], lay["y_c"], lay["y_b"]
                L.xaxis.title.text = f"As: k (BK = {r.BK})"
                L.yaxis.title.text = f"m: row of the block tile (BM = {r.BM})"
                L.yaxis2.title.text = "Bs: k"
                L.xaxis3.title.text = f"n: column of the block tile (BN = {r.BN})"
                L.title = dict(text=f"{html.escape(rung_label(r))}: block tile {r.BM}×{r.BN}, As {r.BM}×{r.BK}, "
                                    f"Bs {r.BK}×{r.BN}", font=dict(size=12), x=0.01, y=0.995, yanchor="top")
            self.fig.layout.shapes = self._shapes()
        self.w_info.value = self._info()
        self.w_registers.value = self._registers()
        self.w_copies.value = self._copies()
        self.w_legend.value = self._legend()

    def _shapes(self) -> list[dict]:
        """The warp's region (warp tile) and its sub-tiles, drawn on the C tile."""
        r, warp = self.r, self.tid // WARP
        box = warp_region(r, warp)
        out = [dict(type="rect", xref="x3", yref="y3", x0=box["col0"] - 0.5, x1=box["col1"] - 0.5,
                    y0=box["row0"] - 0.5, y1=box["row1"] - 0.5, line=dict(color="#1d4ed8", width=2))]
        for t in warp_subtiles(r, warp):
            out.append(dict(type="rect", xref="x3", yref="y3", x0=t["col0"] - 0.5, x1=t["col0"] + t["cols"] - 0.5,
                            y0=t["row0"] - 0.5, y1=t["row0"] + t["rows"] - 0.5,
                            line=dict(color="#1d4ed8", width=1, dash="dot")))
        return out

    def _info(self) -> str:
        r, tid = self.r, self.tid
        f = rung_facts(r)
        warp, lane = warp_lane(tid)
        rows, cols = thread_reads(r, tid)
        box = warp_region(r, warp)
        lds = shared_loads_per_k(r)
        tm, tn = f["thread_tile"]
        wd = r.warp_dims
        if r.layout == "warp":
            wt = (f"warp {warp} owns the warp tile rows {box['row0']}–{box['row1'] - 1}, columns {box['col0']}–"
                  f"{box['col1'] - 1} ({wd['WM']}×{wd['WN']}), cut into {wd['WMITER']}×{wd['WNITER']} sub-tiles of "
                  f"{wd['WSUBM']}×{wd['WSUBN']} (dotted); in each, the 32 lanes form a {wd['WSUBM'] // r['TM']}×"
                  f"{wd['WSUBN'] // r['TN']} grid of {r['TM']}×{r['TN']} micro-tiles")
        else:
            wt = (f"warp {warp} covers rows {box['row0']}–{box['row1'] - 1}, columns {box['col0']}–{box['col1'] - 1} "
                  f"of the block tile ({box['rows']}×{box['cols']}{'' if box['compact'] else ', not all of it'})")
        kind = f"LDS.{32 * r.vector}" if r.layout != "1d" else "LDS.32"
        per_k = (f"{lds['lds_a']} As loads (straight into the FMAs) + {lds['lds_b']} Bs load (into a register)"
                 if r.layout == "1d" else f"{lds['lds_a']} As + {lds['lds_b']} Bs loads ({kind}, {lds['bytes_per_lds']} B each)")
        return (
            f"<div style='font-size:14px;line-height:1.5'><b>{html.escape(rung_label(r))}</b> "
            f"(<code>kernels/{html.escape(r.file)}</code>): block tile {r.BM}×{r.BN}, BK = {r.BK}; "
            f"{r.threads} threads = {f['warps']} warps; each thread owns {tm}×{tn} = <b>{f['outputs']}</b> outputs. "
            f"Per step k a thread does {lds['fmas']} FMAs for {per_k}: <b>{f['fma_per_lds']:.2f} FMAs per shared "
            f"load</b>. Shared memory {f['shared_bytes']:,} B per block ({r.buffers} buffer{'s' if r.buffers > 1 else ''}"
            f"{', As transposed' if r.transposed else ''}{', rows padded by ' + str(f['pad']) if f['pad'] else ''}); "
            f"{f['barriers']} barrier{'s' if f['barriers'] > 1 else ''} per phase; DRAM intensity "
            f"{f['intensity']:.1f} FLOP/B.<br>"
            f"<b>thread {tid}</b> = warp {warp}, lane {lane}: outputs in rows {ranges(rows)} × columns {ranges(cols)} "
            f"of the block tile; {wt}.</div>")

    def _registers(self) -> str:
        r, tid, k = self.r, self.tid, self.k
        rows, cols = thread_reads(r, tid)
        rc = register_counts(r)
        td = "padding:1px 3px;border:1px solid #e5e7eb;text-align:center;white-space:nowrap"
        hd = td + ";background:#fdba74"
        a_of = f"As[{k}·{r.lda} + m]" if r.transposed else f"As[m·{r.BK} + {k}]"
        if r.layout == "1d":
            head = f"<th style='{td}'>m</th><th style='{hd}'>b: n={cols[0]}</th>"
            body = "".join(f"<tr><th style='{hd}'>{m}</th><td style='{td}'>acc[{i}]</td></tr>" for i, m in enumerate(rows))
            counts = f"acc[{rc['acc']}] and one register b = Bs[{k}·{r.BN} + {cols[0]}]; the {len(rows)} values {a_of} are read straight from shared memory"
        else:
            head = f"<th style='{td}'>m \\ n</th>" + "".join(f"<th style='{hd}'>{n}</th>" for n in cols)
            body = "".join(f"<tr><th style='{hd}'>{m}</th>" + "".join(f"<td style='{td}'>{i},{j}</td>" for j in range(len(cols)))
                           + "</tr>" for i, m in enumerate(rows))
            tm, tn = rc["acc_shape"]
            counts = (f"acc[{tm}][{tn}] = {rc['acc']}, regM[{rc['regM']}] (regM[i] = {a_of}, m in the left column), "
                      f"regN[{rc['regN']}] (regN[j] = Bs[{k}·{r.BN} + n], n in the top row)")
        if rc["staging"]:
            counts += f", staging ra/rb: {rc['staging']} floats (tile t+1 on its way)"
        what = ("cell: acc[i] accumulates As[m][k]·b into C(m, n)" if r.layout == "1d" else
                "cell i,j: acc[i][j] += regM[i]·regN[j], the C element (m, n) of the block tile")
        return (f"<div style='font-size:12px'><b>Registers of thread {tid}</b> at step k={k}: {counts}; "
                f"{rc['total']} floats in all. {what}.</div>"
                f"<div style='max-height:330px;max-width:500px;overflow:auto'><table style='font-size:10px;"
                f"border-collapse:collapse'><tr>{head}</tr>{body}</table></div>")

    def _copies(self) -> str:
        r, tid = self.r, self.tid
        cp = copies(r, tid)
        v = r.vector
        op = "LDG.128 (float4)" if v == 4 else "LDG.32"

        def a_line(m, k):
            el = f"A[row0+{m}][k0+{k}]" if v == 1 else f"A[row0+{m}][k0+{k}..{k + 3}]"
            slots = as_slot(r, m, np.arange(k, k + v))
            dst = ", ".join(f"As[{s}]" for s in slots) + f" (bank{'s' if v > 1 else ''} {', '.join(str(s % 32) for s in slots)})"
            return f"{el} → {dst}"

        def b_line(k, n):
            el = f"B[k0+{k}][col0+{n}]" if v == 1 else f"B[k0+{k}][col0+{n}..{n + 3}]"
            s = int(bs_slot(r, k, n))
            return f"{el} → Bs[{s}{'..' + str(s + 3) if v > 1 else ''}]" + (" (one STS.128)" if v > 1 else "")

        lines = [a_line(*e) for e in cp["a"]] + [b_line(*e) for e in cp["b"]]
        note = ("each float4 of A is one 16-byte load along k, written to 4 rows of the transposed As "
                "(4 scalar stores)" if r.transposed else "one element per load instruction")
        return (f"<div style='font-size:12px;margin-top:6px'><b>Copies of thread {tid} per phase</b> "
                f"({len(cp['a'])} + {len(cp['b'])} {op}; {note}):<br>" + "<br>".join(html.escape(x) for x in lines) + "</div>")

    def _legend(self) -> str:
        if self.mode == "reads":
            items = [(NOW_C, f"thread {self.tid}: its outputs; its As / Bs reads at step k"), (THREAD_C, "its reads at the other k"),
                     (WARP_C, "its warp (outputs; reads at step k)"), (OTHER_EVEN, "other warps / k (striped)")]
        else:
            items = [(NOW_C, f"thread {self.tid}: its outputs; the elements it copies"),
                     (WARP_C, "its warp's outputs and copies"),
                     (OTHER_EVEN, f"other {'float4s' if self.r.vector == 4 else 'elements'} (striped)")]
        return ("<div style='font-size:12px'>" + "".join(_swatch(c, t) for c, t in items)
                + " Blue frame: the warp's region (dotted: warp sub-tiles). Click a cell of the C tile to pick its "
                  "thread.</div>")


def as_store_conflict(r: Rung) -> int:
    """The worst bank conflict (distinct words sharing one bank) of one warp-wide store into As
    in the copy loop: with As transposed, lanes that copy the same row m of A at different k
    store into one column of As, words ``4·LDA`` apart, the same bank unless As is padded."""
    v = r.vector
    la = ladder.loader_a(r)
    worst = 1
    m, k = np.meshgrid(np.arange(r.BM), np.arange(r.BK), indexing="ij")
    for q in range(-(-(r.BM * r.BK // v) // r.threads)):  # copy rounds: instruction i = tid + q·threads
        inst = m * (r.BK // v) + k // v
        for c in range(v):  # the c-th scalar store of each float4 (one instruction per c)
            sel = (inst // r.threads == q) & (k % v == c)
            for w in range(r.threads // WARP):
                lanes = sel & (la // WARP == w)
                words = np.unique(as_slot(r, m[lanes], k[lanes]))
                if words.size:
                    worst = max(worst, int(np.bincount(words % 32).max()))
    return worst
