"""The tiled-kernel page as a student sees it: ``02_tiled`` served by Voila, in headless Chromium.

Next and the right-arrow key step the program and the shared tiles follow; clicking a cell of C
pins the thread that owns it; bad input shows one line and keeps the last good state. Every wait
is on what the browser shows (the plotly graph div's data, the widgets' DOM), with timeouts
generous enough for a 2-core CI machine.
"""

from __future__ import annotations

import json
import re
import time

import pytest

from explainer.stepper import IDLE, PINNED

PAGE = "02_tiled.ipynb"
RENDER_TIMEOUT_MS = 120_000  # Voila runs the notebook in a fresh kernel: ~15 s on 2 cores
UPDATE_TIMEOUT_MS = 30_000  # one round trip browser -> kernel -> browser

# The page opens on seed 001's running example (1024^3, T=16, block x=2 y=1, thread x=4 y=3).
BLOCK, THREAD, T = (2, 1), (4, 3), 16

STEPPER = ".explainer-stepper"
LABEL = ".explainer-step-label"
SUM = ".explainer-sum"

# The stepper's two figures: [0] global memory (traces A, B, C), [1] shared memory (As, Bs,
# threads). ``trace(fig, i)`` returns one trace's z / text / customdata as plain JSON.
JS_FIGS = f"() => [...document.querySelectorAll('{STEPPER} .js-plotly-plot')]"
JS_TRACE = """([fig, i]) => {
  const el = document.querySelectorAll('%s .js-plotly-plot')[fig];
  const d = el && el.data && el.data[i];
  if (!d) return null;
  const plain = (a) => (a == null ? null : Array.from(a, (r) => (r && typeof r === 'object' ? Array.from(r) : r)));
  return {name: d.name, z: plain(d.z), text: plain(d.text), customdata: plain(d.customdata)};
}""" % STEPPER
JS_FIGURES_READY = """() => {
  const els = document.querySelectorAll('%s .js-plotly-plot');
  if (els.length < 2) return false;
  const names = (el) => (el.data || []).map((d) => d.name).join(',');
  const big = (el, i) => el.data[i] && el.data[i].z && el.data[i].z.length > 1;
  return names(els[0]) === 'A,B,C' && names(els[1]) === 'As,Bs,threads'
    && big(els[0], 2) && big(els[1], 0) && !!els[1]._fullLayout;
}""" % STEPPER


def open_tiled_page(page, server):
    page.goto(server.page_url(PAGE))
    try:
        page.wait_for_function(JS_FIGURES_READY, timeout=RENDER_TIMEOUT_MS, polling=200)
        page.locator(LABEL).filter(has_text="step 1 of").wait_for(timeout=UPDATE_TIMEOUT_MS)
    except Exception as e:
        raise AssertionError(f"the tiled page did not render its stepper: {e}\n"
                             f"Server log:\n{server.log_tail()}") from None
    text = page.locator("body").inner_text()
    assert "There was an error when executing cell" not in text, text


def label(page) -> str:
    return " ".join(page.locator(LABEL).inner_text().split())


def step_number(text: str) -> int:
    m = re.search(r"step (\d+) of (\d+)", text)
    assert m, f"no 'step n of m' in the label: {text!r}"
    return int(m.group(1))


def trace(page, fig: int, i: int) -> dict:
    return page.evaluate(JS_TRACE, [fig, i])


def wait_label_step(page, n: int) -> str:
    """Wait until the label says ``step n of ...``; return the label."""
    page.locator(LABEL).filter(has_text=re.compile(rf"step {n} of \d+")).wait_for(
        timeout=UPDATE_TIMEOUT_MS)
    return label(page)


def wait_trace_changed(page, fig: int, i: int, before: dict) -> dict:
    """Wait until trace ``i`` of figure ``fig`` differs from ``before``; return it."""
    page.wait_for_function(
        "([js, fig, i, old]) => JSON.stringify((0, eval)(js)([fig, i])) !== old",
        arg=[JS_TRACE, fig, i, json.dumps(before, separators=(",", ":"))],
        timeout=UPDATE_TIMEOUT_MS, polling=50)
    return trace(page, fig, i)


def inputs(page) -> dict[str, str]:
    """The stepper's labelled number inputs: {'M': '1024', ..., 'threadIdx.x': '4', ...}."""
    return page.evaluate(f"""() => Object.fromEntries(
        [...document.querySelectorAll('{STEPPER} .widget-inline-hbox')]
          .filter((b) => b.querySelector(':scope > input') && b.querySelector(':scope > label'))
          .map((b) => [b.querySelector(':scope > label').innerText.trim(),
                       b.querySelector(':scope > input').value]))""")


def number_input(page, description: str):
    box = page.locator(f"{STEPPER} .widget-inline-hbox").filter(
        has=page.locator("label", has_text=re.compile(rf"^\s*{re.escape(description)}\s*$")))
    return box.locator("input")


def cells(trace_data: dict, key: str = "z") -> list:
    return [v for row in trace_data[key] for v in row]


def click_c_cell(page, row: int, col: int) -> None:
    """Click the centre of cell C[row][col] of the global-memory figure (trace C on x3/y3)."""
    fig = page.locator(f"{STEPPER} .js-plotly-plot").first
    fig.scroll_into_view_if_needed()
    where = fig.evaluate("""(el, [row, col]) => {
      const xa = el._fullLayout.xaxis3, ya = el._fullLayout.yaxis3;
      const inside = (ax, v) => Math.min(...ax.range) <= v && v <= Math.max(...ax.range);
      const r = el.getBoundingClientRect();
      return {x: r.left + xa._offset + xa.l2p(col), y: r.top + ya._offset + ya.l2p(row),
              visible: inside(xa, col) && inside(ya, row)};
    }""", [row, col])
    assert where["visible"], f"C[{row}][{col}] is outside the drawn window of C"
    page.mouse.move(where["x"], where["y"])
    page.mouse.click(where["x"], where["y"])


@pytest.mark.browser
def test_tiled_page_steps_and_pins(voila_server, browser_page, page_errors, record_property):
    page = browser_page
    requested = time.monotonic()
    open_tiled_page(page, voila_server)
    record_property("tiled_render_after_request_s", time.monotonic() - requested)

    bx, by = BLOCK
    tx, ty = THREAD
    first = label(page)
    assert first.startswith(f"block (x={bx}, y={by}) · phase 1 of 64 · loading the A tile"), first
    assert step_number(first) == 1
    assert f"thread (x={tx}, y={ty})" in page.locator(SUM).inner_text()

    # Step 1, load A of phase 1: thread (4, 3) copies A[by*T+ty][0*T+tx] = A[19][4] into
    # As[3][4]; Bs holds nothing yet.
    as1, bs1 = trace(page, 1, 0), trace(page, 1, 1)
    assert (as1["name"], bs1["name"]) == ("As", "Bs")
    assert len(as1["z"]) == T and len(as1["z"][0]) == T
    assert as1["z"][ty][tx] == PINNED and cells(as1).count(PINNED) == 1
    assert as1["customdata"][ty][tx] == f"A[{by * T + ty}][{tx}]"
    assert set(cells(bs1)) == {IDLE}

    # Next -> step 2, load B: the label moves on, As stops being copied (no pinned cell) and Bs
    # receives B[0*T+ty][bx*T+tx] = B[3][36] at Bs[3][4].
    page.locator(f"{STEPPER} .explainer-next").click()
    second = wait_label_step(page, 2)
    assert second != first and "loading the B tile" in second, second
    bs2 = wait_trace_changed(page, 1, 1, bs1)
    as2 = trace(page, 1, 0)
    assert as2 != as1 and PINNED not in cells(as2)
    assert bs2["z"][ty][tx] == PINNED and cells(bs2).count(PINNED) == 1
    assert bs2["customdata"][ty][tx] == f"B[{ty}][{bx * T + tx}]"
    assert as2["customdata"] == as1["customdata"]  # the same A tile sits in As

    # Next -> step 3, barrier 1: nobody copies any more; Bs loses its pinned cell.
    page.locator(f"{STEPPER} .explainer-next").click()
    third = wait_label_step(page, 3)
    assert "barrier 1" in third, third
    bs3 = wait_trace_changed(page, 1, 1, bs2)
    assert PINNED not in cells(bs3) and PINNED not in cells(trace(page, 1, 0))

    # Click C[21][41]: block (41 // 16, 21 // 16) = (2, 1) as before, thread (41 % 16, 21 % 16).
    row, col = by * T + 5, bx * T + 9
    click_c_cell(page, row, col)
    page.locator(SUM).filter(has_text="thread (x=9, y=5)").wait_for(timeout=UPDATE_TIMEOUT_MS)
    assert f"owns C[{row}][{col}]" in page.locator(SUM).inner_text()
    page.wait_for_function(
        f"""() => {{
            const val = (d) => {{
              const b = [...document.querySelectorAll('{STEPPER} .widget-inline-hbox')]
                .find((b) => (b.querySelector(':scope > label') || {{}}).innerText === d);
              return b && b.querySelector(':scope > input').value;
            }};
            return val('threadIdx.x') === '9' && val('threadIdx.y') === '5';
        }}""",
        timeout=UPDATE_TIMEOUT_MS)
    got = inputs(page)
    assert (got["blockIdx.x"], got["blockIdx.y"]) == (str(bx), str(by)), got
    threads = trace(page, 1, 2)
    assert threads["z"][5][9] == PINNED and threads["z"][ty][tx] != PINNED
    assert step_number(label(page)) == 3  # pinning does not move the program

    # The right-arrow key, pressed on the page (no input focused), steps forward.
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    page.locator("body").press("ArrowRight")
    fourth = wait_label_step(page, 4)
    assert "multiply-adds" in fourth and "k = 0" in fourth, fourth
    as4 = trace(page, 1, 0)
    # Compute k=0: the pinned thread (9, 5) reads As[5][0] and Bs[0][9].
    assert as4["z"][5][0] == PINNED and trace(page, 1, 1)["z"][0][9] == PINNED

    assert page_errors == []


@pytest.mark.browser
def test_invalid_tile_keeps_the_last_good_state(voila_server, browser_page, page_errors):
    """A tile outside 1..32 typed into ``tile T`` shows one line of error and changes nothing."""
    page = browser_page
    open_tiled_page(page, voila_server)
    before_label = label(page)
    before = [trace(page, f, i) for f in (0, 1) for i in (0, 1, 2)]
    assert inputs(page)["tile T"] == str(T)
    error = page.locator(STEPPER).get_by_text("⚠")
    box = number_input(page, "tile T")

    for bad in ("40", "0"):
        box.fill(bad)
        box.press("Enter")
        # Wait for the kernel's answer: an error line, or (wrongly) a new launch in the label.
        deadline = time.monotonic() + UPDATE_TIMEOUT_MS / 1000
        while time.monotonic() < deadline:
            if error.count() or label(page) != before_label:
                break
            page.wait_for_timeout(100)
        page.wait_for_timeout(500)  # let any further update land before comparing

        assert label(page) == before_label, (
            f"typing tile {bad} changed the launch instead of showing an error: "
            f"now {label(page)!r}, tile input {inputs(page)['tile T']!r}")
        assert error.count() == 1, f"tile {bad}: no error line shown"
        msg = error.inner_text().strip()
        assert "\n" not in msg and "tile" in msg, msg
        assert inputs(page)["tile T"] == str(T), inputs(page)
        assert [trace(page, f, i) for f in (0, 1) for i in (0, 1, 2)] == before
    assert page_errors == []
