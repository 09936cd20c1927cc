"""One call per page: the notebooks in ``notebooks/`` are narrative plus these calls."""

from __future__ import annotations

import html

import ipywidgets as W

from .. import __version__, gpu, resources
from ..i18n import _
from ..model import Launch

NOTEBOOKS_DIR = resources.notebooks_dir()

#: The curriculum in teaching order: (notebook, title, one line on what it teaches). The index
#: lists the ones present in ``notebooks/``. Titles and lines are English msgids: show them with
#: ``_(title)`` (explainer.i18n; tests/test_i18n.py checks the catalogue has them all).
PAGES = [
    ("01_naive.ipynb", "The naive kernel", "grid → block → thread → one element of C; every operand read from global memory"),
    ("02_tiled.ipynb", "Shared-memory tiling", "the tiled kernel phase by phase and barrier by barrier; data reuse; measured speed-up"),
    ("03_boundaries.ipynb", "Boundaries", "matrices the tile does not divide: padding zeros, ghost threads, wasted work"),
    ("04_barriers.ipynb", "The two barriers", "what each __syncthreads() prevents, and why a broken kernel can still pass"),
    ("05_warps_and_coalescing.ipynb", "Warps and coalescing", "which addresses a warp touches; memory sectors; shared-memory banks"),
    ("06_tile_size_and_occupancy.ipynb", "Tile size and occupancy", "threads, shared memory and registers per SM; the limiting resource"),
    ("07_arithmetic_intensity_and_roofline.ipynb", "Arithmetic intensity and the roofline", "FLOP per byte, and what bounds each kernel"),
    ("08_beyond_tiling.ipynb", "Beyond tiling: the ladder to cuBLAS", "register blocking, float4, double buffering, warp tiling: five kernels from the tiled one to cuBLAS"),
    ("09_tensor_cores.ipynb", "Tensor cores", "mma.sync: a warp multiplies 16×8 by 8×8 tiles together; which lane holds which element; TF32 precision"),
]


def available_pages() -> list[tuple[str, str, str]]:
    return [p for p in PAGES if (NOTEBOOKS_DIR / p[0]).exists()]


def gpu_status_html() -> str:
    from ..views import context

    if context.active():
        return ('<div style="font-size:14px">' + _(
            "These are static pages: every stepper steps in the browser for its page's launch and presets; timing "
            "panels show recorded measurements, labelled with their device and date. For your own launches and live "
            "GPU timings, run <code>tiled-explainer serve</code>.") + "</div>")
    st = gpu.status()
    if st.available:
        return ('<div style="font-size:14px">' + _("GPU on this machine: <b>{device}</b>. Timing panels measure live.",
                                                   device=html.escape(st.device or "")) + "</div>")
    return ('<div style="font-size:14px">' + _(
        "No GPU on this machine ({reason}). Everything visual works; timing panels show recorded measurements, "
        "labelled with their device and date.", reason=html.escape(st.why)) + "</div>")


def index():
    """The index page: what is taught, in which order, which part of the course material each page
    covers (:data:`explainer.pages.sources.SECTIONS`), and this machine's GPU status."""
    from .sources import sections_text

    from .navigation import href

    items = "".join(
        f'<li style="margin:6px 0"><a href="{href(nb)}" class="explainer-page-link"><b>{html.escape(_(title))}</b></a>'
        f" — {html.escape(_(what))}"
        f'<div class="explainer-page-sections" style="font-size:13px;color:#4b5563">'
        + _("In the course material: {sections}", sections=html.escape(sections_text(nb))) + "</div></li>"
        for nb, title, what in available_pages()
    )
    body = (
        f'<ol style="font-size:15px">{items}</ol>'
        f"{gpu_status_html()}"
        '<div style="font-size:13px;color:#4b5563;margin-top:8px">'
        + _("Serve these pages as an app with <code>make serve</code> (or <code>tiled-explainer serve</code>); "
            "explainer {version}.", version=__version__) + "</div>"
    )
    return W.HTML(body)


def nav(notebook: str):
    """Contents / previous / next for ``notebook``: every page's first and last cell."""
    from .navigation import nav_html

    return W.HTML(nav_html(notebook))


def naive(**kw):
    """Page 01: the naive explorer and naive vs cuBLAS timings."""
    from ..views.naive import NaiveExplorer
    from ..views.timing import TimingPanel

    return W.VBox([
        NaiveExplorer(**kw).widget,
        TimingPanel(kernels=("naive", "naive_col"), tiles=(16,), title=_("Measured: naive kernels vs cuBLAS")).widget,
    ])


#: The launch page 02 opens on: small enough to read every cell (the 1024^3 walk-through is a preset).
TILED_OPENING = "small: 8×8×8, T=4"


def tiled(**kw):
    """Page 02: the stepper (on the small preset by default; the gemm_tiled walk-through's 1024^3 is
    one choice away in its Preset menu) and tiled vs naive vs cuBLAS."""
    from ..views.stepper import TiledStepper
    from ..views.timing import TimingPanel

    if not {"M", "N", "K", "tile", "block", "thread"} & set(kw):
        M, N, K, T, block, thread = TiledStepper.PRESETS[TILED_OPENING]
        kw = dict(M=M, N=N, K=K, tile=T, block=block, thread=thread, **kw)
    kw.setdefault("exercise", True)  # "Your turn": write the kernel's indices, checked thread by thread
    return W.VBox([
        TiledStepper(**kw).widget,
        TimingPanel(kernels=("naive", "tiled"), tiles=(16,), title=_("Measured: tiled vs naive vs cuBLAS")).widget,
    ])


def reuse_table(M=1024, N=1024, K=1024, tiles=(1, 2, 4, 8, 16, 32)):
    """Global loads and FLOP/B of the tiled kernel per tile width, computed by the model."""
    naive = Launch("naive", M, N, K, 16).stats()
    rows = "".join(
        f"<tr><td>{T}</td><td>{s['global_loads']:,}</td><td>{naive['global_loads'] / s['global_loads']:.1f}×</td>"
        f"<td>{s['flop_per_byte']:.2f}</td><td>{s['shared_bytes_per_block']:,}</td></tr>"
        for T in tiles
        for s in [Launch("tiled", M, N, K, T).stats()]
    )
    head = "".join(f"<th>{h}</th>" for h in (_("tile T"), _("global loads"), _("fewer than naive"), _("FLOP/B (DRAM)"),
                                               _("shared bytes / block")))
    return W.HTML(
        f'<table style="font-size:13px"><tr>{head}</tr>{rows}</table>'
        '<div style="font-size:12px;color:#4b5563">'
        + _("M={M}, N={N}, K={K}; naive: {loads} loads, {fb} FLOP/B. Computed by explainer.model.", M=M, N=N, K=K,
            loads=f"{naive['global_loads']:,}", fb=f"{naive['flop_per_byte']:.2f}")
        + "</div>"
    )


def correction(name: str):
    """One of the course material's mistakes beside the figure the model computes
    (:mod:`explainer.pages.corrections`, :mod:`explainer.model.corrections`)."""
    from .corrections import correction as _correction

    return _correction(name)


def strip_vs_window(T: int = 16):
    """Page 02: the sliding-window write-up's V1 (whole strips in shared memory, kernels/02b_strip.cu)
    against V2 (the window, kernels/03_tiled.cu): memory per block and the largest K per
    architecture (:mod:`explainer.pages.strip`)."""
    from .strip import strip_vs_window as _strip_vs_window

    return _strip_vs_window(T)


def strip_steps(**kw):
    """Page 02: V1 (the whole strips) and V2 (the sliding window) stepped side by side on one
    launch and block (``explainer.views.strip``)."""
    from ..views.strip import StripExplorer

    return StripExplorer(**kw).widget


def block_shapes():
    """Page 05: non-square blocks, blockDim = (BX, BY): rows and sectors of a warp's requests and the
    occupancy per block shape, and the lab report's row / column / block partitions, computed
    (:mod:`explainer.pages.blockshape`)."""
    from .blockshape import block_shapes as _block_shapes

    return _block_shapes()


def memory_spaces():
    """Page 05: the CUDA memory spaces (declaration, scope, lifetime, size per architecture, recorded
    latency) and where each variable of kernels/03_tiled.cu lives (:mod:`explainer.pages.memspaces`)."""
    from .memspaces import memory_spaces as _memory_spaces

    return _memory_spaces()


def dynamic_shared():
    """Page 06: dynamic shared memory (kernel 04's extern __shared__), the launch's bytes, the tile
    chosen from the device's properties, and the recorded static-vs-dynamic timing."""
    from .memspaces import dynamic_shared as _dynamic_shared

    return _dynamic_shared()


def quiz(page: str, seed: int = 1):
    """"Your turn: predict, then check": the page's questions, answers computed by the model
    (:mod:`explainer.pages.exercises`)."""
    from .exercises import quiz as _quiz

    return _quiz(page, seed)


def glossary():
    """The glossary page: every term in English and 简体中文 (:mod:`explainer.i18n.glossary`)."""
    from .terms import glossary_html

    return W.HTML(glossary_html())


def kernel_exercise(page: str):
    """"Your turn: write the kernel": the page's kernel exercises, checked by the simulator
    (:class:`explainer.views.kernel_exercise.KernelExercise`; pages 01-04)."""
    from ..views.kernel_exercise import PAGE_EXERCISES, KernelExercise

    name = page[:-len(".ipynb")] if page.endswith(".ipynb") else page
    if name not in PAGE_EXERCISES:
        raise ValueError(f"no kernel exercise on {page!r}: the pages with one are {', '.join(PAGE_EXERCISES)}")
    from ..views import context

    ex = KernelExercise(PAGE_EXERCISES[name], stepper=name != "01_naive")  # the tiled pages step it
    return ex.static_view() if context.active() else ex.widget
