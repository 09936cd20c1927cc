"""Page 02's "Your turn": the student writes the tiled kernel's index expressions and the page
checks them for every thread of the block, every phase and every k, in the browser, from the
exported static page (no kernel, nothing from outside). What the page reports is compared with
what the model says for the same expressions, computed here in Python."""

from __future__ import annotations

import pytest
from conftest import export_pages

from explainer.model import Launch
from explainer.model.launch import PAD
from explainer.views import tiled as tv
from explainer.views.common import HAZARD, PINNED

STEPPER = ".explainer-stepper"
TURN = f"{STEPPER} details.explainer-yourturn"
VIEW = f"document.querySelector('{STEPPER}').explainerView"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    return export_pages(tmp_path_factory, "02_tiled.ipynb")


@pytest.fixture
def page02(site, browser, page_errors):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    outside: list[str] = []
    page.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file://") else (outside.append(r.request.url), r.abort()))
    page.on("pageerror", lambda exc: page_errors.append(f"pageerror: {exc}"))
    page.goto((site / "02_tiled.html").as_uri())
    page.locator(f"{STEPPER} .explainer-step-label").filter(has_text="step 1 of").wait_for(timeout=10_000)
    page.locator(f"{TURN} summary").click()
    yield page
    assert outside == [] and page_errors == []
    page.close()


def _fill(page, **blanks):
    for blank, text in blanks.items():
        page.locator(f"{TURN} input[data-blank='{blank}']").fill(text)
    page.locator(f"{TURN} .explainer-yourturn-check").click()


def _result(page, blank) -> str:
    return page.locator(f"{TURN} .explainer-yourturn-result [data-blank='{blank}']").inner_text()


KERNELS = dict(row="blockIdx.y * TILE + threadIdx.y", col="blockIdx.x * TILE + threadIdx.x",
               a_r="row", a_c="t * TILE + threadIdx.x", b_r="t * TILE + threadIdx.y", b_c="col",
               as_r="threadIdx.y", as_c="k", bs_r="k", bs_c="threadIdx.x")


def test_the_kernels_own_indices_are_right_everywhere(page02):
    _fill(page02, **KERNELS)
    L = Launch("tiled", 8, 8, 8, 4)
    for blank in ("row", "col", "a_r", "b_r", "as_r", "bs_r"):
        text = _result(page02, blank)
        assert text.startswith("✓") and "right for all 16 threads" in text, text
    assert f"in {L.phases} phases" in _result(page02, "a_r")
    # written differently, the same values: still right (it is the values that are checked)
    _fill(page02, row="threadIdx.y + TILE * blockIdx.y", a_c="(t * blockDim.x) + tx", bs_c="tx")
    assert all(_result(page02, b).startswith("✓") for b in ("row", "a_r", "bs_r"))


def test_a_wrong_index_is_counted_and_shown_as_the_model_says(page02):
    """col with threadIdx.y: wrong for every thread with x != y; the first named with the kernel's
    value; B loads that use col are wrong for those threads too; the copies are drawn red."""
    L, block = Launch("tiled", 8, 8, 8, 4), (1, 0)  # the launch page 02 opens on
    meta, a = tv.tiled_data(L, block, exercise=True)
    T = L.T
    wrong_threads = [(int(x), int(y)) for x, y in a["thread_xy"] if x != y]
    _fill(page02, **{**KERNELS, "col": "blockIdx.x * TILE + threadIdx.y"})
    text = _result(page02, "col")
    assert text.startswith("✗") and f"{len(wrong_threads)} threads of {T * T} wrong" in text, text
    x, y = next((int(x), int(y)) for x, y in a["thread_xy"] if x != y)
    assert f"thread (x={x}, y={y}): yours {block[0] * T + y}, the kernel's {block[0] * T + x}" in text
    # B's loads with b_c = col: each (thread, phase) of a wrong thread copies a wrong element
    bad = 0
    for t in range(L.phases):
        for p, (tx, ty) in enumerate(a["thread_xy"]):
            want = tuple(int(v) for v in (a["b_src"][t, a["store_cell"][p]] if a["b_src"][t, a["store_cell"][p]][0] != PAD
                                          else a["b_want"][t, a["store_cell"][p]]))
            if (t * T + int(ty), block[0] * T + int(ty)) != want:
                bad += 1
    assert f"{bad} copies of {L.phases * T * T} wrong" in _result(page02, "b_r")
    assert _result(page02, "row").startswith("✓") and _result(page02, "a_r").startswith("✓")
    # Draw my copies: the Bs cells whose copy is wrong turn red in the load of B (step 2)
    page02.locator(f"{TURN} .explainer-yourturn-mine").check()
    page02.locator(f"{STEPPER} .explainer-next").click()
    page02.locator(f"{STEPPER} .explainer-step-label").filter(has_text="step 2 of").wait_for(timeout=5_000)
    bs = page02.evaluate(f"() => {VIEW}.colours('Bs')")
    red = {(r, c) for r in range(T) for c in range(T) if bs[r][c] == HAZARD}
    writer = {tuple(int(v) for v in a["cell_rc"][a["store_cell"][p]]): (int(tx), int(ty)) for p, (tx, ty) in enumerate(a["thread_xy"])}
    pinned = (2, 1)  # the pinned thread (x=1, y=2) stores Bs[2][1]: drawn as the pinned thread's
    assert red == {cell for cell, (tx, ty) in writer.items() if tx != ty} - {pinned}
    assert writer[pinned] == (1, 2) and bs[pinned[0]][pinned[1]] == PINNED
    page02.locator(f"{TURN} .explainer-yourturn-mine").uncheck()
    assert HAZARD not in sum(page02.evaluate(f"() => {VIEW}.colours('Bs')"), [])


@pytest.mark.parametrize("text,says", [
    ("alert(1)", 'unknown name "alert"'),
    ("blockIdx.y * TILE +", "ends too early"),
    ("threadIdx.y[0]", "cannot read"),
    ("1 / 0", "division by zero"),
    ("x" * 201, "too long"),
    ("(window.__ran = 1)", 'unknown name "window.__ran"'),  # were it run as JavaScript, __ran would be 1
])
def test_a_bad_expression_gets_one_line_and_runs_nothing(page02, text, says):
    page02.evaluate("() => { window.__ran = false; }")
    _fill(page02, **{**KERNELS, "row": text})
    errors = page02.locator(f"{TURN} .explainer-yourturn-result .ex-error").all_inner_texts()
    assert len(errors) == 1 and says in errors[0] and "\n" not in errors[0], errors
    assert page02.evaluate("() => window.__ran") is False
    # a good expression after it: the line goes
    _fill(page02, **KERNELS)
    assert page02.locator(f"{TURN} .explainer-yourturn-result .ex-error").count() == 0


def test_show_the_kernels_fills_every_blank_with_an_answer_the_check_accepts(page02):
    page02.locator(f"{TURN} .explainer-yourturn-answer").click()
    results = page02.locator(f"{TURN} .explainer-yourturn-result > div").all_inner_texts()
    assert results and all(r.startswith("✓") for r in results), results
    assert page02.locator(f"{TURN} input[data-blank='a_c']").input_value() == tv.index_exercise()["answers"]["a_c"]


NAIVE = ".explainer-naive"
NAIVE_TURN = f"{NAIVE} details.explainer-yourturn"


@pytest.fixture(scope="module")
def site01(tmp_path_factory):
    return export_pages(tmp_path_factory, "01_naive.ipynb")


def test_page_01_checks_the_naive_kernels_indices_for_both_mappings(site01, browser, page_errors):
    """Page 01: the naive kernel's row / col and loads, checked for every thread of the blocks
    drawn; a row written with threadIdx.x is wrong for the threads the model says, and drawing
    the student's copies marks exactly the C elements those threads own; the column mapping has
    its own answers."""
    from explainer.views import naive as nv

    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file://") else r.abort())
    page.on("pageerror", lambda exc: page_errors.append(f"pageerror: {exc}"))
    try:
        page.goto((site01 / "01_naive.html").as_uri())
        page.locator(f"{NAIVE} .explainer-naive-text").filter(has_text="block (x=").wait_for(timeout=10_000)
        page.locator(f"{NAIVE_TURN} summary").click()
        blank = lambda b: page.locator(f"{NAIVE_TURN} input[data-blank='{b}']")  # noqa: E731
        result = lambda b: page.locator(f"{NAIVE_TURN} .explainer-yourturn-result [data-blank='{b}']").inner_text()  # noqa: E731
        page.locator(f"{NAIVE_TURN} .explainer-yourturn-answer").click()
        assert all(result(b).startswith("✓") for b in ("row", "col", "a_r", "b_r"))
        # row with threadIdx.x: wrong wherever the thread's x and y differ, over every block drawn
        L = Launch("naive", 1024, 1024, 1024, 16)
        meta, a = nv.naive_data(L, (2, 1))
        T = L.T
        wrong = [(bi, q) for bi, (bx, by) in enumerate(a["blocks"]) for q, (tx, ty) in enumerate(a["thread_xy"])
                 if by * T + tx != a["thr_rc"][bi, q, 0]]
        blank("row").fill("blockIdx.y * blockDim.y + threadIdx.x")
        page.locator(f"{NAIVE_TURN} .explainer-yourturn-check").click()
        text = result("row")
        assert text.startswith("✗") and f"{len(wrong):,} threads of {len(a['blocks']) * T * T:,} wrong" in text, text
        page.locator(f"{NAIVE_TURN} .explainer-yourturn-mine").check()
        C = page.evaluate(f"() => document.querySelector('{NAIVE}').explainerView.colours('C')")
        red = {(r, c) for r in range(len(C)) for c in range(len(C[0])) if C[r][c] == HAZARD}
        nw = meta["nwin"][1] - meta["nwin"][0]
        want = {divmod(int(a["thr_cell"][bi, q]), nw) for bi, q in wrong if a["thr_cell"][bi, q] >= 0}
        pinned = {(r, c) for r in range(len(C)) for c in range(len(C[0])) if C[r][c] == PINNED}
        assert red == want - pinned and red
        # the other mapping: its own answers, accepted
        page.locator(f"{NAIVE} .explainer-kernel button[data-value='naive_col']").click()
        page.locator(f"{NAIVE_TURN} summary").filter(has_text="naive_col").wait_for(timeout=5_000)
        page.locator(f"{NAIVE_TURN} .explainer-yourturn-answer").click()
        assert blank("row").input_value() == nv.FORMULAS["naive_col"][0]
        assert all(result(b).startswith("✓") for b in ("row", "col", "a_r", "b_r"))
        assert page_errors == []
    finally:
        page.close()
