"""Where the course material is wrong: each claim beside the figure the model computes.

One function per claim. Each returns a dict with at least

* ``claim``: the document's figure, as it prints it (a number; the quote is in ``quote``);
* ``computed``: the same quantity computed here, from :class:`explainer.model.Launch`,
  :mod:`.memory`, :mod:`.hardware` or :mod:`.roofline` (``None`` where nothing here computes it:
  :func:`global_latency`, which quotes a published measurement instead);
* ``why``: one or two sentences on where the claim goes wrong, their numbers filled in from the
  computed fields;

and ``document`` / ``section`` (the document by what it is, as the pages name it), ``quote``
(the claim in English) and ``quote_zh`` (the document's own words). :mod:`explainer.pages.corrections`
draws them; :data:`CORRECTIONS` lists them by name.
"""

from __future__ import annotations

import numpy as np

from . import hardware, memory, roofline
from .launch import FLOAT_BYTES, Launch
from ..i18n import N_, _


def naive_bandwidth(peak_gflops: float = 1500.0, dram_gbs: float = 200.0, n: int = 1024) -> dict:
    """The course notes, 1.2.3: the naive kernel at 1500 GFLOP/s needs "12000 GB/s". It reads two
    floats (8 bytes) per multiply-add, which is 2 FLOP: 4 bytes per FLOP, so 6,000 GB/s."""
    s = Launch("naive", n, n, n, 16).stats()
    bytes_per_flop = FLOAT_BYTES * s["global_loads"] / s["flops"]
    need = peak_gflops * bytes_per_flop
    bound = roofline.bound_gflops(s["flop_per_byte"], dram_gbs, peak_gflops)
    claim = peak_gflops * 2 * FLOAT_BYTES  # the notes' 1500e9 ops/s x 2 accesses x 4 B
    return {
        "name": "naive_bandwidth", "document": "the course notes", "section": "1.2.3",
        "quote": "at a GPU peak of 1500 GFLOPS the bandwidth needed is 1500 × 10⁹ ops/s × 2 × 4 B/ops = 12000 GB/s",
        "quote_zh": "当GPU峰值性能为1500 GFLOPS时，所需带宽为：1500 × 10⁹ ops/s × 2 × 4 B/ops = 12000 GB/s",
        "claim": claim, "computed": need, "unit": "GB/s",
        "peak_gflops": peak_gflops, "bytes_per_flop": bytes_per_flop, "claim_bytes_per_flop": 2 * FLOAT_BYTES,
        "flop_per_byte": s["flop_per_byte"], "dram_gbs": dram_gbs, "bound_gflops": bound,
        "bound_fraction": bound / peak_gflops, "shape": (n, n, n),
        "why": _("The notes count 2 loads × {fb} B for every FLOP, but the two loads feed one multiply-add, which is 2 "
                 "FLOP: {loads} loads × {fb} B for {flops} FLOP at {n}³ is {bpf} B per FLOP, not {claim_bpf}. At {dram} "
                 "GB/s the naive kernel's DRAM bound is {dram} × {fpb} = {bound} GFLOP/s, {pct} of the peak (the figure "
                 "the notes give for the original example).", fb=FLOAT_BYTES, loads=f"{s['global_loads']:,}",
                 flops=f"{s['flops']:,}", n=n, bpf=f"{bytes_per_flop:g}", claim_bpf=2 * FLOAT_BYTES, dram=f"{dram_gbs:g}",
                 fpb=f"{s['flop_per_byte']:g}", bound=f"{bound:g}", pct=f"{bound / peak_gflops:.2%}"),
    }


def tile_intensity(tiles=(16, 32), n: int = 1024) -> dict:
    """The course notes, 4.2: a 16x16 tile gives "16 operations per byte" (and 32x32 "32"). The
    ratio 8192 / 512 is FLOP per float *loaded*; a float is 4 bytes: T/4 FLOP per byte."""
    rows = []
    for T in tiles:
        s = Launch("tiled", n, n, n, T).stats()
        rows.append({"tile": T, "claim": T, "flop_per_load": s["flops"] / s["global_loads"],
                     "flop_per_byte": roofline.intensity("tiled", n, n, n, T),
                     "block_flops": 2 * T * T * T, "block_loads": 2 * T * T})
    first = rows[0]
    return {
        "name": "tile_intensity", "document": "the course notes", "section": "4.2",
        "quote": (f"TILE_WIDTH={first['tile']}: ratio {first['block_flops']} / {first['block_loads']} = "
                  f"{first['claim']} operations per byte"),
        "quote_zh": f"比值：{first['block_flops']} / {first['block_loads']} = {first['claim']} 次运算/字节",
        "claim": first["claim"], "computed": first["flop_per_byte"], "unit": "FLOP/B",
        "tile": first["tile"], "rows": rows, "shape": (n, n, n),
        "why": _("{flops} / {loads} = {fpl} counts FLOP per global load, and a load is one float of {fb} bytes: per "
                 "byte it is {fpl} / {fb} = {fpb} FLOP/B, T/4. This counts every load as DRAM traffic; caches serve "
                 "some of them, so it is a bound on DRAM traffic, not a prediction.", flops=first['block_flops'],
                 loads=first['block_loads'], fpl=f"{first['flop_per_load']:g}", fb=FLOAT_BYTES,
                 fpb=f"{first['flop_per_byte']:g}"),
    }


def sliding_window(M: int = 4, N: int = 4, K: int = 8, T: int = 2, big: int = 1024, big_T: int = 16) -> dict:
    """The sliding-window write-up: against the version without shared memory, global memory
    accesses drop "about K times". They drop by the tile width: each element of A is loaded once
    per block column of C, each element of B once per block row."""
    def ratio(m, n, k, t):
        naive, tiled = Launch("naive", m, n, k, t).stats(), Launch("tiled", m, n, k, t).stats()
        return naive["global_loads"], tiled["global_loads"], naive["global_loads"] / tiled["global_loads"]

    naive_loads, tiled_loads, r = ratio(M, N, K, T)
    big_naive, big_tiled, big_r = ratio(big, big, big, big_T)
    once = M * K + K * N  # the write-up's own table: every element read once
    return {
        "name": "sliding_window", "document": "the sliding-window write-up", "section": N_("performance analysis"),
        "quote": "compared with V0: global memory accesses reduced about K times",
        "quote_zh": "相比V0版本: 全局内存访问减少: 约K倍",
        "claim": K, "computed": r, "unit": "×", "shape": (M, N, K), "tile": T,
        "naive_loads": naive_loads, "tiled_loads": tiled_loads, "read_once_loads": once,
        "big": {"shape": (big, big, big), "tile": big_T, "naive_loads": big_naive, "tiled_loads": big_tiled,
                "ratio": big_r, "claim": big},
        "why": _("The naive kernel loads each element of A once per thread of its row of C; the window, once per block "
                 "column of C (and B once per block row): T times fewer, whatever K is. The write-up's own table counts "
                 "every element read once, M×K + K×N = {once} loads on its example, where the window loads {tiled}; "
                 "only that undercount makes the saving look like K.", once=f"{once:,}", tiled=f"{tiled_loads:,}"),
    }


def shared_per_thread(shared_bytes: int = 32 * 1024, threads: int = 256, arch: str = "ampere") -> dict:
    """The PMPP chapter 5 notes, 5.6: a block of 256 threads with 32 KB of shared memory uses
    "132 B per thread". 32 KB / 256 = 128 B. The occupancy calculator then says how many such
    blocks an A100 SM holds."""
    a = hardware.arch(arch)
    per_thread = shared_bytes / threads
    occ = hardware.occupancy(arch, threads, shared_bytes)
    return {
        "name": "shared_per_thread", "document": "the PMPP chapter 5 notes", "section": "5.6",
        "quote": "per-thread use: 32 KB / 256 = 132 B per thread; most threads supported: 164 KB / 132 B ≈ 1241; "
                 "occupancy at most 1241 / 2048 ≈ 62%",
        "quote_zh": "线程均耗：32KB/256 = 132B/线程；最大支持线程数：164KB / 132B ≈ 1241 线程；占用率上限：1241 / 2048 ≈ 62%",
        "claim": 132, "computed": per_thread, "unit": "B per thread",
        "claim_threads": 1241, "claim_occupancy": 0.62,
        "shared_bytes": shared_bytes, "threads": threads, "arch": arch, "arch_label": a["label"],
        "shared_per_sm": a["shared_per_sm"], "max_threads_per_sm": a["max_threads_per_sm"],
        "threads_if_divisible": a["shared_per_sm"] // per_thread,
        "blocks_per_sm": occ.blocks_per_sm, "active_threads": occ.active_threads, "occupancy": occ.occupancy,
        "limiter": occ.limiter, "reserved_per_block": a["reserved_shared_per_block"],
        "why": _("32 KB is {bytes} bytes, and {bytes} / {threads} = {per} exactly. The notes' next step divides the SM's "
                 "shared memory by a per-thread share too, but it is handed out per block: an {arch} SM has {sm} B and "
                 "each block takes {bytes} B plus {reserved} B reserved, so {blocks} blocks fit ({active} threads), not "
                 "the {guess} threads that {sm} / {per} would suggest.", bytes=f"{shared_bytes:,}", threads=threads,
                 per=f"{per_thread:g}", arch=a['label'], sm=f"{a['shared_per_sm']:,}",
                 reserved=f"{a['reserved_shared_per_block']:,}", blocks=occ.blocks_per_sm,
                 active=f"{occ.active_threads:,}", guess=f"{a['shared_per_sm'] // per_thread:,.0f}"),
    }


def _segments(addresses: list[int]) -> int:
    """Maximal runs of consecutive floats among ``addresses`` (bytes)."""
    a = np.unique(np.asarray(addresses, dtype=np.int64))
    return int(1 + np.count_nonzero(np.diff(a) > FLOAT_BYTES)) if a.size else 0


def warp_spread(tiles=(8, 16, 32), n: int = 64, kernel: str = "naive") -> dict:
    """The lab report, 3.2.2: smaller (8x8) blocks keep a warp's addresses contiguous more easily.
    A warp is 32 consecutive thread ids, ``tx + ty*T``: an 8x8 block packs 4 rows of 8 into it, so
    its store of C is 4 separate 32-byte pieces in 4 rows; a 32x32 block's warp is one row of 128 B."""
    rows = []
    for T in tiles:
        L = Launch(kernel, n, n, n, T)
        store = memory.warp_request(L, "C store", (0, 0), 0)
        a_load = memory.warp_request(L, "A load", (0, 0), 0, k=0)
        used = [x for x in store.lanes if x["address"] is not None]
        rows.append({"tile": T, "warp_rows": memory.warp_rows(T),
                     "rows_touched": len({x["element"][0] for x in used}),
                     "segments": _segments([x["address"] for x in used]),
                     "lines": store.lines, "sectors": store.sectors, "ideal": store.ideal,
                     "a_sectors": a_load.sectors, "a_ideal": a_load.ideal})
    best = min(rows, key=lambda r: (r["segments"], -r["tile"]))
    by = {r["tile"]: r for r in rows}
    small = rows[0]
    return {
        "name": "warp_spread", "document": "the lab report", "section": "3.2.2",
        "quote": "smaller thread blocks (8×8) more easily keep the addresses within each warp (32 threads) contiguous, "
                 "and so make better use of coalesced memory access",
        "quote_zh": "较小的线程块（ 8×8 ）更易保证每个 warp（32 线程）内的访问地址连续，从而更好地利用内存合并访问",
        "claim": small["tile"], "computed": best["tile"], "unit": "block edge whose warps are most contiguous",
        "rows": rows, "by_tile": by, "kernel": kernel, "shape": (n, n, n),
        "why": _("A warp is 32 consecutive ids tx + ty·T, so a block T wide puts 32/T of its rows into one warp: {rows} "
                 "rows of {T} for {T}×{T}. Its store of C costs {sectors} sectors in every shape (each row piece fills "
                 "whole sectors), but it is cut into {pieces} pieces in {lines} lines, and its load of A[row][k] pays "
                 "one sector per row: {a} where {ideal} would do.", rows=small['warp_rows'], T=small['tile'],
                 sectors=small['sectors'], pieces=small['segments'], lines=small['lines'], a=small['a_sectors'],
                 ideal=small['a_ideal']),
    }


#: What bench_latency.py writes (benchmarks/bench_latency.py --save): cycles and nanoseconds per
#: dependent load, and the SM clock they imply.
LATENCY_SCHEMA = "latency/2"


def latency_records() -> list[dict]:
    """Every recorded latency measurement (``explainer/data/recorded/latency_*.json``), newest
    first, each with its ``source`` file name."""
    from .roofline import recorded_json

    return recorded_json("latency_*.json", LATENCY_SCHEMA)


def which_claim(claims: list[dict], cycles: dict) -> str:
    """Which document's figure the measurement bears out, in words."""
    d, l2 = cycles["global_dram"], cycles["global_l2_hit"]
    out = []
    for c in claims:
        doc = _("{document}'s", document=_(c["document"])).replace("s's", "s'")  # (the notes' figure)
        doc = doc[0].upper() + doc[1:]
        if c["low"] == c["high"]:
            near = c["low"]
            if 0.5 * near <= d <= 1.5 * near:
                out.append(_("{whose} ~{near} cycles is near this DRAM load.", whose=doc, near=near))
            else:
                out.append(_("{whose} ~{near} cycles is {dram}× too low for a DRAM load here ({l2}× for an L2 hit).",
                             whose=doc, near=near, dram=f"{d / near:.1f}", l2=f"{l2 / near:.1f}"))
        elif c["low"] <= d <= c["high"]:
            out.append(_("{whose} {low}-{high} cycles holds for this DRAM load.", whose=doc, low=c['low'], high=c['high']))
        else:
            out.append(_("{whose} {low}-{high} cycles does not hold for this DRAM load ({dram}).", whose=doc,
                         low=c['low'], high=c['high'], dram=f"{d:g}"))
    return " ".join(out)


def global_latency() -> dict:
    """The course notes give global memory 400-800 cycles; the gemm_tiled walk-through ~100.
    Nothing here computes a latency: the page shows what ``benchmarks/bench_latency.py`` measured
    (pointer chasing on a GPU, recorded with device and date), or says that none is recorded."""
    claims = [
        {"document": "the course notes", "section": "6.1", "low": 400, "high": 800,
         "quote": "global memory … access latency (GPU cycles): 400-800",
         "quote_zh": "全局内存 … 访问延迟（GPU周期） 400-800"},
        {"document": "the gemm_tiled walk-through", "section": N_("coalesced access"), "low": 100, "high": 100,
         "quote": "global memory … high access latency (~100 cycles)",
         "quote_zh": "全局内存 … 访问延迟高（~100周期）"},
    ]
    records = latency_records()
    measured = records[0] if records else None
    disagree = _("The two documents disagree by a factor of {factor} or more; latency depends on the GPU and on what "
                 "the load hits (DRAM, L2, shared or constant memory).", factor=claims[0]['low'] // claims[1]['low'])
    if measured:
        c, ns = measured["cycles_per_load"], measured.get("ns_per_load", {})
        small = (_(" and {cycles} (1 KB, in the constant cache nearest the SM)", cycles=f"{c['constant_small']:g}")
                 if "constant_small" in c else "")
        timed = (_("; in time, a DRAM load {ns} ns at the {mhz} MHz the SM ran at", ns=f"{ns['global_dram']:g}",
                   mhz=measured['clock_mhz']) if ns and measured.get("clock_mhz") else "")
        why = " ".join((disagree, _(
            "Measured by pointer chasing on the {device} ({date}): a load from DRAM {dram} cycles, an L2 hit {l2}, "
            "shared memory {shared}, constant memory {constant} (a 16 KB working set){small}{timed}.",
            device=measured['device']['name'], date=measured['date'], dram=f"{c['global_dram']:g}",
            l2=f"{c['global_l2_hit']:g}", shared=f"{c['shared']:g}", constant=f"{c['constant']:g}", small=small,
            timed=timed), which_claim(claims, c)))
    else:
        why = " ".join((disagree, _(
            "The explainer has not measured this latency yet: benchmarks/bench_latency.py measures it on a GPU "
            "(pointer chasing) and this page then shows the recorded figures with device and date.")))
    return {
        "name": "global_latency", "document": "the course notes", "section": "6.1",
        "claims": claims, "claim": (claims[0]["low"], claims[0]["high"], claims[1]["low"]),
        "computed": None, "measured": measured,
        "verdict": which_claim(claims, measured["cycles_per_load"]) if measured else None,
        "quote": claims[0]["quote"], "quote_zh": claims[0]["quote_zh"], "why": why,
    }


#: Every correction by name, in the order the pages meet them.
CORRECTIONS = {
    "naive_bandwidth": naive_bandwidth,
    "sliding_window": sliding_window,
    "warp_spread": warp_spread,
    "global_latency": global_latency,
    "shared_per_thread": shared_per_thread,
    "tile_intensity": tile_intensity,
}


def correction(name: str) -> dict:
    if name not in CORRECTIONS:
        raise KeyError(f"no correction {name!r}; choose one of {', '.join(CORRECTIONS)}")
    return CORRECTIONS[name]()
