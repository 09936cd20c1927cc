"""Widgets of the performance pages (05-07): the occupancy calculator and the roofline figure
(the warp / coalescing explorer is a browser view: :mod:`explainer.views.warps`). Every number comes from :mod:`explainer.model.memory`,
:mod:`explainer.model.hardware`, :mod:`explainer.model.roofline` or a recorded file."""

from __future__ import annotations

import html
import math
from functools import lru_cache

import ipywidgets as W
import numpy as np

from .. import i18n, resources
from ..i18n import N_, _
from ..model import WARP_SIZE, Launch, hardware, roofline
from .payload import pack
from .store import STATIC_BUDGET, BrowserView, keyed_store
from .plotly_widget import Figure
from .stepper import sync_figure
from .common import SANS, tile_shade

FONT = dict(family=SANS)
TD = "padding:2px 8px;text-align:right;border-bottom:1px solid #e5e7eb"
TH = "padding:2px 8px;text-align:right;border-bottom:2px solid #9ca3af"


def table(head, rows, caption: str = "", cls: str = "") -> str:
    """A small HTML table; cells are escaped unless they are ``("html", text)``."""
    def cell(c, tag, style):
        text = c[1] if isinstance(c, tuple) and c and c[0] == "html" else html.escape(str(c))
        return f"<{tag} style='{style}'>{text}</{tag}>"

    h = "".join(cell(c, "th", TH) for c in head)
    b = "".join("<tr>" + "".join(cell(c, "td", TD) for c in r) + "</tr>" for r in rows)
    cap = f"<caption style='caption-side:bottom;font-size:12px;color:#4b5563;text-align:left'>{caption}</caption>" if caption else ""
    return f"<table class='{cls}' style='font-size:13px;border-collapse:collapse;margin:4px 0'><tr>{h}</tr>{b}{cap}</table>"


def verdict(sectors: int, ideal: int) -> tuple:
    if sectors <= ideal:
        return ("html", f"<span style='color:#047857'>{_('coalesced')}</span>")
    return ("html", f"<span style='color:#b91c1c'>{_('{times}× the ideal', times=f'{sectors / ideal:.0f}')}</span>")


# --------------------------------------------------------------------------------------
# Occupancy calculator
# --------------------------------------------------------------------------------------
#: What the result names each resource, and the caption under its table (live and static alike);
#: marked for the catalogue, shown with _().
RESOURCE_NAMES = {"threads": N_("warps (threads) per SM"), "blocks": N_("resident blocks per SM"),
                  "shared": N_("shared memory per SM"), "registers": N_("registers per SM")}
RESULT_CAPTION = ("Each resource alone allows this many blocks; the SM holds the smallest. "
                  "Rules of the CUDA Occupancy Calculator, limits from explainer/data/arches.json.")
KEPT = " (the result below is for the last values that worked)"
#: The result's first line, here and in occupancy.js (the same msgid: tr() there).
RESULT_LINE = ("<b>{blocks} block(s) per SM</b> = {warps} warps = {threads} threads; occupancy <b>{percent}</b>; "
               "limited by <b>{resource}</b>.")


def occupancy_html(o: hardware.Occupancy) -> str:
    """The calculator's answer for one :class:`~explainer.model.hardware.Occupancy` (``occupancy.js``
    writes the same for a static page, from the table of :func:`occupancy_table`)."""
    rows = [(_(RESOURCE_NAMES[r]), o.limits[r], _("◀ limiter") if r == o.limiter else "")
            for r in hardware.RESOURCES if r in o.limits]
    return (
        "<div style='font-size:15px;margin:4px 0'>"
        + _(RESULT_LINE, blocks=o.blocks_per_sm, warps=o.active_warps, threads=o.active_threads,
            percent=f"{o.occupancy:.0%}", resource=html.escape(_(RESOURCE_NAMES[o.limiter]))) + "</div>"
        + table((_("resource"), _("blocks it allows"), ""), rows, html.escape(_(RESULT_CAPTION))))


class OccupancyCalculator:
    """threads per block, shared bytes per block, registers per thread -> blocks per SM, limiter.

    The fields take any whole number: a value the architecture does not allow is not clamped
    silently but refused with one line that says why (``w_error``), and the last good result
    stays shown until an input succeeds again (``result``: the last good one).

    An exported static page has no Python to ask: there :meth:`static_view` stands in, a browser
    view that looks the answer up in the table :func:`occupancy_table` computed with the same
    model, for the values its menus offer."""

    def __init__(self, arch="hopper", threads=256, smem=2048, regs=32):
        # The labels at their own width: a fixed description width cuts the longer ones off.
        st = {"description_width": "initial"}
        self.w_arch = W.Dropdown(options=[(a["label"], k) for k, a in hardware.arches().items()], value=arch,
                                 description=_("architecture"), style=st, layout=W.Layout(width="420px"))
        self.w_threads = W.IntText(value=threads, description=_("threads / block"), style=st,
                                   layout=W.Layout(width="220px"))
        self.w_smem = W.IntText(value=smem, description=_("shared bytes / block"), style=st,
                                layout=W.Layout(width="260px"))
        self.w_regs = W.IntText(value=regs, description=_("registers / thread (0: ignore)"), style=st,
                                layout=W.Layout(width="320px"))
        self.w_error = W.HTML()
        self.w_error.add_class("explainer-error")
        self.w_out = W.HTML()
        self.w_out.add_class("explainer-occupancy-out")
        self.result = None
        for w in (self.w_arch, self.w_threads, self.w_smem, self.w_regs):
            w.observe(lambda _: self.update(), names="value")
        self.update()
        self.widget = W.VBox([self.w_arch, W.HBox([self.w_threads, self.w_smem, self.w_regs]), self.w_error, self.w_out])
        self.widget.add_class("explainer-occupancy")

    def update(self):
        try:
            if self.w_regs.value < 0:
                raise hardware.OccupancyError(_("registers per thread must be 0 (ignore) or more, got {value}",
                                                value=self.w_regs.value))
            o = hardware.occupancy(self.w_arch.value, self.w_threads.value, self.w_smem.value,
                                   self.w_regs.value or None)
        except hardware.OccupancyError as e:
            kept = _(KEPT) if self.result is not None else ""
            self.w_error.value = f'<span style="color:#b91c1c">⚠ {html.escape(str(e))}{kept}</span>'
            return
        self.w_error.value = ""
        self.result = o
        self.w_out.value = occupancy_html(o)

    def static_view(self) -> "OccupancyView":
        """The calculator of an exported static page, starting at this calculator's values."""
        view = OccupancyView()
        start = {"arch": self.w_arch.value, "threads": self.w_threads.value, "smem": self.w_smem.value,
                 "regs": self.w_regs.value}
        view.static_store = lambda budget=STATIC_BUDGET: occupancy_store(start, budget)
        return view


# ---- the static page's table ---------------------------------------------------------------
#: Threads per block a static page offers: whole warps, up to every preset's 1024.
OFFERED_THREADS = tuple(range(WARP_SIZE, 1024 + 1, WARP_SIZE))
#: Shared bytes per block a static page offers (with each preset's own maximum): the tiled kernel's
#: 512, 2,048 and 8,192 bytes (T = 8, 16, 32), then steps that roughly double.
OFFERED_SHARED = (0, 512, 1024, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768, 49152, 65536,
                  98304, 131072, 163840, 196608)


def offered_values() -> dict[str, tuple[int, ...]]:
    """The inputs a static page's calculator offers: threads in whole warps, the shared bytes of
    :data:`OFFERED_SHARED` and each preset's maximum, registers per thread in the allocation
    granularity (a warp's registers are allocated in units of ``reg_alloc_unit``: 256 = 8 per
    thread) and each preset's maximum; 0 registers: not counted."""
    a = hardware.arches().values()
    step, top = reg_step(), max(x["max_regs_per_thread"] for x in a)
    return {"threads": OFFERED_THREADS,
            "smem": tuple(sorted(set(OFFERED_SHARED) | {x["max_shared_per_block"] for x in a})),
            "regs": tuple(sorted({0, *range(step, top + 1, step)} | {x["max_regs_per_thread"] for x in a}))}


def reg_step() -> int:
    """Registers per thread that make one allocation unit of a warp's registers on the presets
    that allocate in the largest units (256 registers a warp: 8 a thread)."""
    return max(x["reg_alloc_unit"] for x in hardware.arches().values()) // WARP_SIZE


def _largest_unit() -> list[str]:
    """The presets that allocate registers in :func:`reg_step`'s units, by name."""
    return [k.capitalize() for k, a in hardware.arches().items() if a["reg_alloc_unit"] == reg_step() * WARP_SIZE]


def _words(names: list[str]) -> str:
    return names[0] if len(names) == 1 else _("{names} and {last}", names=", ".join(names[:-1]), last=names[-1])


def occupancy_table(threads=None, smem=None, regs=None) -> tuple[dict, dict[str, np.ndarray]]:
    """:func:`_occupancy_table` in the current language (its words are part of the answer)."""
    return _occupancy_table(threads, smem, regs, i18n.language())


@lru_cache(maxsize=8)
def _occupancy_table(threads=None, smem=None, regs=None, lang: str = "en") -> tuple[dict, dict[str, np.ndarray]]:
    """``(meta, arrays)``: :func:`explainer.model.hardware.occupancy` for every architecture
    preset and every combination of the offered ``threads`` / ``smem`` / ``regs`` (default:
    :func:`offered_values`; 0 registers: not counted), as tables the browser only looks up.

    ``cell[a, t, s, r]`` (``a``: preset, ``t`` / ``s`` / ``r``: index into the offered values)
    is an index into ``meta["outcomes"][a]``: ``[blocks per SM, limiter]``, or the model's
    one-line refusal. The rest of the answer, by what it depends on: ``warps`` / ``active`` /
    ``percent`` ``[a, t, blocks]`` (the resident warps and threads and the occupancy as
    ``f"{occupancy:.0%}"`` says it), the blocks each resource alone allows: ``lim_threads[a, t]``,
    ``lim_blocks[a]``, ``lim_shared[a, s]``, ``lim_regs[a, t, r]`` (-1: not counted)."""
    offered = offered_values()
    threads, smem, regs = (tuple(v if v is not None else offered[k])
                           for k, v in (("threads", threads), ("smem", smem), ("regs", regs)))
    names = list(hardware.arches())
    A, T, S, R = len(names), len(threads), len(smem), len(regs)
    most = max(x["max_blocks_per_sm"] for x in hardware.arches().values())
    cell = np.zeros((A, T, S, R), np.uint8)
    warps, active, percent = (np.full((A, T, most + 1), -1, np.int16) for _ in range(3))
    lim_threads, lim_blocks = np.full((A, T), -1, np.int16), np.full(A, -1, np.int16)
    lim_shared, lim_regs = np.full((A, S), -1, np.int16), np.full((A, T, R), -1, np.int16)
    outcomes = []

    def put(arr, at, value):  # one value per place, whichever cell it comes from
        if arr[at] not in (-1, value):
            raise AssertionError(f"occupancy table: {value} and {arr[at]} at {at}")
        arr[at] = value

    for a, name in enumerate(names):
        codes: dict = {}
        for t, n in enumerate(threads):
            for s, sb in enumerate(smem):
                for r, rg in enumerate(regs):
                    try:
                        o = hardware.occupancy(name, n, sb, rg or None)
                        key = (o.blocks_per_sm, o.limiter)
                    except hardware.OccupancyError as e:
                        o, key = None, str(e)
                    cell[a, t, s, r] = codes.setdefault(key, len(codes))
                    if o is None:
                        continue
                    b = o.blocks_per_sm
                    put(warps, (a, t, b), o.active_warps)
                    put(active, (a, t, b), o.active_threads)
                    put(percent, (a, t, b), int(f"{o.occupancy:.0%}".rstrip("%")))
                    put(lim_threads, (a, t), o.limits["threads"])
                    put(lim_blocks, a, o.limits["blocks"])
                    if "shared" in o.limits:
                        put(lim_shared, (a, s), o.limits["shared"])
                    if "registers" in o.limits:
                        put(lim_regs, (a, t, r), o.limits["registers"])
        if len(codes) > 256:
            raise ValueError(f"occupancy table: {len(codes)} outcomes on {name}, more than a byte holds")
        outcomes.append([list(k) if isinstance(k, tuple) else k for k in codes])
    arrays = {"cell": cell, "warps": warps, "active": active, "percent": percent.astype(np.int8),
              "lim_threads": lim_threads, "lim_blocks": lim_blocks, "lim_shared": lim_shared, "lim_regs": lim_regs}
    meta = {
        "view": "occupancy",
        "arches": [[k, hardware.arch(k)["label"]] for k in names],
        "threads": list(threads), "smem": list(smem), "regs": list(regs),
        "outcomes": outcomes, "resources": list(hardware.RESOURCES),
        "names": {k: _(v) for k, v in RESOURCE_NAMES.items()},
        "caption": _(RESULT_CAPTION), "kept": _(KEPT), "styles": {"td": TD, "th": TH},
        "offer": _("This static page holds the answers for the values in these menus, on every architecture: "
                   "threads / block in whole warps ({first} to {last}), shared bytes / block up to {smem}, registers / "
                   "thread in steps of {step} (a warp's registers are allocated {unit} at a time on {arches}) and each "
                   "architecture's maximum. Other values need {where}.", first=threads[0], last=threads[-1],
                   smem=f"{smem[-1]:,}", step=reg_step(), unit=reg_step() * WARP_SIZE, arches=_words(_largest_unit()),
                   where=_(_ELSEWHERE)),
        # {field}, {value} and {values} are filled in the browser (occupancy.js)
        "refuse": _("{field} {value} is not in this static page's table, which holds {values}; other values need "
                    "{where}.", where=_(_ELSEWHERE)),
    }
    return meta, arrays


#: Where a static page sends a student for what it does not hold; a page exported with a live twin
#: (``export --live-prefix``, what serve uses) says :data:`ELSEWHERE_SERVED` instead.
_ELSEWHERE = N_("the live app (tiled-explainer serve) or JupyterLab")
_ELSEWHERE_SERVED = N_("the live page (link at the top)")


def __getattr__(name: str) -> str:
    """``ELSEWHERE`` / ``ELSEWHERE_SERVED``: those lines in the current language (the export
    swaps one for the other in the page's own language)."""
    if name in ("ELSEWHERE", "ELSEWHERE_SERVED"):
        return _(globals()["_" + name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def occupancy_store(start: dict, budget: int = STATIC_BUDGET) -> dict:
    """What an exported page embeds for its calculator (:func:`explainer.views.store.keyed_store`'s
    form: one payload, the table of :func:`occupancy_table` holding the page's own values too),
    starting at ``start`` (``arch`` / ``threads`` / ``smem`` / ``regs``)."""
    offered = offered_values()
    extra = {k: tuple(sorted(set(offered[k]) | {int(start[k])})) for k in ("threads", "smem", "regs")
             if int(start[k]) >= 0 and int(start[k]) not in offered[k]}
    meta, arrays = occupancy_table(**extra)
    meta = {**meta, "initial": {k: (start[k] if k == "arch" else int(start[k])) for k in ("arch", "threads", "smem", "regs")}}
    meta["arrays"], buf = pack(arrays)
    if len(buf) > budget:
        raise ValueError(f"the occupancy table takes {len(buf):,} bytes, over the page's budget of {budget:,}")
    return keyed_store(lambda _: (dict(meta), buf), [], "occupancy", budget)


class OccupancyView(BrowserView):
    """The occupancy calculator of an exported static page (``common.js`` + ``occupancy.js``): it
    looks answers up in the table :func:`occupancy_store` embeds; nothing to ask Python."""

    NAME = "occupancy"
    FRONT_END = ("common.js", "occupancy.js")
    _esm = resources.front_end(*FRONT_END)


# --------------------------------------------------------------------------------------
# Roofline
# --------------------------------------------------------------------------------------
KERNEL_COLORS = {"naive": "#f59e0b", "naive_col": "#ef4444", "tiled": "#3b82f6", "tiled_register_copy": "#10b981",
                 "tiled_dynamic": "#6366f1"}


def roofline_points(timing: dict | None, n: int = 4096, device: dict | None = None) -> list[dict]:
    """One point per kernel/tile at M=N=K=n: the model's intensity, the recorded GFLOP/s, and where
    Nsight Compute measured the DRAM bytes, the intensity against the bytes DRAM really moved."""
    if not timing:
        return []
    from ..gpu import recorded

    ncu = {}
    for run in (device or {}).get("ncu", {}).get("runs", []):
        m = run["metrics"]
        ncu[(run["kernel"], run["tile"], run["M"])] = m["dram__bytes_read.sum"] + m["dram__bytes_write.sum"]
    pts = []
    for r in recorded.recorded_rows(timing, size=n):
        if r["kernel"] not in ("naive", "naive_col", "tiled"):
            continue
        L = Launch(r["kernel"], n, n, n, r["tile"])
        s = L.stats()
        dram = ncu.get((r["kernel"], r["tile"], n))
        pts.append({"kernel": r["kernel"], "tile": r["tile"], "N": n, "flop_per_byte": s["flop_per_byte"],
                    "gflops": r["gflops"], "model_bytes": 4 * s["global_loads"], "dram_bytes": dram,
                    "dram_flop_per_byte": s["flops"] / dram if dram else None})
    return pts


def roofline_figure(roofs: dict, points: list[dict], title: str = "") -> Figure:
    """The roofline and the ``points`` of :func:`roofline_points`: per kernel, one series of
    circles (the model's bytes) and one of dotted lines to open diamonds (the bytes DRAM moved,
    where Nsight Compute measured them), its block sizes T in shades of its colour (lighter for the
    smaller T, as in the timing panel). The legend has an entry per series, grouped by kernel;
    each point's hover text names its kernel and T."""
    peak, bw = roofs["peak_gflops"], roofs["bandwidth_gbs"]
    xs = np.logspace(-2, 3, 200)
    fig = Figure(layout=dict(
        height=460, width=780, font=FONT, plot_bgcolor="white", margin=dict(l=70, r=10, t=50, b=50),
        xaxis=dict(type="log", title=_("arithmetic intensity, FLOP per byte of DRAM traffic"), gridcolor="#e5e7eb"),
        yaxis=dict(type="log", title="GFLOP/s", gridcolor="#e5e7eb"),
        legend=dict(font=dict(size=11), tracegroupgap=6),
        title=dict(text=html.escape(title), font=dict(size=12), x=0.01)))
    fig.add_scatter(x=xs.tolist(), y=[min(peak, x * bw) for x in xs], mode="lines", name=_("roofline"),
                    line=dict(color="#111827", width=2),
                    hovertemplate=_("%{x:.3g} FLOP/B → bound %{y:,.0f} GFLOP/s<extra></extra>"))
    kernels = list(dict.fromkeys(p["kernel"] for p in points))
    for kernel in kernels:
        # the largest T first: the legend draws a series' symbol in its first point's colour
        pts = sorted((p for p in points if p["kernel"] == kernel), key=lambda p: -p["tile"])
        tiles = sorted(p["tile"] for p in pts)
        base = KERNEL_COLORS.get(kernel, "#6b7280")
        shade = {p["tile"]: tile_shade(base, p["tile"], tiles) for p in pts}
        ts = ", ".join(map(str, tiles))
        group = dict(legendgroup=kernel, legendgrouptitle=dict(
            text=_("{kernel}: T = {tiles} (light → dark)", kernel=kernel, tiles=ts) if len(tiles) > 1
            else f"{kernel}: T = {ts}"))
        fig.add_scatter(
            x=[p["flop_per_byte"] for p in pts], y=[p["gflops"] for p in pts], mode="markers",
            name=_("model bytes"), **group,
            marker=dict(size=11, color=[shade[p["tile"]] for p in pts], symbol="circle", line=dict(width=1, color=base)),
            customdata=[p["tile"] for p in pts],
            hovertemplate=[_("{name}: %{x:.3g} FLOP/B (model), %{y:,.0f} GFLOP/s measured<extra></extra>",
                             name=f"{kernel} T={p['tile']}") for p in pts])
        dram = [p for p in pts if p.get("dram_flop_per_byte")]
        if not dram:
            continue
        x, y, size, colour, tile, hover = [], [], [], [], [], []
        # Per T a dotted line from the DRAM intensity (an open diamond) back to the model's (the
        # circle; its own marker is transparent), then a gap. The diamond first, every size the
        # same: the legend draws a series' symbol in its first point's colour at the mean size.
        for p in dram:
            x += [p["dram_flop_per_byte"], p["flop_per_byte"], None]
            y += [p["gflops"], p["gflops"], None]
            size += [10, 10, 10]
            colour += [shade[p["tile"]], "rgba(0,0,0,0)", "rgba(0,0,0,0)"]
            tile += [p["tile"]] * 3
            name = f"{kernel} T={p['tile']}"
            hover += [_("{name}: %{x:.3g} FLOP/B against the bytes DRAM moved (Nsight Compute), %{y:,.0f} GFLOP/s"
                        "<extra></extra>", name=name),
                      _("{name}: %{x:.3g} FLOP/B counting the model's bytes; the dotted line leads to the bytes DRAM "
                        "moved<extra></extra>", name=name),
                      ""]
        fig.add_scatter(x=x, y=y, mode="lines+markers", name=_("DRAM bytes (ncu)"), **group,
                        line=dict(color=base, dash="dot", width=1),
                        marker=dict(size=size, color=colour, symbol="diamond-open"),
                        customdata=tile, hovertemplate=hover)
    fig.add_annotation(x=math.log10(roofline.ridge(bw, peak)), y=math.log10(peak), text=_("ridge {ridge} FLOP/B", ridge=f"{roofline.ridge(bw, peak):.1f}"),
                       showarrow=True, arrowhead=2, ay=-30, font=dict(size=11))
    sync_figure(fig)
    return fig
