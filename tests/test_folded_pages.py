"""Pages 08 and 09 open with the lesson: one screen for the idea and one for its measured effect,
then one ``## Going further`` section, said to be optional, with everything else (the rungs in
detail, waves, split-K, padding and the planner of the tuning engine on page 08; the fragment tables,
precision, measurement notes and Hopper's kernel on page 09). Page 09 is written by
tools/nb_tensor.py and stored up to date (page 08's tools/nb_ladder.py: tests/test_ladder_page.py).

And page 09's register readout names every register as kernel 15 does (``a[mi][i]``,
``b[ni][i]``, ``acc[mi][ni][i]``), so no two entries of a lane share a name; the names come from
explainer.model.mma and stand for the registers the kernel really fills."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

from explainer.model import mma
from explainer.pages import tensor
from explainer.views import mma as vm

REPO = Path(__file__).resolve().parent.parent
NOTEBOOKS = REPO / "notebooks"
FOLDED = ("08_beyond_tiling.ipynb", "09_tensor_cores.ipynb")
HEADING = "## Going further"
#: The lesson before "Going further": at most this many markdown cells, code cells (the navigation
#: bar and the views of the idea and of its measured effect) and characters of prose. The pages
#: before they were folded had 11 and 14 markdown cells, 10,306 and 8,548 characters.
LESSON_MD, LESSON_CODE, LESSON_CHARS = 2, 3, 2000
#: Page 08's tuning-engine words: only under "Going further".
ENGINE_WORDS = re.compile(r"planner|tuning|tuned|split[- ]?k\b|split tail|padded|autotuner|waves?\b", re.IGNORECASE)
#: Page 09's measurement notes and Hopper details: only under "Going further".
NOTES_WORDS = re.compile(r"benchmarks/|CUTLASS|mma_feed|feeding|mbarrier|swizzl|(?-i:\bTMA\b)|ldmatrix", re.IGNORECASE)


def cells(notebook: str | dict) -> list[tuple[str, str]]:
    nb = json.loads((NOTEBOOKS / notebook).read_text(encoding="utf-8")) if isinstance(notebook, str) else notebook
    return [("md" if c["cell_type"] == "markdown" else "code", "".join(c["source"])) for c in nb["cells"]]


def split(cs: list[tuple[str, str]]) -> tuple[list, list]:
    """(the cells before the Going-further heading, the cells from it on); no heading: all before."""
    for i, (kind, src) in enumerate(cs):
        if kind == "md" and HEADING in src.splitlines():
            return cs[:i], cs[i:]
    return cs, []


def lesson_problems(cs: list[tuple[str, str]]) -> list[str]:
    """What keeps a page from opening with a short lesson and one Going-further section."""
    out = []
    headings = [line for kind, src in cs if kind == "md" for line in src.splitlines()
                if line.lstrip("#").strip().lower() == "going further"]
    if headings != [HEADING]:
        out.append(f"one '{HEADING}' heading, found {headings}")
    lesson, rest = split(cs)
    md = [src for kind, src in lesson if kind == "md"]
    code = [src for kind, src in lesson if kind == "code"]
    if len(md) > LESSON_MD:
        out.append(f"{len(md)} markdown cells before Going further (at most {LESSON_MD})")
    if len(code) > LESSON_CODE:
        out.append(f"{len(code)} code cells before Going further (at most {LESSON_CODE})")
    if sum(map(len, md)) > LESSON_CHARS:
        out.append(f"{sum(map(len, md))} characters of prose before Going further (at most {LESSON_CHARS})")
    if rest:
        lines = [line for line in rest[0][1].splitlines()[1:] if line.strip()]
        if len(lines) != 1 or "optional" not in lines[0].lower():
            out.append(f"one line saying what follows is optional under the heading, found {lines}")
    return out


# ---- the pages open with the lesson ----------------------------------------------------------------
@pytest.mark.parametrize("notebook", FOLDED)
def test_the_page_opens_with_the_lesson_and_folds_the_rest(notebook):
    cs = cells(notebook)
    assert lesson_problems(cs) == []
    lesson, rest = split(cs)
    assert lesson[0][0] == "code" and "pages.nav(" in lesson[0][1]  # the bar, then the lesson
    assert lesson[1][0] == "md" and lesson[1][1].startswith("# ")  # the title opens the idea
    assert [k for k, _ in lesson[1:]].count("code") >= 1  # and a measured view follows it
    assert rest[-1][0] == "code" and "pages.nav(" in rest[-1][1]  # the page still ends with its bar
    assert all(not src.startswith("## ") for kind, src in rest[1:] if kind == "md"), \
        "inside Going further, sections are ### (one ## heading: Going further)"


@pytest.mark.parametrize("notebook", FOLDED)
def test_the_lesson_check_fails_on_an_unfolded_page(notebook):
    """Without its Going-further heading (the page as it was: everything one after the other), the
    same page fails the check; with two headings, or no line saying it is optional, too."""
    cs = cells(notebook)
    unfolded = [(k, s) for k, s in cs if not (k == "md" and s.startswith(HEADING))]
    assert lesson_problems(unfolded), "an unfolded page passed"
    lesson, rest = split(cs)
    assert lesson_problems(lesson + rest + [("md", HEADING + "\n\nOptional.")])
    assert lesson_problems(lesson + [("md", HEADING + "\n\nMore below.")] + rest[1:])
    long = lesson[:2] + [("md", "x" * LESSON_CHARS)] + rest
    assert lesson_problems(long)


def test_page_08_names_the_tuning_engine_only_under_going_further():
    lesson, rest = split(cells("08_beyond_tiling.ipynb"))
    before = "\n".join(src for _, src in lesson)
    after = "\n".join(src for _, src in rest)
    assert not ENGINE_WORDS.findall(before), ENGINE_WORDS.findall(before)
    # moved, not deleted: the waves, split-K, padding and the planner are all still there
    for word in ("waves", "split K", "split-K", "split tail", "padded to", "planner", "tuning engine"):
        assert word in after, word
    assert "ladder.planner()" in after and "ladder.planner()" not in before
    assert "ladder.ladder_chart()" in before  # the measured effect opens the page
    assert ENGINE_WORDS.search("the planner picks") and not ENGINE_WORDS.search("one idea each")
    assert ENGINE_WORDS.search("split-K") and ENGINE_WORDS.search("two waves")


def test_page_09_keeps_measurement_notes_and_hopper_details_under_going_further():
    lesson, rest = split(cells("09_tensor_cores.ipynb"))
    before = "\n".join(src for _, src in lesson)
    after = "\n".join(src for _, src in rest)
    assert not NOTES_WORDS.findall(before), NOTES_WORDS.findall(before)
    assert "tensor.fragments()" in before and "tensor.timings()" in before  # the idea and its measurement
    for call in ("fragment_table", "precision", "check_on_gpu", "pipeline", "fragment_bank_table", "feeding",
                 "hopper_table", "swizzle_table", "handover"):
        assert f"tensor.{call}(" in after, call
    assert NOTES_WORDS.search("benchmarks/mma_feed.py") and NOTES_WORDS.search("the TMA copies")
    assert not NOTES_WORDS.search("kernels/17_wgmma_tma.cu")


def _module(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_page_09_is_generated_from_the_model_and_up_to_date():
    make = _module("make_notebooks", REPO / "tools" / "make_notebooks.py")
    page = make.prose_pages("en")["09_tensor_cores.ipynb"]
    assert cells("09_tensor_cores.ipynb") == make.with_nav("09_tensor_cores.ipynb", page), \
        "run python tools/make_notebooks.py"
    src = "\n".join(s for _, s in page)
    k = mma.KERNEL  # the prose quotes the model
    assert f"{k.miter}×{k.niter} = {k.miter * k.niter} `mma.sync`" in src
    assert "lane 0 holds " + ", ".join(f"A[{r}][{c}]" for r, c in mma.fragment("a")[0]) in src
    assert f"With {mma.STAGED.stages} buffers, the copy of phase t + {mma.STAGED.stages - 1}" in src
    called = set(re.findall(r"\btensor\.(\w+)\(", src))
    assert called and all(callable(getattr(tensor, name)) for name in called)


# ---- page 09's register readout ---------------------------------------------------------------------
def readout(meta: dict, a: dict, lane: int, step: int) -> dict[str, list[tuple[str, str]]]:
    """The explorer's readout for ``lane`` at k-step ``step`` as mma.js builds it from what Python
    sent: per fragment, (name, element) of each cell the lane holds, in the order of the names."""
    out = {}
    for which, lanes, names, elem in (
            ("a", a["lane_a"], a["name_a"], lambda r, c: (a["a_row"][step, r, c], a["a_col"][step, r, c])),
            ("b", a["lane_b"], a["name_b"], lambda r, c: (a["b_row"][step, r, c], a["b_col"][step, r, c])),
            ("c", a["lane_c"], a["name_c"], lambda r, c: (a["c_row"][r, c], a["c_col"][r, c]))):
        held = sorted((int(names[r, c]), (r, c)) for r, c in zip(*(lanes == lane).nonzero()))
        out[which] = [(meta["reg_names"][which][i], "{}[{}][{}]".format(which.upper(), *map(int, elem(r, c))))
                      for i, (r, c) in held]
    return out


def duplicates(names: list[str]) -> set[str]:
    return {n for n in names if names.count(n) > 1}


def test_the_duplicate_check_can_fail():
    # the readout as it was: PTX register numbers without the tile, b0 once per n8 tile
    assert duplicates(["b0", "b1", "b0", "b1"]) == {"b0", "b1"} and duplicates(["b[0][0]", "b[1][0]"]) == set()


@pytest.mark.parametrize("warp", [0, 3])
@pytest.mark.parametrize("lane", [0, 5, 18, 31])
def test_every_register_in_the_readout_has_its_own_name(warp, lane):
    meta, a = vm.mma_data(warp)
    k = mma.KERNEL
    tr = mma.predict_trace(vm.M, vm.N, vm.K)
    for step in (0, 1, len(meta["steps"]) - 1):
        entries = readout(meta, a, lane, step)
        names = [n for which in "abc" for n, _ in entries[which]]
        assert duplicates(names) == set(), (lane, step, names)
        assert [n for n, _ in entries["a"]] == mma.register_names("a")  # each register once, in the kernel's order
        assert [n for n, _ in entries["b"]] == mma.register_names("b")
        assert [n for n, _ in entries["c"]] == mma.register_names("c")
        # each name stands for the register the kernel fills: a[mi][i] holds what kernel 15's a[mi][i]
        # holds at this k-step (the predicted trace, equal to the kernel's own on the GPU)
        p, s = divmod(step, k.ksteps)
        for which, shape, n in (("a", (k.miter, mma.REGS["a"]), vm.K), ("b", (k.niter, mma.REGS["b"]), vm.N)):
            for (name, element), (tile, i) in zip(entries[which], ((t, i) for t in range(shape[0]) for i in range(shape[1]))):
                assert name == mma.register_name(which, i, mi=tile, ni=tile)
                src = getattr(tr, which)[0, 0, p, s, warp, tile, lane, i]
                assert element == "{}[{}][{}]".format(which.upper(), *divmod(int(src), n)), (name, element)
        for name, element in entries["c"]:
            mi, ni, i = map(int, re.findall(r"\d+", name))
            assert element == "C[{}][{}]".format(*divmod(int(tr.c[0, 0, warp, mi, ni, lane, i]), vm.N))


def test_register_names_are_the_kernels_own():
    src = (REPO / "kernels" / mma.KERNEL.file).read_text(encoding="utf-8")
    assert "unsigned a[MMA_MITER][4], b[MMA_NITER][2];" in src and "float acc[MMA_MITER][MMA_NITER][4]" in src
    assert "a[mi][0] = tf32_bits(" in src and "b[ni][1] = tf32_bits(" in src
    assert mma.register_name("a", 3, mi=1) == "a[1][3]" and mma.register_name("c", 2, mi=1, ni=3) == "acc[1][3][2]"
    for kern in (mma.KERNEL, mma.STAGED):
        for which in "abc":
            names = mma.register_names(which, kern)
            assert len(names) == len(set(names)) == mma.REGS[which] * {
                "a": kern.miter, "b": kern.niter, "c": kern.miter * kern.niter}[which]
            assert all(names[mma.register_index(which, i, mi, ni, kern)] == mma.register_name(which, i, mi, ni)
                       for mi in range(kern.miter) for ni in range(kern.niter) for i in range(mma.REGS[which]))
    with pytest.raises(ValueError):
        mma.register_name("b", 2)
    with pytest.raises(ValueError):
        mma.register_names("d")


def test_the_browser_takes_the_names_from_python():
    """mma.js builds no register name of its own: it looks each one up in meta.reg_names."""
    js = (REPO / "explainer" / "views" / "mma.js").read_text(encoding="utf-8")
    assert "meta.reg_names[" in js
    assert not re.search(r"register [abc]\$\{|prefix\}\$\{", js)  # as it was: `register b${reg}`, `${prefix}${reg}`
    meta, _ = vm.mma_data(0)
    assert "a[mi][i]" in meta["caption"] and "acc[mi][ni][i]" in meta["caption"]
