"""One numbering everywhere: every label counts phases (and k, k-steps, stages, buffers) from 0, as
the kernel's loop, ``tiled-explainer trace`` and PMPP's ``ph`` do, written ``phase t = 0 of 0..P-1``.
A student who puts the label's t into ``a_col = t*TILE + tx`` gets the column the thread copies.
The browser side (page 02's first label, the same launch's trace) is in ``test_app_tiled.py``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from explainer.app.cli import main as cli_main
from explainer.model import Launch, count_label, hazards, hopper, mma, phase_label, steps
from explainer.model.ladder import RUNGS
from explainer.views import ladder as lv
from explainer.views import mma as vm
from explainer.views import tiled as tv
from explainer.views import warps as wv

VIEWS = Path(__file__).resolve().parent.parent / "explainer" / "views"
ONE_BASED = re.compile(r"phase \d+ of \d+|k-step \d+ of \d+")  # the old "phase 1 of 2"


def test_the_one_format():
    assert phase_label(0, 2) == "phase t = 0 of 0..1"
    assert count_label("k", 3, 4) == "k = 3 of 0..3"
    assert count_label("stage", 0, 4) == "stage = 0 of 0..3"


def js_label(meta, a, mode, i) -> str:
    """What ``tiled.js``'s label() writes for step i: a lookup in the payload's texts."""
    kind = meta["kinds"][a[f"{mode}_kind"][i]]
    if kind == "store":
        return f"{meta['where']} · {meta['store_text']}"
    k = int(a[f"{mode}_k"][i])
    s = f"{meta['where']} · {meta['phase_text'][a[f'{mode}_tp'][i]]} · {meta['words'][kind]}"
    if kind == "compute":
        s += meta["k_text"][k] if k >= 0 else meta["loop_text"]
    return s


@pytest.mark.parametrize("kernel,M,N,K,T,block", [
    ("tiled", 3, 3, 3, 2, (1, 0)),      # the course notes (page 03's opening launch)
    ("tiled", 8, 8, 8, 4, (1, 0)),      # page 02's small preset
    ("tiled", 35, 79, 19, 8, (3, 2)),
    ("tiled_no_barrier2", 9, 7, 11, 4, (1, 2)),
])
def test_step_labels_count_from_zero(kernel, M, N, K, T, block):
    L = Launch(kernel, M, N, K, T)
    P = L.phases
    meta, a = tv.tiled_data(L, block)
    assert meta["phase_text"] == [f"phase t = {t} of 0..{P - 1}" for t in range(P)]
    assert meta["hold_text"] == meta["phase_text"]
    assert meta["k_text"] == [f" (k = {k} of 0..{T - 1})" for k in range(T)]
    for mode, per_k in tv.MODES.items():
        for i, s in enumerate(steps(L, per_k)):
            want = tv.step_label(L, block, s)
            assert js_label(meta, a, mode, i) == want  # the browser's label is Python's
            assert not ONE_BASED.search(want), want
            if s.kind != "store":
                assert f" · phase t = {s.phase} of 0..{P - 1} · " in want, want
            if s.kind == "compute" and s.k is not None:
                assert want.endswith(f"(k = {s.k} of 0..{T - 1})"), want
    first = tv.step_label(L, block, steps(L)[0])
    assert first == f"block (x={block[0]}, y={block[1]}) · phase t = 0 of 0..{P - 1} · loading the A tile into As"


def test_a_chunk_far_down_a_long_loop_counts_from_zero():
    L = Launch("tiled", 5, 6, 40_000, 8)  # 5000 phases, sent in chunks
    phase = tv.chunk_of(L, 0).p1 + 3
    meta, _ = tv.tiled_data(L, (0, 0), (1, 2), phase=phase)
    t0 = meta["pbase"]
    assert meta["phase_text"][phase - t0] == f"phase t = {phase} of 0..{L.phases - 1}"


def trace_rows(capsys, L: Launch, block, thread) -> dict[int, str]:
    """``tiled-explainer trace``'s readable rows: phase -> the A element As[ty][tx] receives."""
    (bx, by), (tx, ty) = block, thread
    line = (f"trace --kernel {L.kernel} --M {L.M} --N {L.N} --K {L.K} --tile {L.T} "
            f"--block {bx},{by} --thread {tx},{ty}")
    assert cli_main(line.split()) == 0
    out = capsys.readouterr().out
    rows = re.findall(rf"^\s+(\d+)\s+As\[{ty}\]\[{tx}\] = (A\[\d+\]\[\d+\]|0 \(padding\))", out, re.M)
    assert rows, out
    return {int(t): a for t, a in rows}


@pytest.mark.parametrize("M,N,K,T,block,thread", [
    (3, 3, 3, 2, (1, 0), (1, 0)),            # phase t = 1 reads column 1*2 + 1 = 3: padding
    (8, 8, 8, 4, (1, 0), (1, 2)),
    (35, 79, 19, 8, (3, 2), (5, 6)),
])
def test_the_trace_and_the_stepper_number_phases_alike(capsys, M, N, K, T, block, thread):
    """For every phase t the CLI prints, the stepper's load-A step labelled ``phase t = t`` shows
    As[ty][tx] receiving the same element, and that element's column is t*T + tx."""
    L = Launch("tiled", M, N, K, T)
    rows = trace_rows(capsys, L, block, thread)
    assert sorted(rows) == list(range(L.phases))
    meta, a = tv.tiled_data(L, block, thread)
    tx, ty = thread
    p = int(a["thread_grid"][ty, tx])
    cell = int(a["store_cell"][p])
    for i, s in enumerate(steps(L)):
        if s.kind != "load_a":
            continue
        label = tv.step_label(L, block, s)
        t = int(re.search(r"phase t = (\d+) of 0\.\.", label).group(1))
        r, c = (int(v) for v in a["a_src"][a["k_tp"][i], cell])
        shown = "0 (padding)" if r < 0 else f"A[{r}][{c}]"
        assert rows[t] == shown, (label, rows[t], shown)
        a_col = t * T + tx  # the kernel's a_col, with the label's t
        assert shown == ("0 (padding)" if a_col >= K else f"A[{block[1] * T + ty}][{a_col}]")


def test_tensor_core_steppers_count_from_zero():
    meta, _ = vm.mma_data(0)
    k = mma.KERNEL
    P, S = k.phases(vm.K), k.ksteps
    assert len(meta["steps"]) == P * S
    for i, text in enumerate(meta["steps"]):
        p, s = divmod(i, S)
        assert text.startswith(f"k-step = {i} of 0..{P * S - 1}: phase t = {p} of 0..{P - 1} "), text
        assert f"k-step {s} inside it" in text and not ONE_BASED.search(text)


def test_page05_caption_and_ladder_registers_count_from_zero():
    meta, _ = wv.warps_data(64, 64, 64, 16, (0, 0), 2)
    assert "loop step k = 2 of 0..63 (naive) / phase t = 2 of 0..3 (tiled)" in meta["caption"]
    r = RUNGS[0]
    meta, _ = lv.ladder_data(r)
    assert f"at step k = {{k}} of 0..{r.BK - 1}:" in meta["registers"]


def test_hazard_reports_count_from_zero():
    L = Launch("tiled_no_barrier2", 8, 8, 8, 4)
    g = next(h for h in hazards.hazards(L) if h.tile == "Bs" and h.cell == (1, 0))
    assert g.phase == 0
    assert "of phase t = 0 when" in g.describe(L.phases) and "phase t = 1 of 0..1" in g.describe(L.phases)
    assert not ONE_BASED.search(g.describe(L.phases))


def test_front_ends_write_no_one_based_counter():
    """No view's JavaScript builds a phase / k-step / stage / buffer label from ``n + 1``; they use
    ``countText``, the JavaScript twin of :func:`explainer.model.count_label`."""
    bad = re.compile(r"(phase|k-step|stage|buffer)[^`\n]*\$\{[^}]*\+ 1\}")
    for js in sorted(VIEWS.glob("*.js")):
        for no, line in enumerate(js.read_text(encoding="utf-8").splitlines(), 1):
            assert not bad.search(line), f"{js.name}:{no}: {line.strip()}"
    common = (VIEWS / "common.js").read_text(encoding="utf-8")
    count_text = common[common.index("function countText(name, i, n) {"):]
    count_text = count_text[:count_text.index("\n}\n")]
    assert 'tr("{name} = {i} of 0..{last}", { name: names[name] || name, i, last: n - 1 });' in count_text
    assert hopper.KERNEL.stages > 1 and mma.STAGED.stages > 1  # the stage / buffer boxes they label
