"""Predict, then reveal, in exported static pages (Chromium from ``file://``, every other request
refused): the questions and answers the model computed for the embedded question sets, the
browser's reading and checking of typed answers (the same as :mod:`explainer.model.questions`,
spelling by spelling), the model's reason for a wrong answer, "Another one" through the sets, and
"Show the step" moving the page's stepper to the block, thread and step that show the answer."""

from __future__ import annotations

import json
import re

import pytest
from conftest import export_pages
from test_questions import _typed, _wrong

from explainer.model import Launch
from explainer.model import questions as Q
from explainer.pages.exercises import stepper_pool
from explainer.views.quiz import STATIC_SETS

PAGES = ("02_tiled.ipynb", "04_barriers.ipynb", "06_tile_size_and_occupancy.ipynb")
#: Pages whose embedded question sets are checked too, each exported on its own (no browser test).
MORE_PAGES = ("08_beyond_tiling.ipynb", "09_tensor_cores.ipynb")
QUIZ = ".explainer-quiz"
STEPPER = ".explainer-stepper"
LABEL = f"{STEPPER} .explainer-step-label"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    return export_pages(tmp_path_factory, *PAGES)


@pytest.fixture(scope="module")
def exported(request, tmp_path_factory):
    """The exported folder that holds a page: :func:`site` for :data:`PAGES`, else the page alone."""
    done = {}

    def get(nb):
        if nb in PAGES:
            return request.getfixturevalue("site")
        if nb not in done:
            done[nb] = export_pages(tmp_path_factory, nb)
        return done[nb]

    return get


def _states(html: str) -> dict[str, dict]:
    """Each exported view's state, by the view's name."""
    out = {}
    for name, sid in re.findall(r'data-explainer-view="(\w+)" data-state="(ex-state-\d+)"', html):
        m = re.search(rf'<script type="application/json" id="{sid}">(.*?)</script>', html, re.S)
        out[name] = json.loads(m.group(1).replace("<\\/", "</"))
    return out


@pytest.mark.parametrize("nb", PAGES + MORE_PAGES)
def test_the_page_embeds_the_models_question_sets(exported, nb):
    page = nb[:-len(".ipynb")]
    states = _states((exported(nb) / f"{page}.html").read_text(encoding="utf-8"))
    (payload,) = states["quiz"]["store"]["payloads"]
    sets = payload["meta"]["sets"]
    pool = stepper_pool() if "tiled" in states else None
    assert [s["seed"] for s in sets] == list(range(1, STATIC_SETS + 1))
    for s in sets:
        want = [q.to_dict() for q in Q.questions(page, s["seed"], pool)]
        assert [{k: v for k, v in q.items() if k != "hint"} for q in s["questions"]] == json.loads(json.dumps(want))
    assert len({json.dumps([q["prompt"] for q in s["questions"]]) for s in sets}) == STATIC_SETS
    if "tiled" in states:  # every step to show is one the page's stepper holds
        held = states["tiled"]["store"]["states"]
        targets = [q["show"] for s in sets for q in s["questions"] if q["show"]]
        assert len(targets) >= 2 * STATIC_SETS
        for t in targets:
            key = "|".join(str(v) for v in (t["kernel"], t["M"], t["N"], t["K"], t["T"], *t["block"]))
            assert key in held, key
    else:
        assert not any(q["show"] for s in sets for q in s["questions"])


# ---- in the browser -------------------------------------------------------------------------------


def _open(page, site, name):
    page.goto((site / f"{name}.html").as_uri())
    page.locator(f"{QUIZ} .explainer-quiz-q").first.wait_for(timeout=10_000)
    return _states((site / f"{name}.html").read_text(encoding="utf-8"))["quiz"]["store"]["payloads"][0]["meta"]["sets"]


def _question(page, i):
    return page.locator(f"{QUIZ} .explainer-quiz-q").nth(i)


@pytest.mark.browser
def test_check_reason_another_one_and_show_the_step_on_page_02(site, file_page, page_errors):
    page = file_page
    sets = _open(page, site, "02_tiled")
    page.locator(LABEL).filter(has_text="step 1 of").wait_for(timeout=10_000)
    assert page.locator(f"{QUIZ} .explainer-quiz-set").inner_text() == f"Question set 1 of {STATIC_SETS}"
    first = Q.questions("02_tiled", 1, stepper_pool())
    q, box = first[0], _question(page, 0)
    assert q.key == "loads" and box.locator(".explainer-quiz-prompt").inner_text() == q.prompt

    # Garbage: one line that says why, from the same reading as the model's.
    box.locator("input").fill("banana")
    box.locator(".explainer-quiz-check").click()
    assert box.locator(".explainer-quiz-error").inner_text() == f"⚠ {q.check('banana').message}"
    assert box.locator(".explainer-quiz-verdict").inner_text() == ""
    # A wrong answer (Enter checks): the model's reason, naming the right element and what was typed.
    (ar, ac), b = q.answer[0], q.answer[1]
    typed = f"A[{ar + 1}][{ac}] and B[{b[0]}][{b[1]}]"
    box.locator("input").fill(typed)
    assert box.locator(".explainer-quiz-error").inner_text() == ""  # typing clears the last line
    box.locator("input").press("Enter")
    verdict = box.locator(".explainer-quiz-verdict").inner_text()
    assert verdict == f"✗ {q.check(typed).message}"
    assert verdict.endswith(f"= A[{ar}][{ac}], not A[{ar + 1}][{ac}].") and verdict.count(", not ") == 1  # B was right
    # The right answer, named the other way round.
    box.locator("input").fill(f"B[{b[0]}][{b[1]}], A[{ar}][{ac}]")
    box.locator("input").press("Enter")
    assert box.locator(".explainer-quiz-verdict").inner_text() == f"✓ Right: {q.answer_text}."

    # Show the step: the stepper moves to the block, the thread and the load of phase t.
    bx, by = q.params["block"]
    tx, ty = q.params["thread"]
    t, P = q.params["phase"], Launch("tiled", q.params["M"], q.params["N"], q.params["K"], q.params["T"]).phases
    box.locator(".explainer-quiz-show").click()
    page.locator(LABEL).filter(has_text=f"phase t = {t} of 0..{P - 1}").wait_for(timeout=5_000)
    label = page.locator(LABEL).inner_text()
    assert label.startswith(f"block (x={bx}, y={by}) · phase t = {t} of 0..{P - 1} · loading the A tile into As")
    assert f"thread (x={tx}, y={ty}) owns" in page.locator(f"{STEPPER} .explainer-sum").inner_text()
    state = page.evaluate(f"() => document.querySelector('{STEPPER}').explainerView.state()")
    assert state["step"] == q.show["steps"]["k"] and state["block"] == [bx, by]
    assert box.locator(".explainer-quiz-answer").inner_text() == f"The stepper above now shows {q.show['where']}."

    # A compute step: As[ty][k] and Bs[k][tx], the stepper at that k.
    r = first[1]
    assert r.key == "reads"
    _question(page, 1).locator(".explainer-quiz-show").click()
    k = r.params["k"]
    page.locator(LABEL).filter(has_text=f"k = {k} of 0..{r.params['T'] - 1}").wait_for(timeout=5_000)
    assert f"phase t = {r.params['phase']} of" in page.locator(LABEL).inner_text()
    # Reveal: the answer and how the model gets it.
    _question(page, 1).locator(".explainer-quiz-reveal").click()
    assert _question(page, 1).locator(".explainer-quiz-answer").inner_text() == f"Answer: {r.answer_text}. How: {r.working}"

    # A step the page does not hold: the stepper says so, and the quiz that it could not go there.
    page.evaluate(f"""() => document.querySelector('{STEPPER}').explainerView.show(
        {{kernel: "tiled", M: 37, N: 8, K: 8, T: 4, block: [0, 0], thread: [0, 0], p: 0, steps: {{k: 0, loop: 0}}}},
        (ok) => {{ window.__shown = ok; }})""")
    assert page.evaluate("() => window.__shown") is False
    assert "live app" in page.locator(f"{STEPPER} .explainer-error").inner_text()

    # Another one: the next embedded set, until they run out (then it says so and starts again).
    another = page.locator(f"{QUIZ} .explainer-quiz-another")
    another.click()
    assert page.locator(f"{QUIZ} .explainer-quiz-set").inner_text() == f"Question set 2 of {STATIC_SETS}"
    assert _question(page, 0).locator(".explainer-quiz-prompt").inner_text() == sets[1]["questions"][0]["prompt"] != q.prompt
    assert _question(page, 0).locator(".explainer-quiz-verdict").inner_text() == ""
    for _ in range(STATIC_SETS - 1):
        another.click()
    assert page.locator(f"{QUIZ} .explainer-quiz-set").inner_text() == f"Question set 1 of {STATIC_SETS}"
    assert f"last of the {STATIC_SETS} question sets" in page.locator(f"{QUIZ} .explainer-quiz-note").inner_text()
    assert page.outside == [] and page_errors == []


@pytest.mark.browser
def test_show_the_step_switches_the_kernel_on_page_04(site, file_page, page_errors):
    page = file_page
    sets = _open(page, site, "04_barriers")
    page.locator(LABEL).filter(has_text="step 1 of").wait_for(timeout=10_000)
    assert page.evaluate(f"() => document.querySelector('{STEPPER}').explainerView.state().kernel") == "tiled_no_barriers"
    q = Q.Question(**{k: v for k, v in sets[0]["questions"][0].items() if k != "hint"})
    assert q.key == "writer"
    _question(page, 0).locator(".explainer-quiz-show").click()
    k, T = q.params["k"], q.params["T"]
    page.locator(LABEL).filter(has_text=f"k = {k} of 0..{T - 1}").wait_for(timeout=5_000)
    state = page.evaluate(f"() => document.querySelector('{STEPPER}').explainerView.state()")
    assert state["kernel"] == "tiled_no_barrier1" and state["block"] == q.params["block"]
    assert page.locator(f"{STEPPER} select.explainer-kernel").input_value() == "tiled_no_barrier1"
    assert f"thread (x={q.params['thread'][0]}, y={q.params['thread'][1]}) owns" in page.locator(f"{STEPPER} .explainer-sum").inner_text()
    assert page.outside == [] and page_errors == []


@pytest.mark.browser
def test_a_page_without_a_stepper_shows_the_working_on_page_06(site, file_page, page_errors):
    page = file_page
    sets = _open(page, site, "06_tile_size_and_occupancy")
    assert page.locator(f"{QUIZ} .explainer-quiz-show").count() == 0
    assert page.locator(f"{QUIZ} .explainer-quiz-reveal").first.inner_text() == "Show the working"
    q = Q.Question(**{k: v for k, v in sets[0]["questions"][0].items() if k != "hint"})
    box = _question(page, 0)
    box.locator("input").fill(str(q.answer + 1))
    box.locator(".explainer-quiz-check").click()
    verdict = box.locator(".explainer-quiz-verdict").inner_text()
    assert verdict == f"✗ {q.check(str(q.answer + 1)).message}"
    assert f"the SM holds the smallest: {q.answer}, not {q.answer + 1}." in verdict
    box.locator(".explainer-quiz-reveal").click()
    assert box.locator(".explainer-quiz-answer").inner_text().startswith(f"Answer: {q.answer_text}. How: warps:")
    box.locator("input").fill(f"{q.answer} blocks")
    box.locator("input").press("Enter")
    assert box.locator(".explainer-quiz-verdict").inner_text() == f"✓ Right: {q.answer_text}."
    assert page.outside == [] and page_errors == []


SPELLINGS = ["", "banana", "12", "12 barriers", "1,048,576", "3.5", "2*4=8", "C[5][2]", "5,2", "(5, 2)", "5 2",
             "c[5, 2]", "C[5]", "A[5][2]", "none", "nothing", "A[3][4] and B[4][9]", "B[4][9] and A[3][4]",
             "(3,4) (4,9)", "3 4 4 9", "A[3][4], pad", "pad, 0 (pad)", "a padding zero and B[1][2]", "A[1][2] and A[3][4]",
             "As[2][1], Bs[2][1]", "Bs[2][1] As[2][1] As[2][1]", "(2, 1)", "warp 1, lane 20", "lane 20, warp 1",
             "x=3, y=1", "y=1, x=3", "block (x=2, y=1), thread (x=4, y=3)", "50%", "0.5", "50", "1.0", "registers per thread",
             "shared memory", "the warps", "block slots", "memory-bound", "compute", "  7.25  ", "1.5, 2", "A(3,4) B(4,9)",
             # Chinese (and mixed) choices: a Chinese word anywhere, the longer one first at the same place
             "线程块", "与线程一样长", "与线程块一样长", "与thread一样长", "thread block", "threadblock", "BLOCK", "共享内存",
             "显存", "本地内存", "寄存器", "常量内存", "核函数启动（网格）", "整个应用程序", "内存受限", "受计算限制",
             "线程束", "线程块槽位", "线程或线程块", "线程束 1，lane 20", "1，20",
             # a possessive's head after it (not a 的 that ends a clause)
             "每个线程的寄存器", "a thread's registers", "寄存器的数量", "是共享内存的，不是寄存器", "是共享内存的\u3000不是寄存器",
             "线程的局部内存", "the block's shared memory",
             # numbers labelled in Chinese, in any order
             "lane 20，线程束 1", "线程束：1 lane=20", "扇区数 4，行数 3", "行数\u30003, 扇区数\u30004"]
#: What the browser must read some of those as (besides reading them as the model does).
CHINESE_CHOICES = [("lifetime", "线程块", "block"), ("lifetime", "与线程一样长", "thread"), ("lifetime", "thread block", "block"),
                   ("lifetime", "与thread一样长", "thread"), ("space", "共享内存", "shared"), ("space", "显存", "global"),
                   ("kind", "内存受限", "memory"), ("kind", "受计算限制", "compute"), ("limiter", "线程块槽位", "blocks"),
                   ("limiter", "线程束", "threads"), ("limiter", "每个线程的寄存器", "registers"),
                   ("limiter", "a thread's registers", "registers"), ("limiter", "是共享内存的，不是寄存器", "shared"),
                   ("limiter", "是共享内存的\u3000不是寄存器", "shared"), ("space", "线程的局部内存", "local")]


@pytest.mark.browser
def test_the_browser_reads_and_checks_as_the_model_does(site, file_page, page_errors):
    page = file_page
    _open(page, site, "06_tile_size_and_occupancy")
    view = f"document.querySelector('{QUIZ}').explainerView"
    forms = [{"kind": "int"}, {"kind": "number", "tol": 0.01}, {"kind": "percent", "tol": 0.51},
             {"kind": "ints", "names": ["warp", "lane"]}, {"kind": "ints", "names": ["x", "y"]},
             {"kind": "ints", "names": ["blockIdx.x", "blockIdx.y", "threadIdx.x", "threadIdx.y"]},
             {"kind": "cells", "names": ["C"], "empty": "none"}, {"kind": "cells", "names": ["A", "B"], "empty": "pad"},
             {"kind": "cellset", "names": ["As", "Bs"]},
             next(q.form for q in Q.questions("06", 1) if q.key == "limiter"),
             next(q.form for q in Q.questions("07", 1) if q.key == "kind"),
             *(q.form for q in Q.questions("05", 1) if q.key in ("space", "lifetime", "warp", "warp_rows"))]
    cases = [(f, t) for f in forms for t in SPELLINGS]
    got = page.evaluate(f"(cases) => cases.map(([f, t]) => {view}.parse(f, t))", cases)
    read = {(json.dumps(f, sort_keys=True), t): js for (f, t), js in zip(cases, got)}
    choice = {q.key: q.form for page_name in ("05", "06", "07") for q in Q.questions(page_name, 1)}
    for key, text, want in CHINESE_CHOICES:
        assert read[(json.dumps(choice[key], sort_keys=True), text)] == {"value": want}, (key, text)
    for (form, text), js in zip(cases, got):
        try:
            want = {"value": Q.parse(form, text)}
        except Q.AnswerError as e:
            want = {"error": str(e)}
        assert js == want, (form, text)
    # Every question of many sets of every page: the right answer, a wrong one, garbage, checked alike.
    qs = [q for page_name in Q.PAGES for seed in range(1, 7) for q in Q.questions(page_name, seed)]
    cases = [(q.to_dict(), text) for q in qs for text in (_typed(q), _wrong(q)[0], "banana", "1 2 3")]
    got = page.evaluate(f"(cases) => cases.map(([q, t]) => {view}.checkQuestion(q, t))", cases)
    for (qd, text), js, q in zip(cases, got, [q for q in qs for _ in range(4)]):
        v = q.check(text)
        assert js == {"status": v.status, "message": v.message}, (q.key, text)
    assert {js["status"] for js in got} == {"right", "wrong", "unreadable"}
    assert page.outside == [] and page_errors == []
