"""A non-square block in the exported static page 01 (file://, the network blocked), in headless
Chromium: blockDim.x and blockDim.y typed apart and applied together step to the stored 16x4 and
32x8 launches (NaiveExplorer.STATIC_BLOCKS) with no kernel; what the page then shows (the pinned
thread's element, its warp's rows and sectors) is what explainer.model answers; the other mapping
keeps the shape; a block the page does not hold gets one line and the last good state stays."""

from __future__ import annotations

import pytest
from conftest import export_pages

from explainer.model import Launch, blockshape
from explainer.views import naive as nv

pytestmark = pytest.mark.browser

NB = "01_naive.ipynb"
VIEW_SEL = ".explainer-naive"
TEXT = f"{VIEW_SEL} .explainer-naive-text"
TIMEOUT_MS = 60_000


@pytest.fixture(scope="module")
def page01(tmp_path_factory):
    return export_pages(tmp_path_factory, NB) / "01_naive.html"


def _text(page) -> str:
    return " ".join(page.locator(TEXT).inner_text().split())


def _field(page, name):
    return page.locator(f"{VIEW_SEL} input[data-field='{name}']")


def _apply(page, bx, by):
    _field(page, "blockDim.x").fill(str(bx))
    _field(page, "blockDim.y").fill(str(by))
    _field(page, "blockDim.y").press("Enter")


def _expect(page, L, block, thread):
    v = L.thread(block, thread)
    row, col = v.c
    head = f"block (x={block[0]}, y={block[1]}), thread (x={thread[0]}, y={thread[1]})"
    page.locator(TEXT).filter(has_text=head).filter(has_text=f"computes C[{row}][{col}]").wait_for(timeout=TIMEOUT_MS)
    f = blockshape.warp_footprint(L, block, v.warp, 0)
    t = _text(page)
    assert f"linear id {v.linear_thread} → warp {v.warp}, lane {v.lane}" in t, t
    assert (f"warp {v.warp} spans {len(f['block_rows'])} row(s) of the block; at k = 0 its load of A touches "
            f"{f['A']['sectors']} sector(s) of 32 bytes (ideal {f['A']['ideal']})") in t, t
    assert (_field(page, "blockDim.x").input_value(), _field(page, "blockDim.y").input_value()) == \
        (str(L.BX), str(L.BY))


def test_a_non_square_block_in_the_static_page(page01, file_page, page_errors):
    page = file_page
    page.goto(page01.as_uri())
    page.locator(TEXT).filter(has_text="linear id").wait_for(timeout=TIMEOUT_MS)
    ne = nv.NaiveExplorer()  # what page 01 opens on
    block, thread = ne.block, ne.thread
    _expect(page, ne.L, block, thread)

    for dims in nv.NaiveExplorer.STATIC_BLOCKS:  # each stored non-square block, in the page's mapping
        L = Launch("naive", ne.L.M, ne.L.N, ne.L.K, block_dim=dims)
        _apply(page, *dims)
        _expect(page, L, block, (min(thread[0], dims[0] - 1), min(thread[1], dims[1] - 1)))
        assert page.locator(f"{VIEW_SEL} .explainer-error").inner_text().strip() == ""

    # the other mapping keeps the shape (the static store holds both)
    page.locator(f"{VIEW_SEL} .explainer-kernel button[data-value='naive_col']").click()
    dims = nv.NaiveExplorer.STATIC_BLOCKS[-1]
    L = Launch("naive_col", ne.L.M, ne.L.N, ne.L.K, block_dim=dims)
    _expect(page, L, block, (min(thread[0], dims[0] - 1), min(thread[1], dims[1] - 1)))

    # a block the page does not hold: one line, the last good state stays
    before = _text(page)
    _apply(page, 64, 32)
    page.locator(f"{VIEW_SEL} .explainer-error").filter(has_text="⚠").wait_for(timeout=TIMEOUT_MS)
    assert "\n" not in page.locator(f"{VIEW_SEL} .explainer-error").inner_text().strip()
    assert _text(page) == before
    assert (_field(page, "blockDim.x").input_value(), _field(page, "blockDim.y").input_value()) == tuple(map(str, dims))
    assert page.outside == [] and page_errors == []
