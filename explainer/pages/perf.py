"""Pages 05-07: warps and coalescing, tile size and occupancy, arithmetic intensity and roofline.

One call per notebook cell. Every number is computed (model, hardware presets) or measured (the
recorded files in ``explainer/data/recorded/``, labelled with device and date); the course material's own
figures appear only as quoted claims, labelled as such.
"""

from __future__ import annotations

import html
import statistics

import ipywidgets as W

from ..views import context
from ..views.plotly_widget import runtime
from ..views.stepper import sync_figure

from ..gpu import recorded
from .. import gpu
from ..i18n import N_, _
from ..model import hardware, memory, roofline
from ..model import Launch
from ..views.perf import OccupancyCalculator, roofline_figure, roofline_points, table
from ..views.warps import WarpExplorer
from ..views.timing import TimingPanel

NOTE = "font-size:12px;color:#4b5563"
SOURCE_STYLE = "color:#92400e"  # quoted claims from the course material

#: The lab report's three timing tables (ms), quoted as the report's claims: {table: {(N, T): (naive,
#: shared, "register")}}. Table 1: row partition; 2: column partition; 3: block partition.
LAB_REPORT = {
    "row": {(512, 8): (2.651, 1.023, 1.023), (512, 16): (1.861, 0.906, 0.907), (512, 32): (2.399, 0.829, 0.834),
            (1024, 8): (22.234, 8.029, 8.034), (1024, 16): (14.932, 7.078, 7.077), (1024, 32): (18.035, 6.528, 6.522),
            (2048, 8): (174.459, 63.933, 64.019), (2048, 16): (118.749, 56.225, 56.229), (2048, 32): (142.870, 51.608, 51.611)},
    "column": {(512, 8): (4.474, 1.762, 1.029), (512, 16): (7.951, 2.772, 0.934), (512, 32): (14.877, 4.955, 0.984),
               (1024, 8): (38.277, 13.993, 8.099), (1024, 16): (62.307, 22.091, 7.151), (1024, 32): (117.006, 39.046, 7.093),
               (2048, 8): (283.027, 110.628, 64.542), (2048, 16): (497.853, 174.939, 56.397), (2048, 32): (926.561, 310.436, 56.440)},
    "block": {(512, 8): (2.658, 1.018, 1.020), (512, 16): (1.852, 0.908, 0.900), (512, 32): (2.393, 0.831, 0.832),
              (1024, 8): (22.203, 8.035, 8.031), (1024, 16): (14.902, 7.078, 7.076), (1024, 32): (18.100, 6.518, 6.527),
              (2048, 8): (174.622, 64.015, 64.026), (2048, 16): (118.777, 56.229, 56.234), (2048, 32): (142.842, 51.734, 51.741)},
}
#: Which of our kernels reproduces each column of the lab report's tables (None: no such kernel here).
LAB_REPORT_KERNELS = {
    "row": ("naive", "tiled", "tiled_register_copy"),
    "column": ("naive_col", None, None),  # the lab report's column-mapped shared/register kernels are not in kernels/
    "block": ("naive", "tiled", "tiled_register_copy"),  # square blocks: block partition = row mapping
}
#: Each table's title; the English quotes the lab report's own title (in Chinese), shown with _().
LAB_REPORT_TITLES = {"row": N_("Table 1, row partition (the lab report's “按行划分”)"),
                     "column": N_("Table 2, column partition (the lab report's “按列划分”)"),
                     "block": N_("Table 3, block partition (the lab report's “按数据块划分”)")}
#: The limiting resource of an occupancy, as the tables name it (hardware.RESOURCES), shown with _().
LIMITERS = {"threads": N_("threads"), "blocks": N_("blocks"), "shared": N_("shared memory"),
            "registers": N_("registers")}


def limiter_word(key: str | None) -> str:
    return _(LIMITERS[key]) if key in LIMITERS else str(key)


def _html(text: str, cls: str = "") -> W.HTML:
    w = W.HTML(text)
    if cls:
        w.add_class(cls)
    return w


def recorded_label(data: dict | None, what: str = N_("timings")) -> str:
    """The line above a recorded table: what was recorded, on what, with which versions; ``what``
    (marked with N_()) names the figures where none are recorded."""
    if not data:
        return _("<b>No recorded {what} found.</b>", what=_(what))
    dev = data.get("device", {})
    v = dev.get("versions") or {}
    versions = ", ".join(f"{k} {v[k]}" for k in ("cuda_runtime", "driver", "cupy") if v.get(k))
    return (f'<div style="background:#fef3c7;padding:4px 6px;border-radius:4px;font-size:12px">'
            + _("<b>Recorded, not measured here</b>: {source}{versions}, file {file}.",
                source=html.escape(recorded.label_text(data)), versions=f" ({html.escape(versions)})",
                file=f"<code>{html.escape(data.get('source', ''))}</code>") + "</div>")


def _live_note() -> str:
    st = gpu.status()
    if st.available:
        return (f"<div style='{NOTE}'>" + _("GPU here: <b>{device}</b>. The timing panel measures live; to record "
                                            "this GPU's bandwidth, clock and kernel resources run <code>{command}</code>.",
                                            device=html.escape(st.device or ""),
                                            command="python -m explainer.model.roofline --save") + "</div>")
    return (f"<div style='{NOTE}'>" + _("No GPU here ({reason}): the figures below are recorded.",
                                        reason=html.escape(st.why)) + "</div>")


def _timing_rows(data, kernel, n, tile):
    rows = recorded.recorded_rows(data, kernel=kernel, size=n, tile=tile) if data else []
    return rows[0] if rows else None


# ======================================================================================
# 05 · warps and coalescing
# ======================================================================================
def warps(**kw):
    """Page 05: the warp explorer (warp, lane, sectors per access)."""
    return WarpExplorer(**kw).widget


def walkthrough_warp_check(T: int = 16, thread=(4, 3)) -> dict:
    """The gemm_tiled walk-through puts thread (x=4, y=3) of a 16x16 block at id 32+4 = 36; the model says 52."""
    L = Launch("tiled", 1024, 1024, 1024, T)
    tv = L.thread((0, 0), thread)
    return {"linear": tv.linear_thread, "warp": tv.warp, "lane": tv.lane, "seed_claim": 36}


def coalescing_summary(n: int = 4096, T: int = 16):
    """Average sectors per request over an interior block, model vs Nsight Compute (recorded)."""
    dev = roofline.load_device_record()
    ncu = {}
    for run in (dev or {}).get("ncu", {}).get("runs", []):
        m = run["metrics"]
        ncu[(run["kernel"], run["tile"])] = (
            m["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] / m["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"],
            m["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"] / m["l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"])
    rows = []
    for kernel in ("naive", "naive_col", "tiled"):
        # a small launch with the same warp geometry: sectors per request do not depend on n
        L = Launch(kernel, 4 * T, 4 * T, 4 * T, T)
        per = {a: memory.sectors_per_request(L, a, (1, 1)) for a, _, _ in memory.ACCESSES[kernel]}
        loads = [v for a, v in per.items() if "store" not in a]
        load_avg = sum(v["sectors"] for v in loads) / sum(v["requests"] for v in loads)
        store = per["C store"]["sectors_per_request"]
        meas = ncu.get((kernel, T))
        rows.append((kernel, *(_("{got} (ideal {ideal})", got=f"{v['sectors_per_request']:.1f}",
                                 ideal=f"{v['ideal_per_request']:.1f}") for a, v in per.items()),
                     f"{load_avg:.2f}", f"{meas[0]:.2f}" if meas else "—", f"{store:.1f}", f"{meas[1]:.1f}" if meas else "—"))
    head = (_("kernel"), _("A load"), _("B load"), _("C store"), _("loads, model"), _("loads, ncu"), _("store, model"),
            _("store, ncu"))
    cap = _("Sectors per warp request, T={T}, interior block; the model's average over every k / phase, and "
            "Nsight Compute's l1tex__t_sectors / l1tex__t_requests for one {n}³ launch.", T=T, n=n)
    body = table(head, rows, cap, "explainer-coalescing-summary")
    return _html(body + (recorded_label(dev, N_("ncu counters")) if dev else ""), "explainer-coalescing")


def row_vs_column(sizes=(512, 1024, 2048, 4096), tiles=(8, 16, 32)):
    """Recorded naive vs naive_col: median ms and the slowdown."""
    data = recorded.load_recorded()
    rows = []
    for n in sizes:
        for T in tiles:
            a, b = _timing_rows(data, "naive", n, T), _timing_rows(data, "naive_col", n, T)
            if a and b:
                rows.append((n, f"{T}×{T}", f"{a['median_ms']:.3f}", f"{b['median_ms']:.3f}",
                             f"{b['median_ms'] / a['median_ms']:.1f}×"))
    return _html(recorded_label(data) + table(("N", _("block"), _("naive ms (x → column)"), _("naive_col ms (x → row)"),
                                               _("slowdown")), rows,
                                              _("Medians of the recorded runs (L2 flushed before each).")), "explainer-row-col")


def bank_table(tiles=(8, 16, 32)):
    """Bank conflicts of the compute loop's shared reads, and of the comparison layouts."""
    rows = []
    for T in tiles:
        for expr, pad, what in (("As[ty][k]", 0, N_("kernel")), ("Bs[k][tx]", 0, N_("kernel")),
                                ("Bs[tx][k]", 0, N_("B stored transposed")),
                                ("Bs[tx][k]", 1, N_("transposed, padded [T][T+1]"))):
            a = memory.bank_access(expr, T, 0, 1, pad)
            worst = memory.worst_bank_degree(expr, T, pad)
            rows.append((T, ("html", f"<code>{html.escape(expr)}</code>"), _(what), a.distinct_words, a.banks_touched,
                         _("yes") if a.broadcast else _("no"), _("{n}-way", n=worst) if worst > 1 else _("none")))
    dev = roofline.load_device_record()
    meas = ""
    for run in (dev or {}).get("ncu", {}).get("runs", []):
        if run["kernel"] == "tiled":
            m = run["metrics"]
            c, w = m["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"], m["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"]
            meas += _("T={T}: {conflicts} conflicts in {wavefronts} shared-load wavefronts ({percent}%); ",
                      T=run["tile"], conflicts=f"{c:,}", wavefronts=f"{w:,}", percent=f"{100 * c / w:.3f}")
    cap = _("Warp 0 at k=1: distinct 4-byte words, banks touched, and whether lanes share a word (broadcast); "
            "the conflict column is the worst over every warp and k. Computed by explainer.model.memory.")
    body = table(("T", _("read"), _("layout"), _("distinct words"), _("banks"), _("broadcast"), _("conflict")), rows, cap,
                 "explainer-bank-table")
    if meas:
        body += (f"<div style='{NOTE}'>" + _("Measured on the H100 (Nsight Compute, {label}): {measured}the kernel's "
                                             "reads are conflict-free, as computed.", label=html.escape(recorded.label_text(dev)),
                                             measured=html.escape(meas)) + "</div>")
    return _html(body, "explainer-banks")


def warps_timing():
    return TimingPanel(kernels=("naive", "naive_col"), tiles=(8, 16, 32), sizes=(1024, 2048),
                       title=N_("Measured: row- vs column-mapped naive kernels")).widget


# ======================================================================================
# 06 · tile size and occupancy
# ======================================================================================
def notes_tile_table(arch: str = "fermi", tiles=(8, 16, 32, 64)) -> list[dict]:
    """The course notes' tile-width table, computed: threads and shared bytes per block, the blocks the
    shared memory alone allows, and the blocks / occupancy the SM really holds."""
    out = []
    for T in tiles:
        row = {"tile": T, "threads": T * T, "shared_bytes": 2 * T * T * 4}
        try:
            o = hardware.tile_occupancy(arch, T)
            row.update(blocks_by_shared=o.limits["shared"], blocks_per_sm=o.blocks_per_sm,
                       active_threads=o.active_threads, occupancy=o.occupancy, limiter=o.limiter, error=None)
        except hardware.OccupancyError as e:
            row.update(blocks_by_shared=None, blocks_per_sm=0, active_threads=0, occupancy=0.0, limiter=None, error=str(e))
        out.append(row)
    return out


def tile_table(arches=("fermi", "turing", "ampere", "hopper"), tiles=(8, 16, 32)):
    """The tile-width table for every preset, with the limiter named."""
    parts = []
    for arch in arches:
        a = hardware.arch(arch)
        rows = []
        for r in notes_tile_table(arch, tiles + ((64,) if arch == "fermi" else ())):
            if r["error"]:
                rows.append((f"{r['tile']}×{r['tile']}", r["threads"], f"{r['shared_bytes']:,}", "—", 0, "—",
                             ("html", "<span style='color:#b91c1c'>" + _("cannot launch: {why}", why=html.escape(r["error"]))
                              + "</span>")))
                continue
            rows.append((f"{r['tile']}×{r['tile']}", r["threads"], f"{r['shared_bytes']:,}", r["blocks_by_shared"],
                         r["blocks_per_sm"], f"{r['active_threads']} / {a['max_threads_per_sm']}",
                         f"{r['occupancy']:.0%} ({limiter_word(r['limiter'])})"))
        cap = _("{arch}: {threads} threads, {blocks} blocks, {shared} B shared per SM. Registers not counted (as in the "
                "course notes). Source: {source}.", arch=html.escape(a["label"]), threads=a["max_threads_per_sm"],
                blocks=a["max_blocks_per_sm"], shared=f"{a['shared_per_sm']:,}", source=html.escape(_(a["source"])))
        parts.append(f"<h4 style='margin:10px 0 2px'>{html.escape(a['label'])}</h4>" + table(
            (_("block"), _("threads / block"), _("shared B / block"), _("blocks (shared alone)"), _("blocks / SM"),
             _("threads / SM"), _("occupancy (limiter)")), rows, cap))
    return _html("".join(parts), "explainer-tile-table")


def walkthrough_turing() -> dict:
    """The gemm_tiled walk-through: the RTX 2080 Ti runs 8 blocks x 256 = 2048 threads per SM. Computed on Turing."""
    t = hardware.arch("turing")
    o = hardware.tile_occupancy("turing", 16)
    return {"claim_threads": 2048, "claim_blocks": 8, "max_threads_per_sm": t["max_threads_per_sm"],
            "max_warps_per_sm": t["max_warps_per_sm"], "blocks_per_sm": o.blocks_per_sm,
            "active_threads": o.active_threads, "limiter": o.limiter, "sms": t["sms"],
            "gpu_threads": t["sms"] * o.active_threads}


def turing_correction():
    c = walkthrough_turing()
    return _html(
        f"<div style='font-size:14px'><span style='{SOURCE_STYLE}'>"
        + _("The gemm_tiled walk-through (its claim): an RTX 2080 Ti SM runs {blocks} blocks × 256 = {threads} threads "
            "(64 warps), 68 × 2048 = 139,264 threads.", blocks=c["claim_blocks"], threads=c["claim_threads"])
        + "</span><br>"
        + _("Computed for Turing (sm_75): at most {max_threads} threads = {max_warps} warps per SM, so a 16×16 block fits "
            "<b>{blocks} times</b> ({threads} threads, limiter: {limiter}); {sms} SMs × {threads} = <b>{gpu_threads}</b> "
            "resident threads.", max_threads=c["max_threads_per_sm"], max_warps=c["max_warps_per_sm"],
            blocks=c["blocks_per_sm"], threads=c["active_threads"], limiter=limiter_word(c["limiter"]), sms=c["sms"],
            gpu_threads=f"{c['gpu_threads']:,}")
        + "</div>", "explainer-turing")


def kernel_resources():
    """Each compiled kernel's registers, shared bytes and the driver's occupancy (recorded or live),
    beside the calculator's prediction for the same resources."""
    dev = roofline.load_device_record()
    if not dev:
        return _html(_("<b>No recorded device file.</b>"))
    arch = "hopper" if dev["device"]["compute_capability"] == "9.0" else None
    rows = []
    for k in dev["kernels"]:
        if "error" in k:
            continue
        smem = k["static_shared_bytes"] + k["dynamic_shared_bytes"]
        pred = hardware.occupancy(arch, k["tile"] ** 2, smem, k["registers"]) if arch else None
        rows.append((k["kernel"], f"{k['tile']}×{k['tile']}", k["registers"], f"{smem:,}", k["blocks_per_sm"],
                     f"{k['occupancy']:.0%}", f"{pred.blocks_per_sm} ({limiter_word(pred.limiter)})" if pred else "—"))
    return _html(recorded_label(dev, N_("device figures")) + table(
        (_("kernel"), _("block"), _("registers / thread"), _("shared B / block"), _("blocks / SM (driver)"),
         _("occupancy (driver)"), _("calculator: blocks (limiter)")), rows,
        _("Driver: cuOccupancyMaxActiveBlocksPerMultiprocessor and the compiled kernel's attributes; calculator: "
          "explainer.model.hardware with the Hopper preset.")), "explainer-kernel-resources")


def tile_sweep(sizes=(512, 1024, 2048, 4096), tiles=(8, 16, 32)):
    data = recorded.load_recorded()
    rows = []
    for n in sizes:
        for k in ("naive", "tiled"):
            cells = [_timing_rows(data, k, n, T) for T in tiles]
            if all(cells):
                best = min(tiles, key=lambda T: _timing_rows(data, k, n, T)["median_ms"])
                rows.append((n, k, *(f"{c['median_ms']:.3f}" for c in cells), f"{best}×{best}"))
    return _html(recorded_label(data) + table(("N", _("kernel"), *(f"{T}×{T} ms" for T in tiles), _("fastest")), rows,
                                              _("Median times per block size; every configuration runs at 100% occupancy "
                                                "on the H100 (above).")),
                 "explainer-tile-sweep")


def lab_report_rows(which: str, data: dict | None = None) -> list[dict]:
    """The lab report's table ``which`` beside the recorded figures of the kernels that reproduce it."""
    data = data if data is not None else recorded.load_recorded()
    out = []
    for (n, T), claim in LAB_REPORT[which].items():
        row = {"N": n, "tile": T, "seed_ms": claim, "ms": []}
        for k in LAB_REPORT_KERNELS[which]:
            r = _timing_rows(data, k, n, T) if k else None
            row["ms"].append(r["median_ms"] if r else None)
        out.append(row)
    return out


def register_copy_ratio(data: dict | None = None) -> dict:
    """tiled_register_copy / tiled median time over every recorded size and tile."""
    data = data if data is not None else recorded.load_recorded()
    ratios = []
    for r in recorded.recorded_rows(data, kernel="tiled_register_copy"):
        t = recorded.recorded_rows(data, kernel="tiled", size=r["M"], tile=r["tile"])
        if t and r["M"] == r["N"] == r["K"]:
            ratios.append(r["median_ms"] / t[0]["median_ms"])
    return {"n": len(ratios), "min": min(ratios), "max": max(ratios), "median": statistics.median(ratios)}


def lab_report_tables():
    data = recorded.load_recorded()
    parts = [recorded_label(data)]
    fmt = lambda v: "—" if v is None else f"{v:.3f}"  # noqa: E731
    for which in LAB_REPORT:
        ks = LAB_REPORT_KERNELS[which]
        rows = [(r["N"], f"{r['tile']}×{r['tile']}",
                 *(("html", f"<span style='{SOURCE_STYLE}'>{c}</span>") for c in r["seed_ms"]),
                 *(fmt(v) for v in r["ms"])) for r in lab_report_rows(which, data)]
        head = ("N", _("block"), _("report: naive"), _("report: shared"), _("report: register"),
                *(f"H100: {k}" if k else _("H100: (no such kernel)") for k in ks))
        parts.append(f"<h4 style='margin:10px 0 2px'>{html.escape(_(LAB_REPORT_TITLES[which]))}</h4>" + table(
            head, rows, _("Brown: the lab report's figures (its claims, on its own GPU). Right: recorded medians, ms.")))
    rc = register_copy_ratio(data)
    parts.append(
        "<div style='font-size:14px;margin-top:6px'>"
        + _("The lab report's “register tiling” copies one shared element into a local variable before the multiply-add, "
            "which the compiler does anyway. Recorded over {n} sizes and tiles, <code>tiled_register_copy</code> takes "
            "<b>{low}× to {high}×</b> the time of <code>tiled</code> (median {median}×): the same kernel. Real register "
            "blocking (several outputs per thread) is a different kernel. The lab report's column-partition “register” "
            "column (≈ its row figures) cannot come from a column-mapped kernel if its column-mapped shared version takes "
            "2–6× longer.", n=rc["n"], low=f"{rc['min']:.3f}", high=f"{rc['max']:.3f}", median=f"{rc['median']:.3f}")
        + "</div>")
    return _html("".join(parts), "explainer-lab-report")


def occupancy_calculator(**kw):
    """The calculator; on a static page (``tiled-explainer export``) its browser twin, which looks
    the model's answers up in a table embedded in the page."""
    calc = OccupancyCalculator(**kw)
    return calc.static_view() if context.active() else calc.widget


def warp_scheduler(**kw):
    """Page 06: the warp scheduler stepper (:class:`explainer.views.scheduler.SchedulerExplorer`):
    scheduler 0's warps cycle by cycle, the resident warps from the occupancy model."""
    from ..views.scheduler import SchedulerExplorer

    return SchedulerExplorer(**kw).widget


def scheduler_rows(presets=None, latencies=None) -> list[dict]:
    """Per preset of the scheduler stepper and recorded latency: warps per scheduler, the rule of
    thumb's warps, and the utilisation from cycle L until the first warp finishes, for both
    policies (:func:`explainer.model.scheduler.tile_run`)."""
    from ..model import scheduler as sm
    from ..views import scheduler as sv

    out = []
    for key in presets or sv.PRESETS:
        T, regs = sv.PRESETS[key]
        for lk in latencies or sv.LATENCIES:
            row = {"preset": key, "T": T, "regs": regs, "latency_kind": lk}
            for policy in sm.POLICIES:
                run, occ, lat = sm.tile_run(sv.ARCH, T, regs, phases=sv.PHASES, policy=policy, latency_kind=lk)
                s = sm.summary(run)
                row.update({"warps": s["warps"], "per_scheduler": s["warps_per_scheduler"], "latency": s["latency"],
                            "needed": s["warps_needed"], "blocks": s["blocks"], f"steady_{policy}": s["steady"],
                            "latency_label": lat["label"]})
            out.append(row)
    return out


def scheduler_table():
    """The stepper's presets side by side: how busy the schedulers stay, against the rule of thumb."""
    from ..model import scheduler as sm

    rows = scheduler_rows()
    body = [(_("T={T}, {regs} registers", T=r["T"], regs=r["regs"]) if r["regs"] else f"T={r['T']}", r["blocks"],
             r["warps"], r["per_scheduler"], f"{r['latency']} ({_(sm.LATENCY_WHERE[r['latency_kind']])})",
             r["needed"], f"{r['steady_oldest']:.0%}", f"{r['steady_round_robin']:.0%}") for r in rows]
    labels = sorted({r["latency_label"] for r in rows})
    cap = _("Hopper SM, 4 schedulers, the tiled kernel's first 3 phases; residency from the occupancy calculator above. "
            "Utilisation: the fraction of cycles the SM's schedulers issued, from cycle L (before which no load has "
            "returned) until the first warp finishes. Rule of thumb: L / (T + 6) warps per scheduler. {latencies} "
            "Computed by explainer.model.scheduler.", latencies=" ".join(_("{sentence}.", sentence=html.escape(x))
                                                                          for x in labels))
    return _html(table((_("block"), _("blocks / SM"), _("warps / SM"), _("warps / scheduler"), _("latency L, cycles"),
                        _("rule of thumb: warps / scheduler"), _("busy, oldest first"), _("busy, round-robin")), body, cap),
                 "explainer-scheduler-table")


def tiles_timing():
    return TimingPanel(kernels=("tiled",), tiles=(8, 16, 32), sizes=(1024, 2048, 4096),
                       title=N_("Measured: the tiled kernel per tile size")).widget


# ======================================================================================
# 07 · arithmetic intensity and roofline
# ======================================================================================
INTENSITY_SHAPES = ((4096, 4096, 4096), (1024, 1024, 1024), (1000, 700, 300), (35, 79, 19))


def intensity_rows(shapes=INTENSITY_SHAPES, tiles=(8, 16, 32)) -> list[dict]:
    out = []
    for M, N, K in shapes:
        row = {"shape": (M, N, K), "naive": roofline.intensity("naive", M, N, K, 16)}
        for T in tiles:
            row[T] = roofline.intensity("tiled", M, N, K, T)
        out.append(row)
    return out


def intensity_table(tiles=(8, 16, 32)):
    rows = [(f"{M}×{N}×{K}", f"{r['naive']:.3f}", *(f"{r[T]:.3f}" for T in tiles))
            for r in intensity_rows(tiles=tiles) for M, N, K in [r["shape"]]]
    cap = _("FLOP / (4 B × global loads), loads counted by explainer.model (padding zeros are not loads). "
            "Multiples of T give exactly 0.25 and T/4; other shapes load partial tiles and land below T/4.")
    return _html(table(("M×N×K", "naive", *(f"tiled T={T}" for T in tiles)), rows, cap), "explainer-intensity")


def pmpp_example():
    p = roofline.pmpp_a100()
    return _html(
        "<div style='font-size:14px'>"
        + _("PMPP's A100 example (4th ed. 5.4): the DRAM bound of the tiled kernel at T={T} is {bw} GB/s × {tiled_fb} "
            "FLOP/B = <b>{tiled} GFLOP/s</b>; the naive kernel's is {bw} × {naive_fb} = <b>{naive} GFLOP/s</b> (the PMPP "
            "chapter 5 notes round it to 389). Both are bounds on DRAM traffic, not predictions.", T=p["tile"],
            bw=f"{p['bandwidth_gbs']:,.0f}", tiled_fb=f"{p['tiled_flop_per_byte']:.2f}", tiled=f"{p['tiled_gflops']:,.0f}",
            naive_fb=f"{p['naive_flop_per_byte']:.2f}", naive=f"{p['naive_gflops']:,.2f}")
        + "</div>", "explainer-pmpp")


def device_roofs_html():
    dev = roofline.load_device_record()
    if not dev:
        return _html(_("<b>No recorded device file.</b>"))
    r = roofline.device_roofs(dev)
    return _html(recorded_label(dev, N_("device figures")) + (
        "<div style='font-size:14px'>"
        + _("FP32 peak = {sms} SMs × {lanes} FP32 lanes × 2 FLOP × {clock} MHz = <b>{peak} GFLOP/s</b> (an FMA-only kernel "
            "measured {fma}, {fma_share}). Memory: a {gib} GiB device-to-device copy moved <b>{bw} GB/s</b> (read + write; "
            "{bw_share} of the {theory} GB/s the memory clock and bus width allow). Ridge point: {ridge} FLOP/B.",
            sms=r["sms"], lanes=r["lanes"], clock=f"{r['clock_mhz']:,.0f}", peak=f"{r['peak_gflops']:,.0f}",
            fma=f"{r['fma_measured_gflops']:,.0f}", fma_share=f"{r['fma_measured_gflops'] / r['peak_gflops']:.0%}",
            gib=f"{dev['bandwidth']['copy_bytes'] / 2**30:.0f}", bw=f"{r['bandwidth_gbs']:,.0f}",
            bw_share=f"{r['bandwidth_gbs'] / r['theoretical_bandwidth_gbs']:.0%}",
            theory=f"{r['theoretical_bandwidth_gbs']:,.0f}", ridge=f"{r['ridge']:.1f}")
        + "</div>"), "explainer-roofs")


LADDER_COLOR = "#7c3aed"


class RooflineChart:
    """Page 07's roofline: the recorded kernels as circles (:func:`roofline_points`), the ladder
    kernels of page 08 as squares at their block-tile intensity (:func:`roofline.ladder_points`),
    and the table behind it. Pages 07 and 08 both show it; :meth:`show_ladder` moves the ladder's
    points in place (live rows from a measurement on page 08)."""

    def __init__(self, n: int = 4096, dev: dict | None = None, data: dict | None = None):
        self.n, self.dev, self.data = n, dev, data
        self.roofs = roofline.device_roofs(dev)
        self.pts = roofline_points(data, n, dev)
        self.fig = roofline_figure(self.roofs, self.pts, _("{device}; kernels at M=N=K={n}", device=recorded.label_text(dev), n=n))
        self.fig.add_scatter(
            x=[], y=[], mode="markers+text", name=_("ladder kernels 10-14 (page 08)"),
            marker=dict(size=11, color=LADDER_COLOR, symbol="square"), textposition="middle right",
            textfont=dict(size=10, color=LADDER_COLOR), cliponaxis=False,
            hovertemplate=_("%{customdata}: %{x:.3g} FLOP/B (block tile), %{y:,.0f} GFLOP/s<extra></extra>"))
        self.ladder_trace = len(self.fig.data) - 1
        self.w_table = _html("", "explainer-roofline-table")
        self.w_note = _html("", "explainer-roofline-ladder-note")
        self.show_ladder(recorded.recorded_rows(data) if data else [], _("recorded"))
        sync_figure(self.fig)
        self.widget = W.VBox([self.fig, self.w_table, self.w_note, runtime()])
        self.widget.add_class("explainer-roofline")

    def show_ladder(self, rows: list[dict], source: str) -> None:
        """Place the ladder's points from ``rows`` (recorded or live) and redraw the table."""
        self.ladder = roofline.ladder_points(rows, self.n)
        have = [p for p in self.ladder if p["gflops"] is not None]
        with self.fig.batch_update():
            tr = self.fig.data[self.ladder_trace]
            tr.x = [p["flop_per_byte"] for p in have]
            tr.y = [p["gflops"] for p in have]
            tr.text = [p["file"].split("_")[0] for p in have]
            # points of equal intensity (kernels 11-13) take their labels right, left, right, ...
            tr.textposition = ["middle left" if sum(q["flop_per_byte"] == p["flop_per_byte"] for q in have[:i]) % 2
                               else "middle right" for i, p in enumerate(have)]
            tr.customdata = [p["kernel"] for p in have]
        missing = [p["kernel"] for p in self.ladder if p["gflops"] is None]
        # a live measurement's source begins as "measured just now on {device}" does, in the page's language
        live = source.startswith(("measured", _("measured just now on {device}").split("{")[0] or "measured"))
        not_there = (_("Not measured at {n}³: {kernels}.", n=self.n, kernels=html.escape(", ".join(missing))) if live else
                     _("Not recorded at {n}³: {kernels}.", n=self.n, kernels=html.escape(", ".join(missing))))
        self.w_note.value = (
            f"<div style='{NOTE}'>"
            + _("Squares: the ladder kernels of page 08 (labelled by file number), {source}, at the block-tile intensity "
                "BM·BN / (2·(BM + BN)) FLOP/B: each block loads its BM×BK and BK×BN windows once per phase.",
                source=html.escape(source))
            + (" " + not_there if missing else "") + "</div>")
        self.w_table.value = self._table()

    def _table(self) -> str:
        roofs, rows = self.roofs, []
        for p in self.pts:
            bound = roofline.bound_gflops(p["flop_per_byte"], roofs["bandwidth_gbs"], roofs["peak_gflops"])
            rows.append((f"{p['kernel']} T={p['tile']}", f"{p['flop_per_byte']:.2f}", f"{bound:,.0f}", f"{p['gflops']:,.0f}",
                         f"{p['gflops'] / bound:.1f}×", f"{p['model_bytes'] / 1e9:,.1f}",
                         f"{p['dram_bytes'] / 1e9:,.1f}" if p["dram_bytes"] else "—",
                         f"{p['dram_flop_per_byte']:.1f}" if p["dram_flop_per_byte"] else "—"))
        for p in self.ladder:
            bound = roofline.bound_gflops(p["flop_per_byte"], roofs["bandwidth_gbs"], roofs["peak_gflops"])
            got = p["gflops"]
            rows.append((p["kernel"], f"{p['flop_per_byte']:.2f}", f"{bound:,.0f}",
                         f"{got:,.0f}" if got is not None else _("not recorded"),
                         f"{got / bound:.2f}×" if got is not None else "—", f"{p['model_bytes'] / 1e9:,.1f}", "—", "—"))
        return table((_("kernel"), _("FLOP/B (model)"), _("DRAM bound GFLOP/s"), _("measured GFLOP/s"),
                      _("measured / bound"), _("model GB loaded"), _("DRAM GB (ncu)"), _("FLOP/B (DRAM, ncu)")), rows,
                     _("The bound charges every global load to DRAM. Nsight Compute counted what DRAM really moved: "
                       "L1 and L2 serve most repeated loads, so the naive kernels run far above their bound. The ladder "
                       "kernels' intensities count one load per element per block and phase (block tile dividing N)."))


def roofline_chart(n: int = 4096) -> RooflineChart | None:
    """The roofline from the recorded device and timing files; ``None`` if either is missing."""
    dev = roofline.load_device_record()
    data = recorded.load_recorded()
    if not dev or not data:
        return None
    return RooflineChart(n, dev, data)


def roofline_page(n: int = 4096):
    """The roofline with the recorded kernels (pages 01-08) as points, and the table behind it."""
    chart = roofline_chart(n)
    if chart is None:
        return _html(_("<b>No recorded device or timing file: nothing to plot.</b>"))
    return chart.widget
