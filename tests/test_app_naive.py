"""The naive page as a student sees it: ``01_naive`` served by Voila, in headless Chromium.

Clicking a C cell pins the thread that owns it, and typing threadIdx / a blockIdx inside the
drawn window pins too, all in the browser with no message to the kernel (the websocket is
watched). The kernel picker asks Python for the other mapping: the same thread now computes
another element. Bad input shows one line and keeps the last good state. What the page shows
is compared with what ``explainer.model`` answers for the same launch.
"""

from __future__ import annotations

import pytest
from conftest import settle, view_frames

from explainer.model import Launch
from explainer.views import naive as nv
from explainer.views.common import ACTIVE, PANEL, PINNED, TILE

PAGE = "01_naive.ipynb"
RENDER_TIMEOUT_MS = 120_000
UPDATE_TIMEOUT_MS = 30_000
# The page opens on 1024^3, T=16, block (x=2, y=1), thread (x=4, y=3) (NaiveExplorer's defaults).
LAUNCH, BLOCK, THREAD = Launch("naive", 1024, 1024, 1024, 16), (2, 1), (4, 3)

VIEW_SEL = ".explainer-naive"
TEXT = f"{VIEW_SEL} .explainer-naive-text"
VIEW = f"document.querySelector('{VIEW_SEL}').explainerView"


def open_naive_page(page, server):
    page.goto(server.page_url(PAGE))
    try:
        page.locator(TEXT).filter(has_text="linear id").wait_for(timeout=RENDER_TIMEOUT_MS)
    except Exception as e:
        raise AssertionError(f"the naive page did not render its explorer: {e}\n"
                             f"Server log:\n{server.log_tail()}") from None
    assert "There was an error when executing cell" not in page.locator("body").inner_text()


def text(page) -> str:
    return " ".join(page.locator(TEXT).inner_text().split())


def colours(page, grid: str) -> list[list[int]]:
    return page.evaluate(f"() => {VIEW}.colours('{grid}')")


def field(page, name: str):
    return page.locator(f"{VIEW_SEL} input[data-field='{name}']")


def click_c(page, row: int, col: int, meta) -> None:
    r, c = row - meta["mwin"][0], col - meta["nwin"][0]
    page.locator(f"{VIEW_SEL} canvas[data-grid='C']").scroll_into_view_if_needed()
    at = page.evaluate(f"([r, c]) => {VIEW}.centre('C', r, c)", [r, c])
    page.mouse.click(at["x"], at["y"])


def expect_pinned(page, L, block, thread, meta) -> None:
    """The text and the colours say what the model says about thread ``thread`` of ``block``."""
    v = L.thread(block, thread)
    row, col = v.c
    head = f"block (x={block[0]}, y={block[1]}), thread (x={thread[0]}, y={thread[1]})"
    # The new state's own words (a request to Python leaves the old text, with "computing…").
    page.locator(TEXT).filter(has_text=head).filter(has_text=f"computes C[{row}][{col}]").filter(
        has_not_text="computing").wait_for(timeout=UPDATE_TIMEOUT_MS)
    t = text(page)
    assert f"linear id {v.linear_thread} → warp {v.warp}, lane {v.lane}" in t, t
    assert f"= {row}; col = " in t and t.count(f"computes C[{row}][{col}]") == 1, t
    (m0, _), (n0, _) = meta["mwin"], meta["nwin"]
    cz, az, bz = colours(page, "C"), colours(page, "A"), colours(page, "B")
    assert cz[row - m0][col - n0] == PINNED and sum(r.count(PINNED) for r in cz) == 1
    assert set(az[row - m0]) == {ACTIVE} and sum(r.count(ACTIVE) for r in az) == len(az[0])
    assert all(r[col - n0] == ACTIVE for r in bz)
    # The warp's other lanes are the model's: the same block, the same warp.
    BX, BY = L.block
    lanes = [(x, y) for y in range(BY) for x in range(BX) if L.warp_lane(x, y)[0] == v.warp and (x, y) != tuple(thread)]
    for x, y in lanes[:5]:
        r2, c2 = L.c_index(block[0], block[1], x, y)
        assert cz[r2 - m0][c2 - n0] == TILE
    bx, by = block
    assert cz[by * L.tile_rows - m0][bx * L.tile_cols - n0] in (PANEL, TILE, PINNED)


@pytest.mark.browser
def test_naive_page_pins_in_the_browser_and_asks_python_for_the_other_mapping(voila_server, browser_page, page_errors):
    page = browser_page
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: frames.append(str(payload))))
    open_naive_page(page, voila_server)
    settle(page)
    frames.clear()
    meta, _ = nv.naive_data(LAUNCH, BLOCK)
    expect_pinned(page, LAUNCH, BLOCK, THREAD, meta)

    # A click on C[20][53]: the model says thread (5, 4) of block (3, 1) owns it (in the window).
    (ob, ot) = LAUNCH.c_owner(20, 53)
    assert ob != BLOCK
    click_c(page, 20, 53, meta)
    expect_pinned(page, LAUNCH, ob, ot, meta)
    assert (field(page, "blockIdx.x").input_value(), field(page, "threadIdx.x").input_value()) == (str(ob[0]), str(ot[0]))

    # Typing threadIdx.y pins another thread of the same block.
    field(page, "threadIdx.y").fill("9")
    field(page, "threadIdx.y").press("Enter")
    expect_pinned(page, LAUNCH, ob, (ot[0], 9), meta)
    assert view_frames(frames) == [], f"pinning sent {len(frames)} messages to the kernel: {[f[-700:] for f in frames[:3]]}"

    # The other mapping: Python sends naive_col; the same thread computes C[by*T+tx][bx*T+ty].
    page.locator(f"{VIEW_SEL} .explainer-kernel button[data-value='naive_col']").click()
    col_launch = Launch("naive_col", 1024, 1024, 1024, 16)
    expect_pinned(page, col_launch, ob, (ot[0], 9), nv.naive_data(col_launch, BLOCK)[0])
    assert "uncoalesced" in text(page)
    assert any('"cmd":"kernel"' in f.replace(" ", "") for f in frames), [f[:200] for f in frames[:3]]

    # Bad input: one line, the last good state stays (a 64x32 block has 2048 threads).
    before = text(page)
    field(page, "blockDim.x").fill("64")
    field(page, "blockDim.y").fill("32")
    field(page, "blockDim.y").press("Enter")
    page.locator(f"{VIEW_SEL} .explainer-error").filter(has_text="⚠").wait_for(timeout=UPDATE_TIMEOUT_MS)
    assert "\n" not in page.locator(f"{VIEW_SEL} .explainer-error").inner_text().strip()
    assert "2048 threads" in page.locator(f"{VIEW_SEL} .explainer-error").inner_text()
    assert text(page) == before
    assert (field(page, "blockDim.x").input_value(), field(page, "blockDim.y").input_value()) == ("16", "16")

    # A non-square block, blockDim.x and blockDim.y committed together: naive_col with 16x4, the
    # pinned thread kept where it exists (threadIdx.y 9 -> 3), computing what the model says.
    field(page, "blockDim.x").fill("16")
    field(page, "blockDim.y").fill("4")
    field(page, "blockDim.y").press("Enter")
    rect = Launch("naive_col", 1024, 1024, 1024, block_dim=(16, 4))
    expect_pinned(page, rect, ob, (ot[0], 3), nv.naive_data(rect, ob)[0])
    expect_warp_line(page, rect, ob, (ot[0], 3))
    assert page.locator(f"{VIEW_SEL} .explainer-error").inner_text().strip() == ""
    assert page_errors == []


def expect_warp_line(page, L, block, thread) -> None:
    """The pinned thread's warp line is the model's (explainer.model.blockshape.warp_footprint)."""
    from explainer.model import blockshape

    w = L.thread(block, thread).warp
    f = blockshape.warp_footprint(L, block, w, 0)
    want = (f"warp {w} spans {len(f['block_rows'])} row(s) of the block; at k = 0 its load of A touches "
            f"{f['A']['sectors']} sector(s) of 32 bytes (ideal {f['A']['ideal']}), its load of B {f['B']['sectors']} "
            f"(ideal {f['B']['ideal']}), its store of C {f['C']['sectors']} (ideal {f['C']['ideal']})")
    assert want in text(page), (want, text(page))
