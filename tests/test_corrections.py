"""The course material's mistakes, shown beside the computed figure (explainer.model.corrections,
explainer.pages.corrections), and the index's table of the documents' sections
(explainer.pages.sources).

Each computed value is checked against a brute-force count written here from the kernels' source
(loops over blocks, phases and threads; lanes of a warp; blocks added to an SM one at a time), not
against the model's closed forms; each claim must differ from it; each page shows both numbers,
the document's name, its own words in Chinese, and no lab word."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from explainer import pages
from explainer.model import corrections as model
from explainer.model.hardware import arch
from explainer.pages import sources
from explainer.pages.corrections import correction, correction_html

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
LAB_WORDS = re.compile(r"\bseeds? 00\d|\bseed_00\d|\bsessions? \d+|\bissues? \d+", re.IGNORECASE)
FLOAT = 4


# --------------------------------------------------------------------------------------
# Brute force: the kernels' loops, thread by thread
# --------------------------------------------------------------------------------------
def naive_counts(M, N, K, T):
    """(global loads, FLOP) of kernels/01_naive.cu: every thread inside C runs the k loop."""
    loads = flops = 0
    for by in range(-(-M // T)):
        for bx in range(-(-N // T)):
            for ty in range(T):
                for tx in range(T):
                    row, col = by * T + ty, bx * T + tx
                    if row < M and col < N:
                        for _k in range(K):
                            loads += 2  # A[row*K + k], B[k*N + col]
                            flops += 2  # one multiply-add
    return loads, flops


def tiled_counts(M, N, K, T):
    """(global loads, FLOP) of kernels/03_tiled.cu: per phase each thread copies one element of A
    and one of B where it lies inside the matrix (a padding zero otherwise)."""
    loads = 0
    for by in range(-(-M // T)):
        for bx in range(-(-N // T)):
            for t in range(-(-K // T)):
                for ty in range(T):
                    for tx in range(T):
                        row, col = by * T + ty, bx * T + tx
                        loads += (row < M and t * T + tx < K) + (t * T + ty < K and col < N)
    return loads, 2 * M * N * K


def warp0_lanes(T):
    """(tx, ty) of lanes 0..31 of warp 0 in a T x T block: id = tx + ty*T."""
    return [(i % T, i // T) for i in range(min(32, T * T))]


def runs(addresses):
    """Maximal runs of consecutive floats."""
    a = sorted(set(addresses))
    return 1 + sum(1 for x, y in zip(a, a[1:]) if y - x > FLOAT)


def blocks_that_fit(arch_name, threads, smem):
    """Add blocks to one SM until the next would not fit (warps, block slots, shared memory
    rounded up to the allocation unit, with the per-block reservation)."""
    a = arch(arch_name)
    warps = -(-threads // 32)
    unit = a["shared_alloc_unit"]
    per_block = -(-(smem + a["reserved_shared_per_block"]) // unit) * unit
    n = 0
    while ((n + 1) * warps <= a["max_warps_per_sm"] and n + 1 <= a["max_blocks_per_sm"]
           and (n + 1) * per_block <= a["shared_per_sm"]):
        n += 1
    return n


def test_the_brute_force_tells_kernels_and_shapes_apart():
    """The counts can fail: the tiled kernel loads T times fewer than the naive one, a shape the
    tile does not divide loads fewer than the padded one, and a wider warp is fewer pieces."""
    assert naive_counts(8, 8, 8, 2)[0] == 2 * tiled_counts(8, 8, 8, 2)[0]
    assert tiled_counts(5, 7, 3, 4)[0] < tiled_counts(8, 8, 4, 4)[0]
    assert runs([0, 4, 8, 100]) == 2 and runs([0, 4, 8]) == 1
    assert blocks_that_fit("ampere", 256, 0) == 8 and blocks_that_fit("ampere", 256, 100_000) == 1


# --------------------------------------------------------------------------------------
# Each correction: computed == brute force, claim != computed
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(6, 6, 6), (5, 7, 3), (17, 1, 9)])
def test_naive_bandwidth(shape):
    M, N, K = shape
    loads, flops = naive_counts(M, N, K, 16)
    brute = 1500 * FLOAT * loads / flops  # GB/s at 1500 GFLOP/s
    c = model.naive_bandwidth(n=M)
    assert brute == pytest.approx(6000.0)
    assert c["computed"] == pytest.approx(brute)
    assert c["bytes_per_flop"] == pytest.approx(FLOAT * loads / flops)
    assert c["claim"] == 12000 and c["claim"] != pytest.approx(brute)
    assert c["bound_gflops"] == pytest.approx(200 * flops / (FLOAT * loads))  # 200 GB/s x FLOP/B


@pytest.mark.parametrize("n", [64, 96])
def test_tile_intensity(n):
    c = model.tile_intensity(tiles=(16, 32), n=n)
    for r in c["rows"]:
        loads, flops = tiled_counts(n, n, n, r["tile"])
        assert r["flop_per_byte"] == pytest.approx(flops / (FLOAT * loads)) == pytest.approx(r["tile"] / 4)
        assert r["flop_per_load"] == pytest.approx(flops / loads)
        assert r["claim"] != pytest.approx(r["flop_per_byte"])
    assert (c["claim"], c["computed"]) == (16, pytest.approx(4.0))


def test_sliding_window():
    c = model.sliding_window(big=64, big_T=16)  # the write-up's example, and a bigger one brute-forced too
    M, N, K = c["shape"]
    (naive, _), (tiled, _) = naive_counts(M, N, K, c["tile"]), tiled_counts(M, N, K, c["tile"])
    assert (c["naive_loads"], c["tiled_loads"]) == (naive, tiled)
    assert c["computed"] == pytest.approx(naive / tiled) == pytest.approx(c["tile"])
    assert c["claim"] == K and c["claim"] != pytest.approx(c["computed"])
    assert c["read_once_loads"] != tiled  # the write-up's "each element read once" is not what the window loads
    (bn, _), (bt, _) = naive_counts(64, 64, 64, 16), tiled_counts(64, 64, 64, 16)
    assert c["big"]["ratio"] == pytest.approx(bn / bt) == 16 and c["big"]["claim"] == 64


def test_shared_per_thread():
    c = model.shared_per_thread()
    assert c["computed"] == 32 * 1024 / 256 == 128
    assert c["claim"] == 132 != c["computed"]
    assert c["blocks_per_sm"] == blocks_that_fit("ampere", 256, 32 * 1024) == 4
    assert c["active_threads"] == 4 * 256 and c["occupancy"] == pytest.approx(1024 / 2048)
    assert c["active_threads"] != c["claim_threads"] and c["occupancy"] != pytest.approx(c["claim_occupancy"])


@pytest.mark.parametrize("n", [64, 96])
def test_warp_spread(n):
    c = model.warp_spread(n=n)
    for r in c["rows"]:
        T = r["tile"]
        lanes = warp0_lanes(T)
        c_addr = [(ty * n + tx) * FLOAT for tx, ty in lanes]  # C[row*N + col], block (0, 0)
        a_addr = [(ty * n + 0) * FLOAT for tx, ty in lanes]  # A[row*K + k] at k = 0
        assert r["warp_rows"] == r["rows_touched"] == len({ty for _, ty in lanes})
        assert r["segments"] == runs(c_addr)
        assert r["lines"] == len({a // 128 for a in c_addr})
        assert r["sectors"] == len({a // 32 for a in c_addr})
        assert r["a_sectors"] == len({a // 32 for a in a_addr})
    pieces = {r["tile"]: runs([(ty * n + tx) * FLOAT for tx, ty in warp0_lanes(r["tile"])]) for r in c["rows"]}
    assert pieces == {8: 4, 16: 2, 32: 1}
    assert c["computed"] == min(pieces, key=lambda T: (pieces[T], -T)) == 32
    assert c["claim"] == 8 != c["computed"]


def test_global_latency_shows_the_claims_and_only_what_the_project_measured():
    c = model.global_latency()
    (notes, walk) = c["claims"]
    assert notes["document"] == "the course notes" and walk["document"] == "the gemm_tiled walk-through"
    assert walk["high"] < notes["low"]  # the two documents disagree: the ranges do not overlap
    assert c["computed"] is None
    records = model.latency_records()
    assert c["measured"] == (records[0] if records else None)
    if c["measured"]:  # a recording: DRAM slower than an L2 hit, slower than shared memory
        cyc = c["measured"]["cycles_per_load"]
        assert cyc["global_dram"] > cyc["global_l2_hit"] > cyc["shared"]
        assert cyc["constant_small"] < cyc["global_dram"] and cyc["constant"] < cyc["global_dram"]
        ns = c["measured"]["ns_per_load"]
        assert ns["global_dram"] > ns["global_l2_hit"] > ns["shared"] > 0
        # the clock the record names is the one its cycles and nanoseconds imply
        assert abs(c["measured"]["clock_mhz"] - 1000 * cyc["global_dram"] / ns["global_dram"]) <= 2
        assert c["measured"]["device"]["name"] and c["measured"]["date"]


def test_a_recorded_latency_is_shown_with_device_and_date(tmp_path, monkeypatch):
    fake = {"schema": model.LATENCY_SCHEMA, "device": {"name": "Some GPU"}, "date": "2026-01-02 03:04 UTC",
            "cycles_per_load": {"global_dram": 654.5, "global_l2_hit": 271.0, "shared": 30.0, "constant": 95.5,
                                "constant_small": 25.5},
            "ns_per_load": {"global_dram": 436.3, "global_l2_hit": 180.7, "shared": 20.0, "constant": 63.7,
                            "constant_small": 17.0}, "clock_mhz": 1500}
    monkeypatch.setattr(model, "latency_records", lambda: [{**fake, "source": "latency_x.json"}])
    html = correction_html("global_latency")
    for text in ("Some GPU", "2026-01-02 03:04 UTC", "654.5 cycles", "271", "bench_latency.py", "~100 cycles",
                 "25.5 for 1 KB", "436.3 ns", "1500 MHz", "400-800 cycles holds",
                 "~100 cycles is 6.5× too low for a DRAM load here (2.7× for an L2 hit)"):
        assert text in html, text
    monkeypatch.setattr(model, "latency_records", lambda: [])
    html = correction_html("global_latency")
    assert "has not measured this latency yet" in html and "654.5" not in html
    # the verdict follows the measurement: a DRAM load outside 400-800 does not bear the notes out
    slow = {**fake, "cycles_per_load": {**fake["cycles_per_load"], "global_dram": 950.0}}
    monkeypatch.setattr(model, "latency_records", lambda: [{**slow, "source": "latency_x.json"}])
    assert "400-800 cycles does not hold for this DRAM load (950)" in correction_html("global_latency")


# --------------------------------------------------------------------------------------
# What the page shows
# --------------------------------------------------------------------------------------
def shows(html: str, document: str, claim: str, computed: str) -> list[str]:
    """What is missing from a correction's HTML (empty: it shows everything it must)."""
    missing = [f"the document {document!r}" for _ in [0] if document.lower() not in html.lower()]
    missing += [f"the claim {claim!r}" for _ in [0] if claim not in html]
    missing += [f"the computed {computed!r} in bold" for _ in [0]
                if not re.search(rf"<b>[^<]*{re.escape(computed)}[^<]*</b>", html)]
    missing += ["a Chinese original" for _ in [0] if not re.search(r'<span lang="zh-CN">[^<]*[\u4e00-\u9fff]', html)]
    missing += [f"a lab word: {m.group(0)}" for m in [LAB_WORDS.search(html)] if m]
    return missing


#: name -> (what the claim reads as on the page, what the computed value reads as): the computed
#: figures from the brute-force counts above, formatted as a reader sees them.
def _expected():
    nl, nf = naive_counts(6, 6, 6, 16)
    tl16, tf16 = tiled_counts(64, 64, 64, 16)
    (wn, _), (wt, _) = naive_counts(4, 4, 8, 2), tiled_counts(4, 4, 8, 2)
    return {
        "naive_bandwidth": ("the course notes", "12,000 GB/s", f"{1500 * FLOAT * nl / nf:,.0f} GB/s"),
        "tile_intensity": ("the course notes", "16 operations per byte", f"{tf16 / (FLOAT * tl16):g} FLOP/B"),
        "sliding_window": ("the sliding-window write-up", "not K = 8", f"{wn / wt:g}× fewer"),
        "shared_per_thread": ("the PMPP chapter 5 notes", "132 B per thread",
                              f"{32 * 1024 // 256} B per thread"),
        "warp_spread": ("the lab report", "smaller thread blocks (8×8)", "32×32"),
        "global_latency": ("the gemm_tiled walk-through", "~100 cycles",
                           "Measured" if model.latency_records() else "not measured this latency"),
    }


def test_every_correction_is_checked_here():
    assert set(_expected()) == set(model.CORRECTIONS)


@pytest.mark.parametrize("name", sorted(model.CORRECTIONS))
def test_the_page_shows_claim_computed_and_document(name):
    document, claim, computed = _expected()[name]
    html = correction_html(name)
    assert shows(html, document, claim, computed) == []
    assert f"explainer-correction-{name}" in html
    assert correction(name).value == html


def test_the_page_check_can_fail():
    html = correction_html("naive_bandwidth")
    assert shows(html.replace("6,000", "6,001"), "the course notes", "12,000 GB/s", "6,000 GB/s")
    assert shows(html.replace("12,000", "11,000"), "the course notes", "12,000 GB/s", "6,000 GB/s")
    assert shows(html.replace("course notes", "source"), "the course notes", "12,000 GB/s", "6,000 GB/s")
    assert shows(html.replace('lang="zh-CN"', 'lang="en"'), "the course notes", "12,000 GB/s", "6,000 GB/s")
    assert shows(html + "seed 000", "the course notes", "12,000 GB/s", "6,000 GB/s")


def _calls() -> dict[str, list[str]]:
    """correction name -> the notebooks whose cells call it."""
    out: dict[str, list[str]] = {}
    for nb in sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")):
        for cell in json.loads(nb.read_text(encoding="utf-8"))["cells"]:
            for name in re.findall(r'pages\.correction\("(\w+)"\)', "".join(cell["source"])):
                out.setdefault(name, []).append(nb.name)
    return out


def test_each_correction_is_on_one_page_that_covers_its_document():
    calls = _calls()
    assert set(calls) == set(model.CORRECTIONS), calls
    for name, where in calls.items():
        assert len(where) == 1, (name, where)
        c = model.correction(name)
        docs = [d for d, _ in sources.sections(where[0])]
        assert c["document"] in docs, (name, where[0], docs)


def test_the_index_lists_sections_for_every_page():
    html = pages.index().value
    items = re.findall(r"<li[^>]*>(.*?)</li>", html, re.S)
    assert len(items) == len(pages.available_pages()) == len(pages.PAGES)
    for (nb, _, _), item in zip(pages.available_pages(), items):
        assert f'href="{nb}"' in item
        found = re.search(r'class="explainer-page-sections"[^>]*>In the course material: ([^<]+)</div>', item)
        assert found and found.group(1).strip(), nb
        for doc, sec in sources.sections(nb):
            assert doc in sources.DOCUMENTS and sec.strip(), (nb, doc)
            assert doc in found.group(1), (nb, doc)
    # every document is found somewhere, and the table names no page that is not in the curriculum
    assert {d for secs in sources.SECTIONS.values() for d, _ in secs} == set(sources.DOCUMENTS)
    assert set(sources.SECTIONS) == {nb for nb, _, _ in pages.PAGES}
    assert not LAB_WORDS.search(html)


def test_the_index_check_can_fail(monkeypatch):
    monkeypatch.setitem(sources.SECTIONS, "01_naive.ipynb", ())
    item = re.findall(r"<li[^>]*>(.*?)</li>", pages.index().value, re.S)[0]
    found = re.search(r'class="explainer-page-sections"[^>]*>In the course material: ([^<]+)</div>', item)
    assert not found
