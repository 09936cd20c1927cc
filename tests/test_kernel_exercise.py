"""Your turn, the whole kernel (pages 01-04): each exercise starts from something the simulator
refuses for the reason the page teaches, the kernel of ``kernels/`` that the exercise asks for
passes, hints open one at a time, bad input gets one line, and a static page says where the
exercise runs."""

from __future__ import annotations

import html

import pytest
from conftest import export_pages

from explainer import pages, resources
from explainer.views import kernel_exercise as kx

#: The kernel of ``kernels/`` each exercise asks the student to arrive at.
SOLUTIONS = {"naive": "01_naive.cu", "tiled": "03_tiled.cu", "any_size": "03_tiled.cu",
             "no_barriers": "03_tiled.cu", "no_barrier1": "03_tiled.cu", "no_barrier2": "03_tiled.cu"}
#: What the simulator must find in each starting point (what the page is about).
FINDS = {"naive": {"wrong_result"}, "tiled": {"wrong_result"}, "any_size": {"out_of_bounds", "wrong_result"},
         "no_barriers": {"race"}, "no_barrier1": {"race"}, "no_barrier2": {"race"}}


@pytest.mark.parametrize("key", sorted(SOLUTIONS))
def test_the_start_is_refused_for_the_pages_reason_and_the_kernel_passes(key):
    ex = kx.KernelExercise((key,))
    got = ex.check()
    assert got["passed"] is False
    assert FINDS[key] <= {p["kind"] for p in got["problems"]}, got["problems"]
    assert "✗" in ex.result.value
    ex.editor.value = (resources.kernels_dir() / SOLUTIONS[key]).read_text(encoding="utf-8")
    got = ex.check()
    assert got["passed"] is True, got["problems"]
    assert "✓ Right on every launch" in ex.result.value
    assert "35x79x19" in ex.result.value  # an odd shape was run


def test_skeletons_mark_what_to_write_and_keep_the_rest():
    ex = kx.exercises()
    for key in ("naive", "tiled"):
        s = ex[key].starter
        assert s.count("// TODO") >= 3 and "TRACE_" not in s and "@step" not in s
        assert "template __global__" not in s  # the explicit instantiations are the explainer's
    assert ex["tiled"].starter.count("__syncthreads") == 0  # the barriers are part of the exercise
    assert "__syncthreads" in (resources.kernels_dir() / "03_tiled.cu").read_text()


def test_hints_open_one_at_a_time_and_start_over_restores_the_start():
    ex = kx.KernelExercise(("any_size",))
    hints = kx.exercises()["any_size"].hints
    assert ex.hints.value == "" and ex.hint_button.description == f"Hint ({len(hints)} left)"
    for i in range(1, len(hints) + 1):
        ex.hint()
        assert ex.hints.value.count("<li>") == i and html.escape(hints[i - 1]) in ex.hints.value
    assert ex.hint_button.disabled and ex.hint_button.description == "No more hints"
    ex.editor.value = "garbage"
    ex.reset_button.click()
    assert ex.editor.value == kx.exercises()["any_size"].starter and ex.hints.value == ""
    assert not ex.hint_button.disabled


@pytest.mark.parametrize("source", ["int main( {", "__global__ void f() { while (1) {} }", ""])
def test_bad_input_gets_one_line(source):
    ex = kx.KernelExercise(("tiled",))
    ex.editor.value = source
    got = ex.check()
    if "error" in got:
        assert "\n" not in got["error"] and "⚠" in ex.result.value
        assert "Traceback" not in ex.result.value
    else:  # read, but refused: each problem one line
        assert got["passed"] is False


def test_each_page_offers_its_exercises_and_no_other_page_any():
    for page, keys in kx.PAGE_EXERCISES.items():
        w = pages.kernel_exercise(page + ".ipynb")
        titles = [t for t, _ in w.children[1].options]
        assert titles == [kx.exercises()[k].title for k in keys]
    with pytest.raises(ValueError, match="no kernel exercise"):
        pages.kernel_exercise("05_warps_and_coalescing")


def test_a_static_page_says_where_the_exercise_runs(tmp_path_factory):
    site = export_pages(tmp_path_factory, "02_tiled.ipynb")
    text = (site / "02_tiled.html").read_text(encoding="utf-8")
    assert html.escape(kx.STATIC_NOTE) in text or kx.STATIC_NOTE in text
    assert "explainer-kernel-exercise-static" in text
    assert html.escape("const int a_col = 0;  // TODO") in text


def _sent(stepper):
    """The messages the stepper's view sent to the browser (a stand-in for the comm)."""
    got = []
    stepper.view.send = lambda msg, buffers=None: got.append(msg)
    return got


def test_the_students_kernel_is_stepped_with_its_copies_and_races_marked():
    """Pages 02-04: after a check the stepper shows the student's copies for the block shown, red
    exactly where they are not the tiled kernel's (a column index written with ty for tx) or
    where the simulator saw a race (no barriers); another block keeps the overlay."""
    from explainer.model import Launch
    from explainer.views import tiled as tv

    M, N, K, T, block, _ = kx.STEPPED
    ex = kx.KernelExercise(("tiled",), stepper=True)
    assert ex.stepper is None  # the page opens with one stepper: this one comes with the first check
    ex.check()
    sent = _sent(ex.stepper)
    right = (resources.kernels_dir() / "03_tiled.cu").read_text(encoding="utf-8")
    ex.editor.value = right.replace("const int a_col = t * TILE + tx;", "const int a_col = t * TILE + ty;")
    assert ex.editor.value != right
    ex.check()
    assert ex.stepper_box.layout.display == "" and (ex.stepper.L.M, ex.stepper.L.T) == (M, T)
    mine = sent[-1]["mine"]
    L = Launch("tiled", M, N, K, T)
    _, a = tv.tiled_data(L, ex.stepper.block)
    bx, by = ex.stepper.block
    bad = {i for i, e in enumerate(mine["A"]) if e and e[2]}
    want = set()
    for t in range(L.phases):
        for cell, (r, c) in enumerate(a["cell_rc"]):
            model = tuple(int(v) for v in a["a_src"][t, cell])
            row, col = by * T + int(r), t * T + int(r)  # the student's: ty where tx belongs
            theirs = (row, col) if row < M and col < K else (-1, -1)
            if theirs != model:
                want.add(t * T * T + cell)
    assert bad == want and bad
    assert not any(e and e[2] for e in mine["B"])  # B's copies are right
    ex.stepper._on_msg(ex.stepper.view, {"cmd": "block", "block": [0, 0], "thread": 0, "step": 0}, [])
    assert ex.stepper.block == (0, 0) and "mine" in sent[-1] and sent[-1]["mine"]["A"]
    # the kernel without barriers: its copies are right, every raced cell is marked
    nb = kx.KernelExercise(("no_barriers",), stepper=True)
    nb.check()
    nb_sent = _sent(nb.stepper)
    nb.check()
    raced = nb_sent[-1]["mine"]
    assert any(e and e[2] == 2 for e in raced["A"]) and not any(e and e[2] == 1 for e in raced["A"])
    # the right kernel: nothing red
    ex.editor.value = right
    ex.check()
    assert not any(e and e[2] for key in ("A", "B") for e in sent[-1]["mine"][key])


def test_student_stores_are_checked_against_the_kernels():
    """A kernel that stores C transposed: every thread off the diagonal stores elsewhere, as the
    simulator's trace says, and nothing else is marked."""
    from explainer.sim import check_kernel
    from explainer.views.stepper import TiledStepper

    right = (resources.kernels_dir() / "03_tiled.cu").read_text(encoding="utf-8")
    wrong = right.replace("C[row * N + col] = sum;", "C[col * N + row] = sum;")
    assert wrong != right
    M, N, K, T, block, thread = kx.STEPPED
    for source, bad in ((right, set()), (wrong, {(x, y) for x in range(T) for y in range(T) if x != y})):
        st = TiledStepper(M, N, K, T, block=block, thread=thread)
        st.show_student(check_kernel(source, [(M, N, K, T)]).launches[0])
        c = st.student_copies()["C"]
        assert {(p % T, p // T) for p, e in enumerate(c) if e[2]} == bad


def test_student_reads_are_checked_against_the_kernels():
    """A kernel whose compute loop reads Bs transposed (Bs[tx][k]): for every held phase, k and
    thread, the read is marked exactly where its cell is not Bs[k][tx]; As's reads, and the right
    kernel's, are not marked."""
    from explainer.sim import check_kernel
    from explainer.views.stepper import TiledStepper

    right = (resources.kernels_dir() / "03_tiled.cu").read_text(encoding="utf-8")
    wrong = right.replace("sum += As[ty][k] * Bs[k][tx];", "sum += As[ty][k] * Bs[tx][k];")
    assert wrong != right
    M, N, K, T, block, thread = kx.STEPPED
    for source, transposed in ((right, False), (wrong, True)):
        st = TiledStepper(M, N, K, T, block=block, thread=thread)
        st.show_student(check_kernel(source, [(M, N, K, T)], reads_for=(M, N, K, T)).launches[0])
        reads = st.student_copies()["reads"]
        nph = len(reads["B"]) // (T * T * T)
        assert nph >= 1 and len(reads["A"]) == len(reads["B"])
        assert not any(e and e[1] for e in reads["A"])
        bad = set()
        for tp in range(nph):
            for k in range(T):
                for p in range(T * T):
                    tx = p % T
                    e = reads["B"][(tp * T + k) * T * T + p]
                    assert e is not None and e[0] == ((tx * T + k) if transposed else (k * T + tx))
                    if e[1]:
                        bad.add((tp, k, p))
        assert bad == ({(tp, k, p) for tp in range(nph) for k in range(T) for p in range(T * T)
                        if p % T != k} if transposed else set())


@pytest.mark.browser
def test_the_live_page_steps_a_students_kernel_with_its_wrong_stores_marked(voila_server, browser_page, page_errors):
    """Page 02 served by Voila: the student types a kernel that stores C transposed, checks it, and
    the stepper that appears marks the C elements stored in the wrong place at the store step."""
    from explainer.views.common import HAZARD

    page = browser_page
    page.goto(voila_server.page_url("02_tiled.ipynb"))
    page.locator(".explainer-stepper .explainer-step-label").first.wait_for(timeout=120_000)
    right = (resources.kernels_dir() / "03_tiled.cu").read_text(encoding="utf-8")
    editor = page.locator(".explainer-kernel-editor textarea")
    editor.scroll_into_view_if_needed()
    editor.fill(right.replace("C[row * N + col] = sum;", "C[col * N + row] = sum;")
                .replace("sum += As[ty][k] * Bs[k][tx];", "sum += As[ty][k] * Bs[tx][k];"))
    editor.dispatch_event("change")
    page.get_by_role("button", name="Check with the simulator").click()
    page.get_by_text("Your kernel, stepped").wait_for(timeout=60_000)
    stepper = page.locator(".explainer-stepper").nth(1)
    stepper.locator(".explainer-step-label").filter(has_text="block (x=1, y=1)").wait_for(timeout=30_000)
    stepper.locator(".explainer-last").click()
    stepper.locator(".explainer-step-label").filter(has_text="storing C").wait_for(timeout=10_000)
    view = "document.querySelectorAll('.explainer-stepper')[1].explainerView"
    page.wait_for_function(f"() => {view}.colours('C').flat().includes({HAZARD})", timeout=10_000)
    # the compute loop: the pinned thread (x=1, y=2) reads Bs[1][k] where the kernel reads Bs[k][1]
    stepper.locator(".explainer-first").click()
    label = stepper.locator(".explainer-step-label")
    for _ in range(40):
        if "k = 0 of" in label.inner_text():
            break
        stepper.locator(".explainer-next").click()
    assert "k = 0 of" in label.inner_text()
    page.wait_for_function(f"() => {view}.colours('Bs').flat().includes({HAZARD})", timeout=10_000)
    assert {HAZARD} not in [c for row in page.evaluate(f"() => {view}.colours('As')") for c in row]
    assert page_errors == []
