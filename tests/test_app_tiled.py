"""The tiled-kernel page as a student sees it: ``02_tiled`` served by Voila, in headless Chromium.

Next and the right-arrow key step the program and the shared tiles follow; clicking a cell of C
pins the thread that owns it; all of that happens in the browser, with no message to the kernel
(the websocket is watched). Bad input shows one line and keeps the last good state. What the page
shows is compared with what ``explainer.model`` answers for the same launch.
"""

from __future__ import annotations

import re
import time

import pytest
from conftest import settle, view_frames

from explainer.app.cli import main as cli_main
from explainer.model import Launch, steps, steps_per_phase
from explainer.views import tiled as tv
from explainer.views.common import IDLE, PINNED

PAGE = "02_tiled.ipynb"
RENDER_TIMEOUT_MS = 120_000  # Voila runs the notebook in a fresh kernel: seconds on 2 cores
UPDATE_TIMEOUT_MS = 30_000  # a round trip browser -> kernel -> browser (launch changes only)

# The page opens on a small launch; the gemm_tiled walk-through's running example (1024^3, T=16,
# block x=2 y=1, thread x=4 y=3) is the first preset.
SMALL, SMALL_BLOCK = Launch("tiled", 8, 8, 8, 4), (1, 0)
LAUNCH, BLOCK, THREAD = Launch("tiled", 1024, 1024, 1024, 16), (2, 1), (4, 3)
T = LAUNCH.T

STEPPER = ".explainer-stepper"
LABEL = f"{STEPPER} .explainer-step-label"
SUM = f"{STEPPER} .explainer-sum"
VIEW = f"document.querySelector('{STEPPER}').explainerView"


def open_tiled_page(page, server, walkthrough: bool = False):
    """Page 02 rendered; with ``walkthrough``, moved to the walk-through's 1024^3 preset (one choice
    in the Preset menu)."""
    page.goto(server.page_url(PAGE))
    try:
        page.locator(LABEL).filter(has_text="step 1 of").wait_for(timeout=RENDER_TIMEOUT_MS)
    except Exception as e:
        raise AssertionError(f"the tiled page did not render its stepper: {e}\n"
                             f"Server log:\n{server.log_tail()}") from None
    text = page.locator("body").inner_text()
    assert "There was an error when executing cell" not in text, text
    if walkthrough:
        page.locator(f"{STEPPER} select.explainer-preset").select_option(index=1)
        page.locator(LABEL).filter(has_text=f"step 1 of {len(steps(LAUNCH))}").wait_for(timeout=UPDATE_TIMEOUT_MS)


def label(page) -> str:
    return " ".join(page.locator(LABEL).inner_text().split())


def colours(page, grid: str) -> list[list[int]]:
    return page.evaluate(f"() => {VIEW}.colours('{grid}')")


def hover(page, grid: str, r: int, c: int) -> str:
    return page.evaluate(f"([g, r, c]) => {VIEW}.hover(g, r, c)", [grid, r, c])


def flat(z) -> list[int]:
    return [v for row in z for v in row]


def field(page, name: str):
    return page.locator(f"{STEPPER} input[data-field='{name}']")


def model_label(i: int, block=BLOCK) -> str:
    return tv.step_label(LAUNCH, block, steps(LAUNCH)[i])


def wait_step(page, n: int) -> str:
    page.locator(LABEL).filter(has_text=re.compile(rf"step {n} of \d+")).wait_for(timeout=5_000)
    return label(page)


@pytest.mark.browser
def test_tiled_page_steps_and_pins_in_the_browser(voila_server, browser_page, page_errors,
                                                   record_property):
    page = browser_page
    frames: list[str] = []  # what the page sends to the kernel after it has rendered
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: frames.append(str(payload))))
    requested = time.monotonic()
    open_tiled_page(page, voila_server)
    record_property("tiled_render_after_request_s", time.monotonic() - requested)
    # the page opens on the small launch, and its Preset menu says so
    assert page.locator(f"{STEPPER} select.explainer-preset").input_value() == "small: 8×8×8, T=4"
    assert label(page) == f"{tv.step_label(SMALL, SMALL_BLOCK, steps(SMALL)[0])} step 1 of {len(steps(SMALL))}"
    # the walk-through's example is the first preset
    page.locator(f"{STEPPER} select.explainer-preset").select_option(index=1)
    page.locator(LABEL).filter(has_text=f"step 1 of {len(steps(LAUNCH))}").wait_for(timeout=UPDATE_TIMEOUT_MS)
    assert page.locator(f"{STEPPER} select.explainer-preset").input_value().startswith("the gemm_tiled walk-through")
    settle(page)
    frames.clear()

    bx, by = BLOCK
    tx, ty = THREAD
    meta, arrays = tv.tiled_data(LAUNCH, BLOCK, THREAD)
    first = label(page)
    assert first == f"{model_label(0)} step 1 of {len(steps(LAUNCH))}", first
    assert f"thread (x={tx}, y={ty})" in page.locator(SUM).inner_text()

    # Step 1, load A of phase t = 0: thread (4, 3) copies A[by*T+ty][tx] = A[19][4] into As[3][4].
    as1, bs1 = colours(page, "As"), colours(page, "Bs")
    assert len(as1) == T and len(as1[0]) == T
    assert as1[ty][tx] == PINNED and flat(as1).count(PINNED) == 1
    assert hover(page, "As", ty, tx) == f"As[{ty}][{tx}] = A[{by * T + ty}][{tx}]"
    assert set(flat(bs1)) == {IDLE}

    # Next -> step 2, load B: Bs receives B[ty][bx*T+tx] = B[3][36] at Bs[3][4].
    page.locator(f"{STEPPER} .explainer-next").click()
    second = wait_step(page, 2)
    assert second.startswith(model_label(1)) and "loading the B tile" in second, second
    as2, bs2 = colours(page, "As"), colours(page, "Bs")
    assert PINNED not in flat(as2)
    assert bs2[ty][tx] == PINNED and flat(bs2).count(PINNED) == 1
    assert hover(page, "Bs", ty, tx) == f"Bs[{ty}][{tx}] = B[{ty}][{bx * T + tx}]"
    assert hover(page, "As", 7, 9) == f"As[7][9] = A[{by * T + 7}][9]"  # the same A tile

    # Next -> step 3, barrier 1: nobody copies; every thread has arrived.
    page.locator(f"{STEPPER} .explainer-next").click()
    third = wait_step(page, 3)
    assert third.startswith(model_label(2)) and "barrier 1" in third, third
    assert PINNED not in flat(colours(page, "Bs")) and PINNED not in flat(colours(page, "As"))

    # Click C[21][41]: the model says thread (9, 5) of this block owns it.
    row, col = by * T + 5, bx * T + 9
    r, c = row - meta["mwin"][0], col - meta["nwin"][0]
    q = int(arrays["c_owner"][r, c, 2])
    assert tuple(arrays["thread_xy"][q]) == (9, 5)
    page.locator(f"{STEPPER} canvas[data-grid='C']").scroll_into_view_if_needed()
    at = page.evaluate(f"([r, c]) => {VIEW}.centre('C', r, c)", [r, c])
    page.mouse.click(at["x"], at["y"])
    page.locator(SUM).filter(has_text="thread (x=9, y=5)").wait_for(timeout=5_000)
    assert f"owns C[{row}][{col}]" in page.locator(SUM).inner_text()
    assert (field(page, "threadIdx.x").input_value(), field(page, "threadIdx.y").input_value()) == ("9", "5")
    assert (field(page, "blockIdx.x").input_value(), field(page, "blockIdx.y").input_value()) == (str(bx), str(by))
    threads = colours(page, "threads")
    assert threads[5][9] == PINNED and threads[ty][tx] != PINNED
    assert "step 3 of" in label(page)  # pinning does not move the program

    # The right-arrow key, pressed on the page (no input focused), steps forward.
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    page.locator("body").press("ArrowRight")
    fourth = wait_step(page, 4)
    assert fourth.startswith(model_label(3)) and "k = 0" in fourth, fourth
    # Compute k=0: the pinned thread (9, 5) reads As[5][0] and Bs[0][9].
    assert colours(page, "As")[5][0] == PINNED and colours(page, "Bs")[0][9] == PINNED
    page.locator("body").press("ArrowLeft")
    assert wait_step(page, 3).startswith(model_label(2))
    assert view_frames(frames) == [], f"stepping and pinning sent {len(frames)} messages to the kernel: {frames[:3]}"
    assert page_errors == []


def go_to_step(page, i: int) -> str:
    """Drag the step slider to step index ``i`` (a lookup in the browser) and return the label."""
    page.evaluate(f"""(i) => {{ const s = document.querySelector('{STEPPER} .explainer-slider');
                                s.value = String(i); s.dispatchEvent(new Event('input')); }}""", i)
    return wait_step(page, i + 1)


@pytest.mark.browser
def test_phase_labels_count_from_zero_like_the_trace(voila_server, browser_page, page_errors, capsys):
    """One numbering: the first label reads "phase t = 0 of 0..63", and the step labelled phase t
    shows As[ty][tx] receiving the element ``tiled-explainer trace`` prints on its row t for the
    same launch, A[by*T + ty][t*T + tx]: the label's t goes straight into the kernel's a_col."""
    page = browser_page
    open_tiled_page(page, voila_server, walkthrough=True)
    P = LAUNCH.phases
    first = label(page)
    assert first.startswith(model_label(0)), first
    assert f"block (x={BLOCK[0]}, y={BLOCK[1]}) · phase t = 0 of 0..{P - 1} · loading the A tile" in first, first

    (bx, by), (tx, ty) = BLOCK, THREAD
    line = f"trace --kernel tiled --M {LAUNCH.M} --N {LAUNCH.N} --K {LAUNCH.K} --tile {T} --block {bx},{by} --thread {tx},{ty}"
    assert cli_main(line.split()) == 0
    out = capsys.readouterr().out
    rows = {int(t): a for t, a in re.findall(rf"^\s+(\d+)\s+As\[{ty}\]\[{tx}\] = (A\[\d+\]\[\d+\])", out, re.M)}
    assert {0, 1, 2, P - 1} <= set(rows), out
    per = steps_per_phase(LAUNCH)
    for t in (0, 1, 2, P - 1):
        shown = go_to_step(page, t * per)  # the load of A in phase t
        assert f" · phase t = {t} of 0..{P - 1} · loading the A tile into As" in shown, shown
        assert shown.startswith(model_label(t * per)), shown
        assert rows[t] == f"A[{by * T + ty}][{t * T + tx}]"  # the trace's row t is the kernel's a_col
        assert hover(page, "As", ty, tx) == f"As[{ty}][{tx}] = {rows[t]}"
    shown = go_to_step(page, 3)  # compute, k counted from 0 too
    assert f"phase t = 0 of 0..{P - 1} · " in shown and f"(k = 0 of 0..{T - 1})" in shown, shown
    assert page_errors == []


@pytest.mark.browser
def test_invalid_tile_keeps_the_last_good_state(voila_server, browser_page, page_errors):
    """A tile outside 1..32 typed into ``tile T`` shows one line of error and changes nothing."""
    page = browser_page
    open_tiled_page(page, voila_server, walkthrough=True)
    before_label = label(page)
    before = [colours(page, g) for g in ("As", "Bs", "threads", "A", "C")]
    assert field(page, "tile T").input_value() == str(T)
    error = page.locator(f"{STEPPER} .explainer-error")

    for bad in ("40", "0"):
        box = field(page, "tile T")
        box.fill(bad)
        box.press("Enter")
        error.filter(has_text="tile").wait_for(timeout=UPDATE_TIMEOUT_MS)
        msg = error.inner_text().strip()
        assert "\n" not in msg and "tile" in msg and msg.startswith("⚠"), msg
        assert label(page) == before_label
        assert field(page, "tile T").input_value() == str(T)
        assert [colours(page, g) for g in ("As", "Bs", "threads", "A", "C")] == before
        page.evaluate(f"() => {{ document.querySelector('{STEPPER} .explainer-error').textContent = ''; }}")
    # a good tile after a bad one: the launch changes and the error line clears by itself
    box = field(page, "tile T")
    box.fill("40")
    box.press("Enter")
    error.filter(has_text="tile").wait_for(timeout=UPDATE_TIMEOUT_MS)
    box = field(page, "tile T")
    box.fill("8")
    box.press("Enter")
    page.wait_for_function(f"() => document.querySelector('{STEPPER} input[data-field=\\'tile T\\']').value === '8' "
                           f"&& document.querySelector('{STEPPER} .explainer-error').textContent === ''",
                           timeout=UPDATE_TIMEOUT_MS)
    assert [colours(page, g) for g in ("As", "Bs", "threads", "A", "C")] != before
    assert page_errors == []


@pytest.mark.browser
def test_preset_asks_python_for_a_new_launch(voila_server, browser_page, page_errors):
    page = browser_page
    frames: list[str] = []  # the watcher of the first test, shown to see a launch change
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: frames.append(str(payload))))
    open_tiled_page(page, voila_server)
    settle(page)
    frames.clear()
    name = next(p for p in tv_presets() if p.startswith("rectangular"))
    page.locator(f"{STEPPER} select.explainer-preset").select_option(name)
    L = Launch("tiled", 35, 79, 19, 8)
    want = tv.step_label(L, (3, 2), steps(L)[0])
    page.locator(LABEL).filter(has_text=want).wait_for(timeout=UPDATE_TIMEOUT_MS)
    assert field(page, "M").input_value() == "35" and field(page, "tile T").input_value() == "8"
    assert len(colours(page, "As")) == 8
    assert any('"preset"' in f for f in frames), frames[:3]
    assert page_errors == []


def tv_presets():
    from explainer.views.stepper import TiledStepper

    return list(TiledStepper.PRESETS)
