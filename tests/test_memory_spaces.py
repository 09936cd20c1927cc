"""The memory spaces (page 05) and dynamic shared memory (page 06): the model's tables against
the presets' file and brute force, the parser-derived table of kernel 03's variables (and of
modified sources), the pages' HTML, and the two sections in an exported static page."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import export_pages

from explainer import resources
from explainer.model import hardware, memspaces
from explainer.sim import SimError
from explainer.sim.spaces import declarations, kernel_declarations

KERNEL_03 = resources.kernels_dir() / "03_tiled.cu"
KERNEL_04 = resources.kernels_dir() / "04_tiled_dynamic.cu"


def _arches() -> dict:
    from importlib import resources as ir

    data = json.loads(ir.files("explainer").joinpath("data/arches.json").read_text())
    return {k: v for k, v in data.items() if not k.startswith("_")}


# ---- the rule ---------------------------------------------------------------------------------
@pytest.mark.parametrize("kw, space, scope, lifetime, points_to", [
    ({"qualifiers": ("__shared__",), "array": True}, "shared", "block", "block", None),
    ({"qualifiers": ("extern", "__shared__"), "array": True}, "shared", "block", "block", None),
    ({"qualifiers": ("__constant__",), "file_scope": True, "array": True}, "constant", "grid", "application", None),
    ({"qualifiers": ("__device__",), "file_scope": True}, "global", "grid", "application", None),
    ({"parameter": True, "pointer": True, "qualifiers": ("const",)}, "constant", "grid", "launch", "global"),
    ({"parameter": True}, "constant", "grid", "launch", None),
    ({}, "registers", "thread", "thread", None),
    ({"qualifiers": ("const",)}, "registers", "thread", "thread", None),
    ({"array": True, "runtime_index": True}, "local", "thread", "thread", None),
    ({"array": True}, "registers", "thread", "thread", None),
    ({"pointer": True, "points_to": "shared"}, "registers", "thread", "thread", "shared"),
])
def test_each_declaration_rule(kw, space, scope, lifetime, points_to):
    p = memspaces.classify(**kw)
    assert (p.space, p.scope, p.lifetime, p.points_to) == (space, scope, lifetime, points_to)
    assert p.rule and "\n" not in p.rule


def test_the_space_table_covers_five_spaces_with_their_scope_and_lifetime():
    rows = memspaces.memory_table({})
    assert [r["space"] for r in rows] == ["registers", "shared", "global", "local", "constant"]
    for r in rows:  # the table's scope and lifetime are the rule's for that space's own declaration
        assert r["scope"] in memspaces.SCOPES and r["lifetime"] in memspaces.LIFETIMES
        assert r["latency"] == [] and r["not_measured"].startswith("not measured")  # no record given
    by = {r["space"]: r for r in rows}
    assert by["shared"]["scope"] == memspaces.classify(("__shared__",), array=True).scope
    assert by["constant"]["lifetime"] == memspaces.classify(("__constant__",), file_scope=True).lifetime


def test_sizes_are_the_presets_file():
    for name, a in _arches().items():
        s = memspaces.sizes(name)
        assert s["register_file_bytes"] == 4 * a["regs_per_sm"] and s["max_regs_per_thread"] == a["max_regs_per_thread"]
        assert s["shared_per_sm"] == a["shared_per_sm"] and s["shared_per_block_optin"] == a["max_shared_per_block"]
        assert s["shared_per_block"] == min(48 * 1024, a["max_shared_per_block"])
        assert s["constant_bytes"] == 65536 and s["local_per_thread"] == 512 * 1024
        assert s["device_memory"] == a["device_memory_bytes"] > 2**30


def test_latency_comes_from_the_record_or_says_not_measured():
    rec = {"device": {"name": "Some GPU"}, "date": "2030-01-02 03:04 UTC", "source": "latency_x.json",
           "cycles_per_load": {"shared": 30.0, "global_dram": 600.0, "constant_small": 33.0},
           "ns_per_load": {"shared": 15.0}}
    lat = memspaces.latencies(rec)["spaces"]
    assert lat["shared"] == [("a load from shared memory", 30.0, 15.0)]
    assert [c for _, c, _ in lat["global"]] == [600.0]  # the L2 hit is not in this record
    assert lat["registers"] == [] and lat["local"] == []
    real = memspaces.latencies()["record"]
    from explainer.model.corrections import latency_records

    recs = latency_records()
    assert (real is None) == (not recs) and (real is None or real["source"] == recs[0]["source"])


# ---- dynamic shared memory ---------------------------------------------------------------------
def test_largest_tile_against_brute_force():
    for S in (8, 100, 2048, 3000, 4096, 8192, 16384, 49152, 232448):
        for threads in (1, 64, 100, 256, 512, 1024):
            fits = [T for T in range(1, 200) if 2 * T * T * 4 <= S and T * T <= threads]
            if not fits:
                with pytest.raises(ValueError):
                    memspaces.largest_tile(S, threads)
                continue
            r = memspaces.largest_tile(S, threads)
            assert r["tile"] == max(fits), (S, threads)
            assert r["bytes"] == 2 * r["tile"] ** 2 * 4


def test_launch_bytes_are_what_the_launch_passes():
    from explainer.gpu import launch_config

    for T in range(1, 33):
        assert memspaces.launch_bytes(T) == launch_config("tiled_dynamic", 33, 35, 37, T).dynamic_shared_bytes == 8 * T * T


def _blocks(a: dict, T: int) -> int:
    """Resident blocks of a T x T block with 2*T*T floats, counted here from the presets' file."""
    warps = -(-T * T // 32)
    smem = -(-(8 * T * T + a["reserved_shared_per_block"]) // a["shared_alloc_unit"]) * a["shared_alloc_unit"]
    return min(a["max_warps_per_sm"] // warps, a["max_blocks_per_sm"], a["shared_per_sm"] // smem)


def test_tile_choice_against_brute_force():
    for name, a in _arches().items():
        c = memspaces.tile_choice(hardware.arch(name), name)
        S = min(48 * 1024, a["max_shared_per_block"])
        largest = max(T for T in range(1, 100) if 8 * T * T <= S and T * T <= a["max_threads_per_block"])
        assert c["largest"]["tile"] == largest
        occ = {T: _blocks(a, T) * -(-T * T // 32) / a["max_warps_per_sm"] for T in range(1, largest + 1)
               if T * T % 32 == 0}
        best = max(occ, key=lambda T: (occ[T], T))
        assert c["best"]["tile"] == best and c["best"]["occupancy"] == pytest.approx(occ[best])
    fermi = memspaces.tile_choice(hardware.arch("fermi"), "fermi")
    assert fermi["best"]["tile"] < fermi["largest"]["tile"]  # 1536 threads: one 32x32 block, six 16x16


def test_a_devices_properties_give_the_presets_answer():
    h = _arches()["hopper"]
    props = {"name": "Some Hopper", "major": 9, "minor": 0, "maxThreadsPerBlock": h["max_threads_per_block"],
             "sharedMemPerBlock": 49152, "sharedMemPerBlockOptin": h["max_shared_per_block"],
             "maxThreadsPerMultiProcessor": h["max_threads_per_sm"], "maxBlocksPerMultiProcessor": h["max_blocks_per_sm"],
             "sharedMemPerMultiprocessor": h["shared_per_sm"], "reservedSharedMemPerBlock": h["reserved_shared_per_block"],
             "regsPerMultiprocessor": h["regs_per_sm"], "multiProcessorCount": 132}
    d = memspaces.device_choice(props)
    p = memspaces.tile_choice(hardware.arch("hopper"), "hopper")
    assert [r["occupancy"] for r in d["rows"]] == [r["occupancy"] for r in p["rows"]]
    assert d["best"]["tile"] == p["best"]["tile"] and "Some Hopper" in d["label"]
    small = memspaces.device_choice({**props, "sharedMemPerBlock": 4096})
    assert small["largest"]["tile"] == 22 and small["largest"]["limiter"] == "shared"
    with pytest.raises(ValueError, match="sharedMemPerBlock"):
        memspaces.device_arch({k: v for k, v in props.items() if k != "sharedMemPerBlock"})


def test_the_notes_rule_forgets_the_thread_limit():
    T = memspaces.notes_tile(48 * 1024)
    assert 8 * T * T <= 48 * 1024 < 8 * (T + 1) ** 2 and T * T > 1024


# ---- where each variable of kernel 03 lives (the parser) -----------------------------------------
#: Kernel 03's declarations and their spaces, by the rule, written from the kernel's text.
KERNEL_03_SPACES = {
    "TILE": None, "A": "constant", "B": "constant", "C": "constant", "M": "constant", "N": "constant", "K": "constant",
    "As": "shared", "Bs": "shared", "ty": "registers", "tx": "registers", "row": "registers", "col": "registers",
    "phases": "registers", "sum": "registers", "t": "registers", "a_col": "registers", "a_in": "registers",
    "b_row": "registers", "b_in": "registers", "k": "registers",
}


def _decl_line(lines: list[str], name: str) -> int:
    """The first line of the file that declares ``name`` (found by a regular expression, not the parser)."""
    pat = re.compile(rf"(?:\b(?:int|float|bool)\s*\*?\s*|\b(?:int|float|bool)\s+\*?)\b{re.escape(name)}\b\s*(?:[=;,)>\[]|$)")
    return next(i + 1 for i, line in enumerate(lines) if pat.search(line.split("//")[0]))


def test_kernel_03_every_variable_in_its_space_on_its_line():
    decls = kernel_declarations("03_tiled.cu")
    assert {d.name: d.space for d in decls} == KERNEL_03_SPACES
    lines = KERNEL_03.read_text().splitlines()
    for d in decls:
        assert d.line == _decl_line(lines, d.name), d.name
        assert d.name in d.code and d.code in lines[d.line - 1]
    by = {d.name: d for d in decls}
    assert all(by[n].placement.points_to == "global" for n in "ABC")
    assert by["Bs"].placement.lifetime == "block" and by["sum"].placement.scope == "thread"
    assert by["A"].type == "const float*" and by["As"].type == "float[TILE][TILE]"


def test_kernel_04_carves_shared_memory_through_pointers():
    by = {d.name: d for d in kernel_declarations("04_tiled_dynamic.cu")}
    assert by["smem"].space == "shared" and "extern" in by["smem"].placement.rule
    assert by["As"].space == by["Bs"].space == "registers"
    assert by["As"].placement.points_to == by["Bs"].placement.points_to == "shared"
    assert by["T"].space == "registers"


def _modified(before_kernel: str = "", in_body: str = "", after_sum: str = "") -> str:
    src = KERNEL_03.read_text()
    src = src.replace("template <int TILE>\n__global__", before_kernel + "template <int TILE>\n__global__", 1)
    src = src.replace("    const int ty = threadIdx.y;\n", in_body + "    const int ty = threadIdx.y;\n", 1)
    return src.replace("    float sum = 0.0f;\n", "    float sum = 0.0f;\n" + after_sum, 1)


def test_a_modified_source_with_a_constant_array_and_local_arrays():
    src = _modified(before_kernel="__constant__ float coeff[16];\n__device__ float total;\n",
                    in_body="    float vals[8];\n    float regs4[4];\n    float unrolled[4];\n    float looped[4];\n"
                            "    float* mine = As[0];\n",
                    after_sum="    vals[threadIdx.x % 8] = coeff[threadIdx.x % 16];\n"
                              "    regs4[0] = 1.0f; regs4[TILE % 4] = 2.0f;\n"
                              "#pragma unroll\n    for (int u = 0; u < 4; ++u) unrolled[u] = 0.0f;\n"
                              "    for (int v = 0; v < 4; ++v) looped[v] = 0.0f;\n")
    by = {d.name: d for d in declarations(src)}
    lines = src.splitlines()
    assert by["coeff"].space == "constant" and by["coeff"].placement.lifetime == "application"
    assert by["total"].space == "global" and by["total"].kind == "file scope"
    assert by["vals"].space == "local" and by["looped"].space == "local"
    assert by["regs4"].space == "registers" and by["unrolled"].space == "registers"
    assert by["mine"].space == "registers" and by["mine"].placement.points_to == "shared"
    for name in ("coeff", "total", "vals", "regs4", "unrolled", "looped", "mine"):
        assert by[name].line == _decl_line(lines, name)
    assert all(by[n].space == space for n, space in KERNEL_03_SPACES.items())  # the rest unchanged


def test_a_broken_source_gets_one_line():
    with pytest.raises(SimError) as e:
        declarations(KERNEL_03.read_text().replace("float sum = 0.0f;", "float sum = ;"))
    assert "\n" not in str(e.value)


#: A kernel with the ladder's signature and nothing else, for one declaration at a time.
BARE = """{file}template <int TILE>
__global__ void bare(const float* A, const float* B, float* C, int M, int N, int K)
{{
    {decl}
    {use}
}}
"""


@pytest.mark.parametrize("ex", memspaces.EXAMPLES, ids=lambda ex: ex[0])
def test_the_questions_examples_are_classified_alike_by_the_parser(ex):
    """Each declaration a question asks about, put into a kernel and walked by the parser."""
    name, where, decl, use, _, _ = ex
    if where == "parameter":
        src = BARE.format(file="", decl="", use="")
    elif where == "file":
        src = BARE.format(file=decl + "\n", decl="", use="")
    else:
        src = BARE.format(file="", decl=decl, use=use)
    got = {d.name: d.placement for d in declarations(src)}[name]
    want = memspaces.example_placement(ex)
    assert (got.space, got.scope, got.lifetime, got.points_to) == (want.space, want.scope, want.lifetime, want.points_to)


# ---- the pages' HTML -------------------------------------------------------------------------------
def test_memory_spaces_html_shows_the_tables():
    from explainer.pages.memspaces import memory_spaces_html
    from explainer.model.corrections import latency_records

    h = memory_spaces_html()
    for label in memspaces.LABELS.values():
        assert label in h
    for a in _arches().values():
        assert html_escape(a["label"]) in h
    recs = latency_records()
    if recs:
        assert html_escape(recs[0]["device"]["name"]) in h and recs[0]["date"] in h
        assert f"{recs[0]['cycles_per_load']['global_dram']:g} cycles" in h
    assert "not measured" in h  # registers and local memory have no record
    for d in kernel_declarations("03_tiled.cu"):
        assert f"<code>{html_escape(d.name)}</code>" in h and f">{d.line}<" in h


def test_memory_spaces_html_without_a_record_says_not_measured(monkeypatch):
    from explainer.model import corrections
    from explainer.pages.memspaces import memory_spaces_html

    monkeypatch.setattr(corrections, "latency_records", lambda: [])
    h = memory_spaces_html()
    assert "<b>not measured</b>" in h and "cycles" not in h.split("explainer-sizes-table")[0].split("latency of one load")[1]


def html_escape(s: str) -> str:
    import html

    return html.escape(s)


def test_dynamic_shared_html_shows_the_kernels_own_lines_and_the_choice(monkeypatch):
    from explainer.pages import memspaces as pm
    from explainer.views import context

    lines = KERNEL_04.read_text().splitlines()
    with context.exporting():
        h = pm.dynamic_shared_html()
    for needle in ("extern __shared__ float smem[];", "float* As = smem;", "float* Bs = smem + T * T;",
                   "const int T = blockDim.x;"):
        i = next(i for i, line in enumerate(lines) if needle in line)
        assert f"{i + 1:>3}  {html_escape(lines[i].strip())}" in h
    assert "2·16·16·4 = 2,048" in h and "static page" in h
    for c in memspaces.preset_choices():
        assert html_escape(c["label"]) in h
    monkeypatch.setattr(memspaces, "dynamic_records", lambda: [])
    with context.exporting():
        assert "Not measured yet" in pm.dynamic_shared_html()
    rec = {"device": {"name": "Some GPU"}, "date": "2030-01-02 03:04 UTC", "versions": {"cupy": "99"},
           "source": "dynamic_shared_x.json", "method": "CUDA events",
           "rows": [{"M": 512, "N": 512, "K": 512, "tile": 16, "static_ms": 0.5, "dynamic_ms": 0.6,
                     "static_rel_error": 1e-7, "dynamic_rel_error": 2e-7}]}
    monkeypatch.setattr(memspaces, "dynamic_records", lambda: [rec])
    with context.exporting():
        h = pm.dynamic_shared_html()
    assert "Some GPU" in h and "2030-01-02 03:04 UTC" in h and "1.20×" in h and "cupy 99" in h
    assert "Measured before a change" not in h  # no fingerprint kept: nothing to compare
    from explainer.gpu.recorded import kernel_fingerprint

    fp = kernel_fingerprint()
    monkeypatch.setattr(memspaces, "dynamic_records", lambda: [{**rec, "kernels": fp}])
    with context.exporting():
        assert "Measured before a change" not in pm.dynamic_shared_html()
    monkeypatch.setattr(memspaces, "dynamic_records", lambda: [{**rec, "kernels": {**fp, "04_tiled_dynamic.cu": "0" * 16}}])
    with context.exporting():
        assert "Measured before a change</b> to 04_tiled_dynamic.cu" in pm.dynamic_shared_html()


def test_dynamic_shared_live_without_a_gpu_says_so():
    from explainer import gpu
    from explainer.pages import memspaces as pm

    if gpu.status().available:
        pytest.skip("a GPU is here: the page shows its row (tests/test_gpu_dynamic_shared.py)")
    assert "No GPU here" in pm.dynamic_shared_html()


# ---- the exported static pages ---------------------------------------------------------------------
@pytest.fixture(scope="module")
def exported_two(tmp_path_factory) -> Path:
    return export_pages(tmp_path_factory, "05_warps_and_coalescing.ipynb", "06_tile_size_and_occupancy.ipynb")


def test_the_static_pages_hold_the_sections_within_the_budget(exported_two):
    from explainer.views.store import STATIC_BUDGET

    for name, cls in (("05_warps_and_coalescing.html", "explainer-variables-table"),
                      ("06_tile_size_and_occupancy.html", "explainer-choice-table")):
        text = (exported_two / name).read_text(encoding="utf-8")
        assert cls in text
        assert len(text.encode()) <= STATIC_BUDGET  # the page budget (3 MiB)


@pytest.mark.browser
def test_the_static_pages_show_the_tables_from_file(exported_two, file_page, page_errors):
    page = file_page
    page.goto((exported_two / "05_warps_and_coalescing.html").as_uri())
    table = page.locator("table.explainer-variables-table")
    table.wait_for(timeout=10_000)
    row = table.locator("tr").filter(has_text="Bs[TILE][TILE]")
    assert "shared memory" in row.inner_text() and "28" in row.inner_text()
    assert page.locator("table.explainer-spaces-table tr").count() == 6
    page.goto((exported_two / "06_tile_size_and_occupancy.html").as_uri())
    lines = page.locator(".explainer-kernel-lines")
    lines.wait_for(timeout=10_000)
    assert "extern __shared__ float smem[];" in lines.inner_text()
    assert page.locator("table.explainer-choice-table tr").count() == 1 + len(hardware.arches())
    assert "static page" in page.locator(".explainer-dynamic-shared").first.inner_text()
    assert page.outside == [] and page_errors == []
