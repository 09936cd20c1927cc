"""The widgets' logic without a browser: what the stepper shows at each step comes from the
model, bad input keeps the last good state, clicks and keys pin and step, and the timing panel
labels recorded figures as recorded."""

from types import SimpleNamespace

import numpy as np
import pytest

from explainer.model import Launch
from explainer.naive_view import NaiveExplorer
from explainer.stepper import PADDING, PINNED, TiledStepper, source_lines


def small(**kw):
    args = dict(M=8, N=8, K=8, tile=4, block=(1, 0), thread=(1, 2))
    args.update(kw)
    return TiledStepper(**args)


def test_labels_walk_the_program():
    st = small()
    labels = []
    for i in range(len(st.steps)):
        st.go(i)
        labels.append(st.label())
    assert labels[0] == "block (x=1, y=0) · phase 1 of 2 · loading the A tile into As"
    assert "loading the B tile" in labels[1] and "barrier 1" in labels[2]
    assert "(k = 0 of 0..3)" in labels[3] and "barrier 2" in labels[7]
    assert "phase 2 of 2" in labels[8] and labels[-1].endswith("storing C")
    assert st.w_step.max == len(st.steps) - 1 == 2 * 8


def test_running_sum_reaches_the_product():
    st = small(M=7, N=9, K=11, tile=4, block=(1, 1), thread=(2, 1))
    st.go(len(st.steps) - 1)
    row, col = 1 * 4 + 1, 1 * 4 + 2
    want = int(st.A[row].astype(np.int64) @ st.B[:, col].astype(np.int64))
    assert f"sum = <b>{want}</b>" in st.w_sum.value


def test_shared_tiles_show_what_the_model_loads():
    st = small(M=3, N=3, K=3, tile=2, block=(1, 0), thread=(1, 0))  # seed 000's example
    # phase 2, step "load_a": thread (x=1, y=0) stores a padding zero (column 3 of A).
    i = next(i for i, s in enumerate(st.steps) if s.kind == "load_a" and s.phase == 1)
    st.go(i)
    z = np.asarray(st.fig_shared.data[0].z)
    text = np.asarray(st.fig_shared.data[0].text)
    for ty in range(2):
        for tx in range(2):
            r, c = st.L.a_load(0, 1, ty, tx)
            if r < 0:
                assert z[ty, tx] in (PADDING,) or (z[ty, tx] == PINNED and (tx, ty) == (1, 0))
                assert text[ty, tx].startswith("0")
            else:
                assert text[ty, tx] == f"A[{r}][{c}]"


def test_compute_step_highlights_row_and_column_of_pinned_thread():
    st = small()
    i = next(i for i, s in enumerate(st.steps) if s.kind == "compute" and s.k == 3)
    st.go(i)
    za, zb = np.asarray(st.fig_shared.data[0].z), np.asarray(st.fig_shared.data[1].z)
    tx, ty = st.thread
    assert za[ty, 3] == PINNED and zb[3, tx] == PINNED
    assert (za == PINNED).sum() == 1 and (zb == PINNED).sum() == 1
    assert "As[2][3] × Bs[3][1]" in st.w_sum.value


def test_figures_are_updated_in_place():
    st = small()
    ids = (id(st.fig_global), id(st.fig_shared))
    st.w_preset.value = next(p for p in st.PRESETS if p.startswith("rectangular"))
    st.go(5)
    st.w_T.value = 8
    assert (id(st.fig_global), id(st.fig_shared)) == ids
    assert st.L == Launch("tiled", 35, 79, 19, 8)


def test_bad_input_keeps_the_last_good_state():
    st = small()
    st.w_M.value = 1 << 20  # valid: a new launch, back to step 1
    st.go(3)
    before = (st.L, st.index, st.label(), st.fig_shared.data[0].z)
    st.w_K.value = 1 << 20  # A would have 2^40 elements: refused
    assert "32-bit" in st.w_error.value and "\n" not in st.w_error.value
    assert st.w_K.value == before[0].K  # the control snaps back
    assert (st.L, st.index, st.label()) == before[:3]
    assert np.array_equal(st.fig_shared.data[0].z, before[3])
    for name, bad, needle in (("w_T", 40, "tile must be between 1 and 32"), ("w_T", 0, "tile must be"), ("w_M", 0, "M must be at least 1")):
        getattr(st, name).value = bad
        assert needle in st.w_error.value
        assert (st.L, st.index, st.label()) == before[:3]
        assert getattr(st, name).value == getattr(before[0], "tile" if name == "w_T" else "M")
    st.w_N.value = 5  # a good change clears the message
    assert st.w_error.value == "" and st.L.N == 5


def test_huge_launch_does_not_materialise_matrices():
    st = small()
    st.w_M.value = 1 << 20
    st.w_K.value = 2047  # A has 2^31 - 2^20 elements: allowed, never allocated
    assert st.L.M == 1 << 20 and st.L.K == 2047
    st.go(len(st.steps) - 1)
    row = st.L.c_index(*st.block, *st.thread)[0]
    assert "sum = <b>" in st.w_sum.value and f"C[{row}]" in st.w_sum.value


def test_demo_matrix_indexing_is_consistent():
    from explainer.stepper import DemoMatrix

    A = DemoMatrix(50, 70, 7)
    full = A[:, :]
    assert full.shape == (50, 70) and full.min() >= -4 and full.max() <= 4
    assert np.array_equal(A[3], full[3]) and np.array_equal(A[:, 5], full[:, 5])
    assert A[4, 9] == full[4, 9]
    r, c = np.array([[1, 2], [3, 4]]), np.array([[5, 6], [7, 8]])
    assert np.array_equal(A[r, c], full[r, c])
    assert not np.array_equal(full[:50, :50], full[:50, :50].T)  # not symmetric


def test_click_on_c_pins_its_thread_and_block():
    st = small(M=16, N=16, K=8, tile=4)
    st._on_click_c(None, SimpleNamespace(xs=[13], ys=[6]), None)  # C[6][13]
    assert st.block == (3, 1) and st.thread == (1, 2)
    assert (st.w_bx.value, st.w_by.value, st.w_tx.value, st.w_ty.value) == (3, 1, 1, 2)
    st._on_click_thread(None, SimpleNamespace(xs=[0], ys=[3]), None)
    assert st.thread == (0, 3)


def test_arrow_keys_step():
    st = small()
    st._on_key(st.w_keys, {"key": "ArrowRight"}, [])
    st._on_key(st.w_keys, {"key": "ArrowRight"}, [])
    st._on_key(st.w_keys, {"key": "ArrowLeft"}, [])
    assert st.index == 1 and st.w_step.value == 1
    st._on_key(st.w_keys, {"key": "ArrowLeft"}, [])
    st._on_key(st.w_keys, {"key": "ArrowLeft"}, [])
    assert st.index == 0


def test_whole_loop_toggle_keeps_the_place():
    st = small()
    i = next(i for i, s in enumerate(st.steps) if s.kind == "compute" and s.phase == 1 and s.k == 2)
    st.go(i)
    st.w_perk.value = "whole loop"
    assert st.step.kind == "compute" and st.step.phase == 1 and st.step.k is None
    assert len(st.steps) == 2 * 5 + 1


def test_big_launch_is_windowed():
    st = TiledStepper()  # seed 001: 1024^3, T=16
    xs = np.asarray(st.fig_global.data[0].x)
    assert len(xs) <= 64 and 19 in np.asarray(st.fig_global.data[0].y)
    st.go(len(st.steps) - 1)  # last phase: the K window has moved to the end
    assert np.asarray(st.fig_global.data[0].x)[-1] == 1023


def test_code_panel_highlights_the_real_source():
    lines = source_lines()
    kinds = {k for _, _, k in lines if k}
    assert {"load_a", "load_b", "barrier1", "compute", "barrier2", "store"} <= kinds
    st = small()
    st.go(2)  # barrier 1
    hl = [l for l in st.w_code.value.split("</span></span>") if "background:#fde68a" in l]
    assert len(hl) == 1 and "__syncthreads()" in hl[0]


@pytest.mark.parametrize("kernel", ["naive", "naive_col"])
def test_naive_explorer_pin_is_the_inverse_of_the_mapping(kernel):
    ne = NaiveExplorer(M=40, N=50, K=7, tile=8, block=(0, 0), thread=(0, 0), kernel=kernel)
    for row, col in [(0, 0), (13, 41), (39, 49), (8, 7)]:
        ne.pin_c(row, col)
        assert ne.L.thread(ne.block, ne.thread).c == (row, col)
    assert "uncoalesced" in ne.w_text.value if kernel == "naive_col" else "coalesced" in ne.w_text.value


def test_timing_panel_without_gpu_shows_recorded_label(monkeypatch):
    from explainer import bench, gpu
    from explainer.timing import TimingPanel

    monkeypatch.setattr(gpu, "status", lambda: gpu.GpuStatus(False, "no GPU: test"))
    data = bench.load_recorded()
    p = TimingPanel(kernels=("naive", "tiled"), tiles=(16,), sizes=(1024,))
    assert p.w_button.disabled
    assert "Recorded, not measured here" in p.w_status.value
    assert data["device"]["name"] in p.w_status.value and data["date"][:10] in p.w_status.value
    names = {tr.name for tr in p.fig.data}
    assert names == {"cuBLAS", "naive T=16", "tiled T=16"}
    # the chart's numbers are the file's numbers
    tiled = next(r for r in bench.recorded_rows(data, "tiled", 1024, 16))
    bar = next(tr for tr in p.fig.data if tr.name == "tiled T=16")
    assert bar.y[0] == pytest.approx(tiled["gflops"])


def test_index_links_only_existing_pages():
    from explainer import pages

    html = pages.index().value
    listed = [nb for nb, _, _ in pages.PAGES if f'href="{nb}"' in html]
    assert listed == [nb for nb, _, _ in pages.available_pages()]
    assert "01_naive.ipynb" in listed and "02_tiled.ipynb" in listed
    for nb in listed:
        assert (pages.NOTEBOOKS_DIR / nb).exists()
