"""Page 05's memory spaces and page 06's dynamic shared memory: tables of what
:mod:`explainer.model.memspaces` computes, of the recorded measurements (device and date shown),
and of where each variable of a real kernel file lives (:mod:`explainer.sim.spaces`, the
simulator's CUDA parser). Plain HTML: the same in the live app and in an exported static page,
except the row of the live GPU's own properties, which only a live page with a GPU can query.
"""

from __future__ import annotations

import html

import ipywidgets as W

from ..i18n import N_, _
from ..model import hardware, memspaces
from ..resources import kernels_dir
from ..sim.spaces import kernel_declarations
from ..views import context
from ..views.perf import table
from .perf import NOTE, SOURCE_STYLE

BOX = "font-size:14px;margin:4px 0;line-height:1.45"
SCROLL = "overflow-x:auto;max-width:100%"
CODE = ("background:#f3f4f6;padding:6px 8px;border-radius:4px;font-size:13px;margin:4px 0;"
        "white-space:pre;overflow-x:auto;font-family:ui-monospace,monospace")
LEFT = "text-align:left"
#: The kernel files the two sections read.
TILED_FILE = "03_tiled.cu"
DYNAMIC_FILE = "04_tiled_dynamic.cu"


def _e(x) -> str:
    return html.escape(str(x))


def _scroll(inner: str) -> str:
    return f"<div style='{SCROLL}'>{inner}</div>"


def _left(text: str) -> tuple:
    return ("html", f"<span style='display:block;{LEFT}'>{text}</span>")


def size_text(b: int | None) -> str:
    """Bytes in the units CUDA's tables use (1 KB = 1,024 bytes)."""
    if b is None:
        return "—"
    if b >= 2**30:
        return f"{b / 2**30:g} GB"
    if b >= 1024:
        return f"{b / 1024:g} KB"
    return f"{b} B"


# ---------------------------------------------------------------------------------------------
# Page 05: the memory spaces
# ---------------------------------------------------------------------------------------------
def _latency_cell(row: dict) -> str:
    if not row["latency"]:
        return _e(_(row["not_measured"]))
    return "<br>".join(_("{what}: <b>{n} cycles</b>", what=_e(_(what)), n=f"{cyc:g}")
                       + (f" ({ns:g} ns)" if ns is not None else "") for what, cyc, ns in row["latency"])


def _latency_caption(record: dict | None) -> str:
    if not record:
        return _("Latency: <b>not measured</b> — no record yet; <code>benchmarks/bench_latency.py --save</code> "
                 "measures it on a GPU (pointer chasing) and this table then shows it with the device and the date.")
    v = record.get("versions", {})
    versions = ", ".join(f"{k} {v[k]}" for k in ("cupy", "cuda_runtime", "driver") if v.get(k))
    clock = _(" at the {mhz} MHz the SM ran at", mhz=record["clock_mhz"]) if record.get("clock_mhz") else ""
    return _("Latency: <b>measured</b> on the {device} ({date}; {versions}) by <code>benchmarks/bench_latency.py</code> "
             "({method}); SM cycles{clock}; file <code>{file}</code>. Where no measurement holds a space, the table "
             "says so.", device=_e(record['device']['name']), date=_e(record['date']), versions=_e(versions),
             method=_e(_(record.get('method', N_('pointer chasing')))), clock=clock, file=_e(record['source']))


def spaces_table(record: dict | None = None) -> str:
    lat = memspaces.latencies(record)
    rows = [(_left(f"<b>{_e(_(r['label']))}</b>"), _left(f"<code>{_e(_(r['declared']))}</code>"),
             _left(_("{scope}: {who}", scope=_e(_(memspaces.SCOPE_LABELS[r['scope']])), who=_e(_(r['scope_text'])))),
             _left(_e(_(r["lifetime_text"]))), _left(_e(_(r["where"]))), _left(_latency_cell(r)))
            for r in memspaces.memory_table(lat["record"])]
    return _scroll(table((_("space"), _("declared as"), _("scope"), _("lifetime"), _("where it is"),
                          _("latency of one load")), rows,
                         _latency_caption(lat["record"]), "explainer-spaces-table"))


SIZE_ROWS = (
    (N_("register file per SM"), lambda s: _("{n} registers = {size}", n=f"{s['registers_per_sm']:,}",
                                             size=size_text(s['register_file_bytes']))),
    (N_("registers per thread, at most"), lambda s: f"{s['max_regs_per_thread']}"),
    (N_("shared memory per SM"), lambda s: size_text(s["shared_per_sm"])),
    (N_("shared memory per block"), lambda s: (f"{size_text(s['shared_per_block'])}"
                                               + (_(" ({size} opted in)", size=size_text(s['shared_per_block_optin']))
                                                  if s["shared_per_block_optin"] > s["shared_per_block"] else ""))),
    (N_("constant memory"), lambda s: size_text(s["constant_bytes"])),
    (N_("local memory per thread, at most"), lambda s: size_text(s["local_per_thread"])),
    (N_("device memory (global)"), lambda s: (_("{size} on a {product}", size=size_text(s['device_memory']),
                                                product=_e(s['device_memory_product']))
                                              if s["device_memory"] else "—")),
)


def sizes_table() -> str:
    sz = [memspaces.sizes(n) for n in hardware.arches()]
    rows = [(_left(_e(_(what))), *[("html", f(s)) for s in sz]) for what, f in SIZE_ROWS]
    caption = _("Per-SM and per-block limits from explainer/data/arches.json (the occupancy calculator's presets); "
                "{source}. A block gets up to 48 KB of shared memory without asking; more (dynamic shared memory "
                "only) after cudaFuncSetAttribute(MaxDynamicSharedMemorySize). Device memory: the preset's example "
                "product, from its data sheet (each product of an architecture has its own). 1 KB = 1,024 bytes.",
                source=_e(_(memspaces.LIMITS_SOURCE)))
    return _scroll(table(("", *[s["label"] for s in sz]), rows, caption, "explainer-sizes-table"))


def _space_text(d) -> str:
    p = d.placement
    if p.space is None:
        return _("none (compile-time constant)")
    space = _(memspaces.LABELS[p.space])
    text = _("{space} (a kernel parameter)", space=space) if d.kind == "parameter" else space
    if p.points_to:
        text = _("{space}; points to {target}", space=text, target=_(memspaces.LABELS[p.points_to]))
    return text


def variables_table(file: str = TILED_FILE) -> str:
    decls = kernel_declarations(file)
    rows = [(_left(f"<code>{_e(d.name)}</code>"), d.line, _left(f"<code>{_e(d.code)}</code>"),
             _left(f"<b>{_e(_space_text(d))}</b>"),
             _e(_(memspaces.SCOPE_LABELS.get(d.placement.scope, "—"))),
             _left(_e(_(memspaces.LIFETIMES.get(d.placement.lifetime, "—")))), _left(_e(d.placement.rule_text())))
            for d in decls]
    caption = _("Every declaration of <code>kernels/{file}</code>, found by the simulator's CUDA parser "
                "(tree-sitter, explainer.sim.spaces) and placed by the rule in explainer.model.memspaces: "
                "__shared__ → shared; __constant__ → constant; a kernel parameter → a constant bank (a pointer "
                "parameter points to global memory); a scalar local → a register; a local array indexed at run time → "
                "local memory. The line is the file's.", file=_e(file))
    return _scroll(table((_("name"), _("line"), _("declaration"), _("lives in"), _("scope"), _("lifetime"), _("why")),
                         rows, caption,
                         "explainer-variables-table"))


def memory_spaces_html() -> str:
    return (f"<div class='explainer-memory-spaces' style='{BOX}'>"
            f"<div><b>{_('The five memory spaces')}</b></div>{spaces_table()}"
            f"<div style='margin-top:8px'><b>{_('How big each one is, per architecture')}</b></div>{sizes_table()}"
            f"<div style='margin-top:8px'><b>{_('Where each variable of the tiled kernel lives')}</b></div>"
            f"{variables_table()}</div>")


def memory_spaces() -> W.HTML:
    """Page 05: the memory spaces, their sizes, their recorded latency, and kernel 03's variables."""
    w = W.HTML(memory_spaces_html())
    w.add_class("explainer-memory-spaces")
    return w


# ---------------------------------------------------------------------------------------------
# Page 06: dynamic shared memory and device queries
# ---------------------------------------------------------------------------------------------
def _kernel_lines(file: str = DYNAMIC_FILE) -> str:
    """The lines of kernel 04 that size and carve its shared memory, read from the file: the
    extern __shared__ array, T = blockDim.x, and the pointers into the array."""
    lines = (kernels_dir() / file).read_text(encoding="utf-8").splitlines()
    decls = kernel_declarations(file)
    extern = {d.name for d in decls if d.space == "shared"}
    keep = [d for d in decls if d.space == "shared" or d.placement.points_to == "shared"
            or (d.kind == "local" and d.name == "T")]
    if not extern or len(keep) < 3:
        raise ValueError(_("kernels/{file} no longer declares an extern __shared__ array and pointers into it",
                           file=file))
    body = "\n".join(f"{d.line:>3}  {lines[d.line - 1].strip()}" for d in sorted(keep, key=lambda d: d.line))
    return f"<pre class='explainer-kernel-lines' style='{CODE}'>{_e(body)}</pre>"


def _bytes_table(tiles=(8, 16, 32), n: int = 1024) -> str:
    from ..gpu import launch_config  # the one place a launch's shared bytes are computed

    rows = []
    for T in tiles:
        dyn, sta = launch_config("tiled_dynamic", n, n, n, T), launch_config("tiled", n, n, n, T)
        assert dyn.dynamic_shared_bytes == memspaces.launch_bytes(T)
        rows.append((T, f"{T * T:,}", f"2·{T}·{T}·4 = {dyn.dynamic_shared_bytes:,}", f"{sta.dynamic_shared_bytes}",
                     _("{n} (in the compiled kernel)", n=f"{sta.shared_bytes:,}")))
    return _scroll(table(("T", _("threads per block"), _("kernel 04: third launch parameter (bytes)"),
                          _("kernel 03: third launch parameter"), _("kernel 03: static shared bytes")), rows,
                         _("From explainer.gpu.launch_config, the one place the explainer computes a launch's "
                           "geometry; through CuPy the third parameter is the launch's shared_mem argument."),
                         "explainer-bytes-table"))


def _choice_row(c: dict, live: bool = False) -> tuple:
    big, best = c["largest"], c["best"]
    limit = "maxThreadsPerBlock" if big["limiter"] == "threads" else "sharedMemPerBlock"
    shown = " · ".join(f"{r['tile']}: {r['occupancy']:.0%}" for r in c["shown"])
    label = _("<b>this GPU</b>: {label}", label=_e(c['label'])) if live else _e(c["label"])
    return (_left(label), f"{c['shared_per_block']:,}", f"{c['max_threads_per_block']:,}",
            ("html", f"<b>{big['tile']}</b> ({limit})"), ("html", f"<b>{best['tile']}</b> ({best['occupancy']:.0%})"),
            _left(_e(shown)))


def _device_choice() -> tuple[dict | None, str]:
    """The live GPU's tile choice, or why there is none (static page, no GPU)."""
    if context.active():
        return None, _("This is a static page: the rows are the architecture presets (explainer/data/arches.json). "
                       "In the live app on a GPU machine (tiled-explainer serve, or JupyterLab) a row for that GPU's "
                       "own cudaGetDeviceProperties is added.")
    from ..gpu.properties import device_properties

    props = device_properties()
    if not isinstance(props, dict):
        return None, _("No GPU here ({why}): the rows are the architecture presets (explainer/data/arches.json), "
                       "not a device's own properties.", why=_e(getattr(props, 'why', props)))
    try:
        return memspaces.device_choice(props), _("The first row is this machine's GPU, queried now with "
                                                 "cudaGetDeviceProperties; the others are the architecture presets.")
    except ValueError as e:
        return None, _("This GPU's properties could not be read ({error}); the rows are the architecture presets.",
                       error=_e(e))


def choice_table() -> str:
    dev, note = _device_choice()
    rows = ([_choice_row(dev, live=True)] if dev else []) + [_choice_row(c) for c in memspaces.preset_choices()]
    caption = _("sharedMemPerBlock: what cudaGetDeviceProperties reports, the 48 KB a block gets without opting in "
                "(a preset's own per-block limit where that is smaller). Largest T: 2·T·T·4 ≤ sharedMemPerBlock and "
                "T·T ≤ maxThreadsPerBlock. Highest occupancy: among tiles of whole warps (T·T a multiple of 32), ties "
                "to the larger tile; occupancy from the occupancy calculator (explainer.model.hardware), registers not "
                "counted.") + " " + note
    return _scroll(table((_("device"), _("sharedMemPerBlock (bytes)"), "maxThreadsPerBlock", _("largest T that fits"),
                          _("T with the highest occupancy"), _("occupancy at T =")), rows, caption,
                         "explainer-choice-table"))


def _notes_rule() -> str:
    S = memspaces.SHARED_WITHOUT_OPT_IN
    T = memspaces.notes_tile(S)
    most = max(a["max_threads_per_block"] for a in hardware.arches().values())
    fit = memspaces.largest_tile(S, most)
    source = _("The PMPP chapter 5 notes (5.6, their rule): <code>tile_width = sqrt(max_shared_per_block / (2 * "
               "sizeof(float)))</code> ({quote}).", quote="<span lang=\"zh-CN\">动态计算分块尺寸</span>")
    computed = _("Computed: with sharedMemPerBlock = {bytes} bytes it gives T = <b>{T}</b>, a block of {threads} "
                 "threads; no preset takes more than {most} threads per block (maxThreadsPerBlock), so that launch "
                 "fails. The thread limit decides: T = <b>{fit}</b>, whose tiles take only {fit_bytes} bytes.",
                 bytes=f"{S:,}", T=T, threads=f"{T * T:,}", most=f"{most:,}", fit=fit['tile'],
                 fit_bytes=f"{fit['bytes']:,}")
    return f"<div style='margin-top:6px'><span style='{SOURCE_STYLE}'>{source}</span> {computed}</div>"


def _measured() -> str:
    recs = memspaces.dynamic_records()
    if not recs:
        return ("<div class='explainer-dynamic-measured'>"
                + _("<b>Not measured yet.</b> <code>python benchmarks/bench_dynamic_shared.py --save</code> times "
                    "kernel 04 against kernel 03 at the same tile on a GPU (CUDA events), and this page then shows "
                    "the record with its device and date.") + "</div>")
    r = recs[0]
    v = r.get("versions", {})
    versions = ", ".join(f"{k} {v[k]}" for k in ("cupy", "cuda_runtime", "driver") if v.get(k))
    rows = [(f"{x['M']}×{x['N']}×{x['K']}", x["tile"], f"{x['static_ms']:.3f}", f"{x['dynamic_ms']:.3f}",
             f"{x['dynamic_ms'] / x['static_ms']:.2f}×", f"{max(x['static_rel_error'], x['dynamic_rel_error']):.1e}")
            for x in r["rows"]]
    from ..gpu.recorded import changed_kernels

    changed = [f for f in (changed_kernels(r) or []) if f in (TILED_FILE, DYNAMIC_FILE, "common.cuh")]
    stale = (f"<div style='{NOTE}'>" + _("<b>Measured before a change</b> to {files}: run the benchmark again for "
                                         "figures of the kernels as they are now.", files=_e(', '.join(changed)))
             + "</div>" if changed else "")
    return ("<div class='explainer-dynamic-measured'>"
            + _scroll(table(("M×N×K", "T", _("kernel 03, static (ms)"), _("kernel 04, dynamic (ms)"), "04 / 03",
                             _("rel. error vs numpy float64")), rows,
                            _("<b>Measured</b> on the {device} ({date}; {versions}) by "
                              "<code>benchmarks/bench_dynamic_shared.py</code>: {method}; file <code>{file}</code>.",
                              device=_e(r['device']['name']), date=_e(r['date']), versions=_e(versions),
                              method=_e(_(r.get('method', N_('CUDA events')))), file=_e(r['source'])),
                            "explainer-dynamic-table"))
            + stale + "</div>")


def dynamic_shared_html() -> str:
    intro = _("<b>Kernel 04's own lines</b> (read from <code>kernels/04_tiled_dynamic.cu</code> by the simulator's "
              "parser): one <code>extern __shared__</code> array with no size, the tile taken from the block, and As "
              "and Bs carved out of it.")
    third, choosing, costs = (_("The third launch parameter"), _("Choosing the tile from the device's properties"),
                              _("What the flexibility costs"))
    unroll = _("Kernel 04's k loop runs to a T known only at run time, so the compiler cannot unroll it fully as it "
               "does kernel 03's; the record above says what that costs on its device.")
    return (f"<div class='explainer-dynamic-shared' style='{BOX}'>"
            f"<div>{intro}</div>"
            f"{_kernel_lines()}"
            f"<div style='margin-top:6px'><b>{third}</b></div>{_bytes_table()}"
            f"<div style='margin-top:6px'><b>{choosing}</b></div>{choice_table()}"
            f"{_notes_rule()}"
            f"<div style='margin-top:6px'><b>{costs}</b></div>{_measured()}"
            f"<div style='{NOTE};margin-top:4px'>{unroll}</div></div>")


def dynamic_shared() -> W.HTML:
    """Page 06: dynamic shared memory (kernel 04), the launch's bytes and the tile chosen from the
    device's properties; the recorded static-vs-dynamic timing."""
    w = W.HTML(dynamic_shared_html())
    w.add_class("explainer-dynamic-shared")
    return w
