"""The widgets' logic without a browser: what the stepper shows at each step comes from the
model, bad input keeps the last good state, clicks and keys pin and step, and the timing panel
labels recorded figures as recorded."""

import numpy as np
import pytest

from explainer.model import Launch
from explainer.views.naive import NaiveExplorer
from explainer.views.stepper import TiledStepper, source_lines


def small(**kw):
    args = dict(M=8, N=8, K=8, tile=4, block=(1, 0), thread=(1, 2))
    args.update(kw)
    return TiledStepper(**args)


def ask(st, **msg):
    """What the browser sends when a control needs Python."""
    st._on_msg(st.view, msg, [])


def test_labels_walk_the_program():
    st = small()
    labels = []
    for i in range(len(st.steps)):
        st.go(i)
        labels.append(st.label())
    assert labels[0] == "block (x=1, y=0) · phase t = 0 of 0..1 · loading the A tile into As"
    assert "loading the B tile" in labels[1] and "barrier 1" in labels[2]
    assert "(k = 0 of 0..3)" in labels[3] and "barrier 2" in labels[7]
    assert "phase t = 1 of 0..1" in labels[8] and labels[-1].endswith("storing C")
    assert st.view.meta["steps"]["k"]["total"] == len(st.steps) == 2 * 8 + 1


def test_stepping_sends_no_new_arrays():
    """Steps inside the payload are the browser's business: go() only tells it where to go."""
    st = small()
    rev, buf = st.view.rev, st.view.buf
    sent = []
    st.view.send = lambda msg, buffers=None: sent.append(msg)
    for i in (3, 4, 16, 0):
        st.go(i)
    assert (st.view.rev, st.view.buf) == (rev, buf)
    assert sent == [{"go": 3}, {"go": 4}, {"go": 16}, {"go": 0}]


def test_running_sum_reaches_the_product():
    st = small(M=7, N=9, K=11, tile=4, block=(1, 1), thread=(2, 1))
    meta, a = st.data()
    p = int(a["thread_grid"][1, 2])
    row, col = 1 * 4 + 1, 1 * 4 + 2
    want = int(st.A[row].astype(np.int64) @ st.B[:, col].astype(np.int64))
    last = int(a["k_sum"][-1])
    assert int(a["sums"].reshape(-1, 16)[last, p]) == want == int(a["numpy_c"][p])


def test_bad_input_keeps_the_last_good_state():
    st = small()
    ask(st, cmd="launch", M=str(1 << 20), N="8", K="8", T="4")  # valid: a new launch
    st.go(3)
    before = (st.L, st.index, st.label(), st.view.rev, st.view.buf)
    sent = []
    st.view.send = lambda msg, buffers=None: sent.append(msg)
    ask(st, cmd="launch", M=str(1 << 20), N="8", K=str(1 << 20), T="4")  # A: 2^40 elements
    assert "32-bit" in st.error and "\n" not in st.error and sent[-1] == {"error": st.error}
    assert (st.L, st.index, st.label(), st.view.rev, st.view.buf) == before
    for (field, bad), needle in (((("T", "40")), "tile must be between 1 and 32"), (("T", "0"), "tile must be"),
                                 (("M", "0"), "M must be at least 1"), (("K", "x"), "K must be a whole number")):
        msg = dict(cmd="launch", M=str(1 << 20), N="8", K="8", T="4")
        msg[field] = bad
        ask(st, **msg)
        assert needle in st.error and "\n" not in st.error
        assert (st.L, st.index, st.label(), st.view.rev, st.view.buf) == before
    ask(st, cmd="block", block=["9", "0"], thread=0, step=0, mode="k")
    assert "outside the grid" in st.error and st.view.rev == before[3]
    ask(st, cmd="launch", M="5", N="8", K="8", T="4")  # a good change clears the message
    assert st.error == "" and st.L.M == 5


def test_huge_launch_does_not_materialise_matrices():
    st = small()
    ask(st, cmd="launch", M=str(1 << 20), N="8", K="2047", T="4")  # A: 2^31 - 2^20 elements
    assert st.L.M == 1 << 20 and st.L.K == 2047
    st.go(st.view.meta["steps"]["k"]["total"] - 1)
    meta, a = st.data()
    assert st.label().endswith("storing C") and meta["p1"] == st.L.phases


def test_long_k_loop_asks_for_the_next_chunk():
    st = TiledStepper(5, 6, 40_000, 8, (0, 0), (1, 2))
    s1 = st.view.meta["steps"]["k"]["s1"]
    assert s1 < st.view.meta["steps"]["k"]["total"]
    ask(st, cmd="chunk", mode="k", step=s1 + 7, thread=int(st.data()[1]["thread_grid"][2, 1]))
    meta = st.view.meta
    assert meta["steps"]["k"]["s0"] <= s1 + 7 < meta["steps"]["k"]["s1"]
    assert meta["start"] == {"index": s1 + 7, "mode": "k", "thread": 1 + 2 * 8} and st.thread == (1, 2)


def test_click_on_another_block_moves_there():
    st = small(M=16, N=16, K=8, tile=4)
    meta, a = st.data()
    obx, oby, q = (int(v) for v in a["c_owner"][6 - meta["mwin"][0], 13 - meta["nwin"][0]])
    assert (obx, oby) == (3, 1)  # C[6][13] belongs to another block: the browser asks Python
    ask(st, cmd="block", block=[obx, oby], thread=q, step=5, mode="k")
    assert st.block == (3, 1) and st.thread == (1, 2) and st.index == 5
    assert st.view.meta["block"] == [3, 1] and st.view.meta["start"]["thread"] == q
    st.pin((3, 1), (0, 3))
    assert st.thread == (0, 3)


def test_presets_and_whole_loop_mode():
    st = small()
    name = next(p for p in st.PRESETS if p.startswith("rectangular"))
    ask(st, cmd="preset", name=name, mode="loop")
    assert st.L == Launch("tiled", 35, 79, 19, 8) and st.view.meta["preset"] == name
    assert st.view.meta["start"]["mode"] == "loop" and len(st.steps) == 3 * 5 + 1
    ask(st, cmd="preset", name="no such preset")
    assert "unknown preset" in st.error


def test_big_launch_is_windowed():
    st = TiledStepper()  # the gemm_tiled walk-through: 1024^3, T=16
    meta, a = st.data()
    assert meta["mwin"][1] - meta["mwin"][0] <= 64 and meta["mwin"][0] <= 19 < meta["mwin"][1]
    assert a["kwin"][-1][1] == 1024 and a["kwin"][0][0] == 0  # the K window follows the phase


def test_code_panel_highlights_the_real_source():
    lines = source_lines()
    kinds = {k for _, _, k in lines if k}
    assert {"load_a", "load_b", "barrier1", "compute", "barrier2", "store"} <= kinds
    st = small()
    marked = [text for _, text, kind in st.view.meta["code"] if kind == "barrier1"]
    assert len(marked) == 1 and "__syncthreads()" in marked[0]


def test_demo_matrix_indexing_is_consistent():
    from explainer.views.stepper import DemoMatrix

    A = DemoMatrix(50, 70, 7)
    full = A[:, :]
    assert full.shape == (50, 70) and full.min() >= -4 and full.max() <= 4
    assert np.array_equal(A[3], full[3]) and np.array_equal(A[:, 5], full[:, 5])
    assert A[4, 9] == full[4, 9]
    r, c = np.array([[1, 2], [3, 4]]), np.array([[5, 6], [7, 8]])
    assert np.array_equal(A[r, c], full[r, c])
    assert not np.array_equal(full[:50, :50], full[:50, :50].T)  # not symmetric


@pytest.mark.parametrize("kernel", ["naive", "naive_col"])
def test_naive_explorer_pin_is_the_inverse_of_the_mapping(kernel):
    ne = NaiveExplorer(M=40, N=50, K=7, tile=8, block=(0, 0), thread=(0, 0), kernel=kernel)
    for row, col in [(0, 0), (13, 41), (39, 49), (8, 7)]:
        ne.pin_c(row, col)
        assert ne.L.thread(ne.block, ne.thread).c == (row, col)
    meta, _ = ne.data()
    assert ("uncoalesced" in meta["warps_html"]) == (kernel == "naive_col") and "coalesced" in meta["warps_html"]


def test_timing_panel_without_gpu_shows_recorded_label(monkeypatch):
    from explainer.gpu import recorded
    from explainer import gpu
    from explainer.views.timing import TimingPanel

    monkeypatch.setattr(gpu, "status", lambda: gpu.GpuStatus(False, "no GPU: test"))
    data = recorded.load_recorded()
    p = TimingPanel(kernels=("naive", "tiled"), tiles=(16,), sizes=(1024,))
    assert p.w_button.disabled
    assert "Recorded, not measured here" in p.w_status.value
    assert data["device"]["name"] in p.w_status.value and data["date"][:10] in p.w_status.value
    names = {tr.name for tr in p.fig.data}
    assert names == {"cuBLAS", "naive T=16", "tiled T=16"}
    # the chart's numbers are the file's numbers
    tiled = next(r for r in recorded.recorded_rows(data, "tiled", 1024, 16))
    bar = next(tr for tr in p.fig.data if tr.name == "tiled T=16")
    assert bar.y[0] == pytest.approx(tiled["gflops"])


def test_timing_panel_orders_tiles_as_numbers_and_shades_them(monkeypatch):
    """T = 8, 16, 32 of one kernel: bars and table rows in numeric order (not 16, 32, 8 as text),
    each tile its own shade of the kernel's colour."""
    import re

    from explainer import gpu
    from explainer.views.timing import TimingPanel

    monkeypatch.setattr(gpu, "status", lambda: gpu.GpuStatus(False, "no GPU: test"))
    p = TimingPanel(kernels=("tiled",), tiles=(32, 8, 16), sizes=(1024,))
    names = [tr.name for tr in p.fig.data]
    assert names == ["cuBLAS", "tiled T=8", "tiled T=16", "tiled T=32"], names
    colours = [tr.marker.color for tr in p.fig.data if tr.name.startswith("tiled")]
    assert len(set(colours)) == 3 and colours[-1] == "#3b82f6"  # the largest tile: the kernel's own colour
    rows = re.findall(r"<td[^>]*>(tiled T=\d+)</td>", p.w_table.value)
    assert rows == ["tiled T=8", "tiled T=16", "tiled T=32"], rows


def test_index_links_only_existing_pages():
    from explainer import pages

    html = pages.index().value
    listed = [nb for nb, _, _ in pages.PAGES if f'href="{nb}"' in html]
    assert listed == [nb for nb, _, _ in pages.available_pages()]
    assert "01_naive.ipynb" in listed and "02_tiled.ipynb" in listed
    for nb in listed:
        assert (pages.NOTEBOOKS_DIR / nb).exists()


def test_plotly_runtime_points_at_the_served_bundle_or_carries_it(monkeypatch):
    from explainer.views import plotly_widget as pw

    monkeypatch.delenv(pw.BUNDLE_URL_ENV, raising=False)
    pw.runtime.cache_clear()
    try:
        carried = pw.runtime()
        assert carried.bundle == pw.bundle_text() and carried.url == "" and pw.check_bundle()
        pw.runtime.cache_clear()
        monkeypatch.setenv(pw.BUNDLE_URL_ENV, "../files/site/assets/plotly-widget.js")
        served = pw.runtime()
        assert served.url.endswith("plotly-widget.js") and served.bundle == ""
        served._on_msg(served, {"cmd": "bundle"}, [])  # the browser could not fetch the file
        assert served.bundle == pw.bundle_text()
    finally:
        pw.runtime.cache_clear()


def test_a_page_that_opens_on_a_preset_names_it():
    """The Preset menu shows the preset a page opens on (page 02: the walk-through's example),
    and "(custom)" (no name) for a launch that is none of them."""
    st = TiledStepper()
    walk = next(n for n in st.PRESETS if n.startswith("the gemm_tiled walk-through"))
    assert st.data()[0]["preset"] == walk
    assert TiledStepper(M=100, N=60, K=40, tile=8, block=(0, 0), thread=(0, 0)).data()[0]["preset"] is None
    st._on_msg(None, {"cmd": "launch", "M": 64, "N": 64, "K": 64, "T": 16}, [])  # sizes typed in the page
    assert st.error == "" and st.data()[0]["preset"] is None


def test_a_typed_launch_comes_with_its_typed_block_or_keeps_the_last_good_state():
    """Apply sends M, N, K, T and the block together: the stepper lands on that block; a block
    outside the new grid is refused in one line and nothing changes."""
    st = small()
    ask(st, cmd="launch", M="12", N="12", K="12", T="4", block=["2", "1"], mode="k")
    assert (st.L.M, st.L.T, st.block) == (12, 4, (2, 1)) and st.error == ""
    before = (st.L, st.block, st.view.rev)
    ask(st, cmd="launch", M="8", N="8", K="8", T="4", block=["2", "1"], mode="k")  # the grid is 2x2
    assert (st.L, st.block, st.view.rev) == before
    assert "outside the grid" in st.error and "\n" not in st.error
    ask(st, cmd="launch", M="8", N="8", K="8", T="4", mode="k")  # no block: the current one moved in
    assert (st.L.M, st.block) == (8, (1, 1)) and st.error == ""


@pytest.mark.parametrize("M,N,T", [(8, 8, 4), (35, 79, 8), (64, 16, 16), (5, 40, 4)])
def test_block_place_names_corners_edges_interior_and_ghosts(M, N, T):
    L = Launch("tiled", M, N, 7, T)
    gx, gy = L.grid
    ty, tx = np.divmod(np.arange(T * T), T)
    for by in range(gy):
        for bx in range(gx):
            words = L.block_place(bx, by)
            edges = (bx in (0, gx - 1)) + (by in (0, gy - 1))
            assert words.split(",")[0] == ("interior", "edge", "corner")[edges]
            ghosts = int((~L.writes_c(bx, by, tx, ty)).sum())
            assert (f"{ghosts} ghost thread" in words) == (ghosts > 0)
