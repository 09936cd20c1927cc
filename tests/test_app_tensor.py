"""Page 09 served by Voila, in headless Chromium: the fragment table, the fragment explorer and the
precision table render; clicking a C element pins the lane that owns it and names its register,
stepping with the arrow key moves to the next k-step, all in the browser with no message to the
kernel (the websocket is watched); another warp asks Python. What the explorer paints is
explainer.model.mma's."""

from __future__ import annotations

import re

import numpy as np
import pytest
from conftest import settle, view_frames

from explainer.model import hopper, mma
from explainer.views import handover as hv
from explainer.views import mma as vm
from explainer.views import pipeline as pv

PAGE = "09_tensor_cores.ipynb"
RENDER_TIMEOUT_MS = 120_000
UPDATE_TIMEOUT_MS = 30_000
VIEW_SEL = ".explainer-mma"
VIEW = f"document.querySelector('{VIEW_SEL}').explainerView"


def colours(page, grid: str) -> np.ndarray:
    return np.array(page.evaluate(f"() => {VIEW}.colours('{grid}')"))


def wait_state(page, **want) -> None:
    cond = " && ".join(f"s.{k} === {v}" for k, v in want.items())
    page.wait_for_function(f"() => {{ const s = {VIEW} && {VIEW}.state(); return s && {cond}; }}",
                           timeout=UPDATE_TIMEOUT_MS, polling=100)


def expect_lane(page, warp: int, lane: int) -> None:
    _, a = vm.mma_data(warp)
    for grid, lanes in (("A", a["lane_a"]), ("B", a["lane_b"]), ("C", a["lane_c"])):
        np.testing.assert_array_equal(colours(page, grid), np.where(lanes == lane, lane, vm.DIM), err_msg=grid)


@pytest.mark.browser
def test_tensor_page_pins_lanes_and_steps_in_the_browser(voila_server, browser_page, page_errors):
    page = browser_page
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: frames.append(str(payload))))
    page.goto(voila_server.page_url(PAGE))
    try:
        page.locator(f"{VIEW_SEL} canvas[data-grid='C']").wait_for(timeout=RENDER_TIMEOUT_MS)
        page.locator(".explainer-precision").wait_for(timeout=RENDER_TIMEOUT_MS)
        page.locator(".explainer-mma-check").wait_for(timeout=RENDER_TIMEOUT_MS)
    except Exception as e:
        raise AssertionError(f"{PAGE} did not render: {e}\nServer log:\n{voila_server.log_tail()}") from None
    body = page.locator("body").inner_text()
    assert "There was an error when executing cell" not in body and "Traceback" not in body, body[-3000:]
    timings = page.locator(".explainer-tensor-timings").inner_text()
    assert "% of cuBLAS TF32" in timings and "Recorded on" in timings and "mma_tf32_staged" in timings, timings
    feeding = page.locator(".explainer-tensor-feeding").inner_text()  # the file's rows, kernel 16 itself last
    assert "% of cuBLAS TF32" in feeding and "Recorded on" in feeding and "kernel 16 itself" in feeding, feeding
    table = page.locator(".explainer-fragment-table").inner_text()
    assert "a0=A[0][0], a1=A[8][0], a2=A[0][4], a3=A[8][4]" in table  # lane 0, from the model
    wait_state(page, warp=0, lane=0, step=0)
    expect_lane(page, 0, 0)
    settle(page)
    frames.clear()

    # A click on C(13, 22) of warp 0's tile: the model's owner, register and m16n8 tile.
    _, a = vm.mma_data(0)
    owner, reg, mi, ni = (int(a[k][13, 22]) for k in ("lane_c", "reg_c", "mi_c", "ni_c"))
    assert (owner, reg) == mma.c_owner(13 % 16, 22 % 8) and owner != 0
    page.locator(f"{VIEW_SEL} canvas[data-grid='C']").scroll_into_view_if_needed()
    at = page.evaluate(f"() => {VIEW}.centre('C', 13, 22)")
    page.mouse.click(at["x"], at["y"])
    wait_state(page, lane=owner)
    expect_lane(page, 0, owner)
    info = " ".join(page.locator(f"{VIEW_SEL} .explainer-mma-info").inner_text().split())
    assert f"C[13][22]: lane {owner}, register {mma.register_name('c', reg, mi, ni)} of m16n8 tile ({mi}, {ni})" in info, info

    # The arrow key: k-step 2, the same places, the next 8 columns of A.
    page.locator("body").press("ArrowRight")
    wait_state(page, lane=owner, step=1)
    info = " ".join(page.locator(f"{VIEW_SEL} .explainer-mma-info").inner_text().split())
    g, t = owner // 4, owner % 4
    assert mi == 0 and f"a[0][0] = A[{g}][{8 + t}]" in info and f"b[0][0] = B[{8 + t}][{g}]" in info, info
    assert f"b[1][0] = B[{8 + t}][{8 + g}]" in info, info  # the next n8 tile: its own name
    names = re.findall(r"([a-z]+(?:\[\d+\])+) = [ABC]\[", info)  # the readout: every register once, by its name
    assert len(names) == 4 * mma.KERNEL.miter + 2 * mma.KERNEL.niter + 4 * mma.KERNEL.miter * mma.KERNEL.niter
    assert len(set(names)) == len(names), info
    assert "k-step = 1 of 0..3" in page.locator(f"{VIEW_SEL} .explainer-mma-step").inner_text()
    assert page.locator(f"{VIEW_SEL} .explainer-step-label").inner_text() == "k-step = 1 of 0..3"
    assert view_frames(frames) == [], f"stepping sent {len(frames)} messages: {[f[:200] for f in frames[:3]]}"

    # The pipeline stepper: its own buttons (the arrow key above did not move it), the model's steps.
    pipe = "document.querySelector('.explainer-pipeline').explainerView"
    assert page.evaluate(f"() => {pipe}.state()")["step"] == 0
    page.locator(".explainer-pipeline-next").click()
    page.locator(".explainer-pipeline-next").click()
    steps = mma.pipeline(pv.K_DEFAULT)
    page.wait_for_function(f"() => {pipe}.state().step === 2", timeout=UPDATE_TIMEOUT_MS)
    assert page.evaluate(f"() => {pipe}.buffers()") == list(steps[2].state)
    assert " ".join(page.locator(".explainer-pipeline-text").inner_text().split()) == " ".join(steps[2].text.split())
    assert "cp.async.wait_group" in page.locator(".explainer-pipeline-code span.hl").inner_text()
    P = mma.STAGED.phases(pv.K_DEFAULT)  # phases and buffers counted from 0, as in the kernel
    want = f"step 3 / {len(steps)} · " + (f"phase t = {steps[2].phase} of 0..{P - 1}" if steps[2].phase >= 0 else "prologue")
    assert page.locator(".explainer-pipeline .explainer-step-label").inner_text() == want
    assert page.locator(".explainer-pipeline-buffer").first.inner_text().startswith(f"buffer = 0 of 0..{mma.STAGED.stages - 1}")
    assert view_frames(frames) == []

    # Kernel 17's mbarrier stepper: the model's hand-over, step by step, with the kernel's lines.
    hand = "document.querySelector('.explainer-handover').explainerView"
    steps = hopper.schedule(hv.K_DEFAULT)
    n = next(i for i, x in enumerate(steps) if x.waits and x.line == "wait_empty")  # the producer waits
    for _ in range(n):
        page.locator(".explainer-handover-next").click()
    page.wait_for_function(f"() => {hand}.state().step === {n}", timeout=UPDATE_TIMEOUT_MS)
    assert page.evaluate(f"() => {hand}.stages()") == list(steps[n].state)
    assert page.evaluate(f"() => {hand}.barriers()") == {"full": [d % 2 for d in steps[n].full_done],
                                                          "empty": [d % 2 for d in steps[n].empty_done]}
    assert " ".join(page.locator(".explainer-handover-text").inner_text().split()) == " ".join(steps[n].text.split())
    assert "mbar_wait(empty" in page.locator(".explainer-handover-code span.hl").inner_text()
    assert "waits on empty" in page.locator(".explainer-handover-actor[data-acting='true']").inner_text()
    P = hopper.KERNEL.phases(hv.K_DEFAULT)
    assert f" · phase t = {steps[n].phase} of 0..{P - 1}" in page.locator(".explainer-handover .explainer-step-label").inner_text()
    assert page.locator(".explainer-handover-stage").first.inner_text().startswith(f"stage = 0 of 0..{hopper.KERNEL.stages - 1}: ")
    assert view_frames(frames) == []

    # Another warp: Python sends its arrays.
    page.locator(f"{VIEW_SEL} select.explainer-mma-warp").select_option("warp 3")
    wait_state(page, warp=3)
    assert any('"cmd":"kernel"' in f.replace(" ", "") for f in frames)
    assert page.outside == [] and page_errors == []
