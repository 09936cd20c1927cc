"""Page 02's V1-against-V2 stepper (explainer.views.strip): the payload is the model's
(explainer.model.strip_steps), bad input keeps the last good launch; in an exported static page
(file://, network refused) in Chromium, stepping fills V1's strips column band by column band
while V2's windows stay T x T, the counts are the model's, and a block of a preset launch comes
from the page's store."""

from __future__ import annotations

import nbformat
import numpy as np
import pytest

from explainer.model import strip_steps as ss
from explainer.model.launch import PAD
from explainer.views import strip as sv


@pytest.mark.parametrize("M,N,K,T,block", [(8, 8, 16, 4, (1, 0)), (5, 7, 19, 4, (1, 1)), (3, 2, 1, 2, (0, 1))])
def test_the_payload_is_the_models(M, N, K, T, block):
    d = sv.strip_view_data(M, N, K, T, block)
    m = ss.side_by_side(M, N, K, T, block)
    src = ss.strip_sources(M, N, K, T, block)
    assert np.array_equal(d["v1"]["a"], src["a"]) and np.array_equal(d["v1"]["b"], src["b"])
    P = m["phases"]
    for s, step in enumerate(m["steps"]):
        # what the browser draws at step s (a cell filled from the step it is written at) is the model's state
        a_at, b_at = np.array(d["v1"]["a_at"]), np.array(d["v1"]["b_at"])
        drawn_a = np.where(a_at <= s, np.array(d["v1"]["a"]), ss.EMPTY)
        drawn_b = np.where(b_at <= s, np.array(d["v1"]["b"]), ss.EMPTY)
        assert np.array_equal(drawn_a, step["v1"]["as"]) and np.array_equal(drawn_b, step["v1"]["bs"])
        p = d["v2"]["phase_of_step"][s]
        if step["kind"] == "loop":
            assert p == step["t"] and np.array_equal(d["v2"]["a"][p], step["v2"]["as"])
        row = d["steps"][s]
        assert (row["loads"], row["v1_barriers"], row["v2_barriers"], row["v1_fma"], row["v2_fma"]) == (
            step["loads"], step["v1"]["barriers"], step["v2"]["barriers"], step["v1"]["fma"], step["v2"]["fma"])
    assert len(d["steps"]) == P + 3
    for i, label in d["labels_a"].items():
        assert label == f"A[{int(i) // K}][{int(i) % K}]"
    assert str(PAD) not in d["labels_a"]


def test_bad_input_keeps_the_last_good_launch():
    x = sv.StripExplorer()
    good = x.view.meta["key"]
    for bad in ("8,8,16,4,5,0", "8,8,999,4,0,0", "a,b", "8,8,16,0,0,0"):
        assert not x.select(bad)
        assert x.view.error and "\n" not in x.view.error and x.view.meta["key"] == good
    assert x.select("5,7,19,4,1,1") and x.view.error == "" and x.view.meta["key"] == "5,7,19,4,1,1"


def test_the_static_store_holds_the_presets():
    """Every block of the small presets, block (0, 0) of the others; the page's own launch first."""
    x = sv.StripExplorer(5, 7, 19, 4, block=(1, 1))
    store = x.static_store()
    want = {sv.key_of(M, N, K, T, bx, by) for M, N, K, T in sv.PRESETS
            for by in range(-(-M // T)) for bx in range(-(-N // T))
            if (M, N, K, T) in sv.STATIC_ALL_BLOCKS or (bx, by) == (0, 0)}
    assert set(store["states"]) == want and store["initial"] == store["states"]["5,7,19,4,1,1"]
    assert len({sv.key_of(*p) for p in sv.PRESETS} - set(store["states"])) == 0


@pytest.fixture(scope="module")
def strip_page(tmp_path_factory):
    from explainer.app import export

    src = tmp_path_factory.mktemp("nb")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("from explainer import pages\npages.strip_steps()")])
    nbformat.write(nb, src / "02_tiled.ipynb")
    out = tmp_path_factory.mktemp("site")
    export.export(out, notebooks=src, log=lambda *_: None)
    return out / "02_tiled.html"


@pytest.mark.browser
def test_stepping_in_the_exported_page(strip_page, file_page, page_errors):
    page = file_page
    page.goto(strip_page.as_uri())
    page.wait_for_selector(".explainer-strip .explainer-strip-v1 rect")
    view = ".explainer-strip"
    M, N, K, T = sv.OPENING
    P = -(-K // T)

    def filled(side, name):
        return page.evaluate(f"() => document.querySelector('{view}').explainerView.filled('{side}', '{name}')")

    assert filled("v1", "As") == 0 and filled("v2", "As") == 0
    for t in range(P):
        page.click(f"{view} .explainer-strip-next")
        assert filled("v1", "As") == T * min(K, (t + 1) * T)  # V1 keeps every band
        assert filled("v2", "As") == T * T  # V2 holds one window
        model = ss.side_by_side(M, N, K, T)["steps"][1 + t]
        counts = page.locator(f"{view} .explainer-strip-v2-count").all_inner_texts()
        assert counts[0] == f"{model['loads']:,}" and counts[1] == str(model["v2"]["barriers"])
        assert page.locator(f"{view} .explainer-strip-v1-count").all_inner_texts()[1] == "0"
    page.click(f"{view} .explainer-strip-next")
    assert page.locator(f"{view} .explainer-strip-v1-count").all_inner_texts()[1:3] == ["1", str(K)]
    # another block of the preset comes from the page's store; a launch it does not hold says so
    page.select_option(f"{view} .explainer-strip-block", sv.key_of(M, N, K, T, 1, 1))
    page.wait_for_function(f"() => document.querySelector('{view}').explainerView.state().key === '{sv.key_of(M, N, K, T, 1, 1)}'")
    page.fill(f"{view} input[data-field='K']", "21")
    page.press(f"{view} input[data-field='K']", "Enter")
    assert page.locator(f"{view} .explainer-error").inner_text().strip()
    assert page.evaluate(f"() => document.querySelector('{view}').explainerView.state().key") == sv.key_of(M, N, K, T, 1, 1)
    assert not page_errors and not page.outside


@pytest.mark.browser
@pytest.mark.parametrize("width,height", [(1366, 768), (1920, 1080)])
def test_presenter_layout(strip_page, screen_page, page_errors, width, height):
    """?present: both kernels' figures on the screen at once, nothing scrolled; a clicker's keys step."""
    page = screen_page(width, height)
    view = ".explainer-strip"
    page.goto(strip_page.as_uri() + "?present")
    page.wait_for_selector(f"{view}.ex-presenting .explainer-strip-fig rect")
    for side in (0, 1):
        box = page.evaluate(f"""() => {{ const b = document.querySelectorAll('{view} .explainer-strip-fig')[{side}].getBoundingClientRect();
            return [b.left, b.top, b.right, b.bottom, innerWidth, innerHeight]; }}""")
        left, top, right, bottom, w, h = box
        assert 0 <= left and right <= w + 1 and 0 <= top and bottom <= h + 1, (side, box)
    scales = page.evaluate(f"() => [...document.querySelectorAll('{view} .explainer-strip-figbox')].map((f) => f.style.transform)")
    assert len(scales) == 2 and scales[0] == scales[1] and scales[0].startswith("scale(")  # one cell size on both sides
    state = f"() => document.querySelector('{view}').explainerView.state().step"
    for key, want in [("Space", 1), ("PageDown", 2), ("PageUp", 1), ("Home", 0)]:
        page.keyboard.press(key)
        assert page.evaluate(state) == want, key
    page.keyboard.press("End")
    assert page.evaluate(state) == len(sv.strip_view_data(*sv.OPENING)["steps"]) - 1
    page.keyboard.press("Escape")
    assert not page.evaluate(f"() => document.querySelector('{view}').classList.contains('ex-presenting')")
    assert page_errors == []
