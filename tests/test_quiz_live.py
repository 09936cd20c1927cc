"""Predict, then reveal, in the live app: page 02 served by Voila in headless Chromium. "Another
one" asks Python for the next question set (any launch, not only the ones a static page holds),
and "Show the step" has the stepper ask Python for the question's launch and block, then pins the
thread and goes to the step."""

from __future__ import annotations

import pytest

from explainer.model import Launch
from explainer.model import questions as Q

PAGE = "02_tiled.ipynb"
QUIZ = ".explainer-quiz"
STEPPER = ".explainer-stepper"
LABEL = f"{STEPPER} .explainer-step-label"


@pytest.mark.browser
def test_another_one_and_show_the_step_ask_python(voila_server, browser_page, page_errors):
    page = browser_page
    page.goto(voila_server.page_url(PAGE))
    page.locator(f"{QUIZ} .explainer-quiz-q").first.wait_for(timeout=120_000)
    page.locator(LABEL).filter(has_text="step 1 of").wait_for(timeout=30_000)
    assert page.locator(f"{QUIZ} .explainer-quiz-set").inner_text() == "Question set 1"
    prompts = page.locator(f"{QUIZ} .explainer-quiz-prompt").all_inner_texts()
    assert prompts == [q.prompt for q in Q.questions("02_tiled", 1)]

    page.locator(f"{QUIZ} .explainer-quiz-another").click()
    page.locator(f"{QUIZ} .explainer-quiz-set").filter(has_text="Question set 2").wait_for(timeout=30_000)
    second = Q.questions("02_tiled", 2)
    assert page.locator(f"{QUIZ} .explainer-quiz-prompt").all_inner_texts() == [q.prompt for q in second]

    q = second[0]
    assert q.key == "loads"
    box = page.locator(f"{QUIZ} .explainer-quiz-q").first
    a, b = q.answer
    box.locator("input").fill(f"A[{a[0]}][{a[1]}] and B[{b[0]}][{b[1] + 1}]")
    box.locator("input").press("Enter")
    assert box.locator(".explainer-quiz-verdict").inner_text().endswith(f"= B[{b[0]}][{b[1]}], not B[{b[0]}][{b[1] + 1}].")
    box.locator(".explainer-quiz-show").click()
    p = q.params
    P = Launch("tiled", p["M"], p["N"], p["K"], p["T"]).phases
    where = f"block (x={p['block'][0]}, y={p['block'][1]}) · phase t = {p['phase']} of 0..{P - 1} · loading the A tile"
    page.locator(LABEL).filter(has_text=where).wait_for(timeout=30_000)
    fields = [page.locator(f"{STEPPER} input[data-field='{n}']").input_value() for n in ("M", "N", "K", "tile T")]
    assert fields == [str(p[n]) for n in ("M", "N", "K", "T")]
    assert f"thread (x={p['thread'][0]}, y={p['thread'][1]}) owns" in page.locator(f"{STEPPER} .explainer-sum").inner_text()
    box.locator(".explainer-quiz-answer").filter(has_text="now shows").wait_for(timeout=5_000)
    assert page.outside == [] and page_errors == []
