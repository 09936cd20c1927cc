"""The arrays page 08's mapping view receives equal what explainer.model.ladder answers.

The browser picks a thread, a step k and a mode by looking them up in these arrays, so every
entry is checked against the model one thread at a time (``ladder.thread_outputs`` /
``owner_map``, ``loader_a`` / ``loader_b``, the read slots), and what the browser paints for
every thread (the same look-ups, :func:`explainer.views.ladder.painted`) against the pictures
of ``explainer.views.ladder_maps`` (``block_tile_z``, ``reads_z``, ``copies_z``), on every rung.
"""

from __future__ import annotations

import numpy as np
import pytest

from explainer.model import ladder
from explainer.model.ladder import WARP
from explainer.views.ladder_maps import (block_tile_z, copies, copies_z, ranges, reads_z, register_counts, thread_reads,
                                   warp_region, warp_subtiles)
from explainer.views import ladder as lv
from explainer.views.payload import pack, unpack

RUNGS = pytest.mark.parametrize("r", ladder.RUNGS, ids=lambda r: r.name)


@RUNGS
def test_threads_warps_and_owners_are_the_models(r):
    meta, a = lv.ladder_data(r)
    own = ladder.owner_map(r)
    np.testing.assert_array_equal(a["owner"], own)
    assert a["owner"].dtype == np.int16 and a["owner"].shape == (r.BM, r.BN)
    assert (meta["BM"], meta["BN"], meta["BK"], meta["threads"], meta["k_max"]) == (r.BM, r.BN, r.BK, r.threads, r.BK - 1)
    for t in range(r.threads):
        rows, cols = ladder.thread_outputs(r, t)
        assert set(zip(rows, cols)) == {tuple(x) for x in np.argwhere(own == t)}
        assert (a["thr_warp"][t], a["thr_lane"][t]) == (t // WARP, t % WARP)
        assert a["thr_stripe"][t] == (t // WARP) % 2
        rr, cc = thread_reads(r, t)
        np.testing.assert_array_equal(a["thr_rows"][t], rr)
        np.testing.assert_array_equal(a["thr_cols"][t], cc)
        assert meta["thr_ranges"][t] == [ranges(rows), ranges(cols)]
    for w in range(r.threads // WARP):
        mine = np.isin(own, np.arange(w * WARP, (w + 1) * WARP))
        assert set(np.flatnonzero(a["warp_rows"][w])) == set(np.nonzero(mine)[0])
        assert set(np.flatnonzero(a["warp_cols"][w])) == set(np.nonzero(mine)[1])
        box = warp_region(r, w)
        assert tuple(a["warp_box"][w]) == (box["row0"], box["row1"], box["col0"], box["col1"])
        subs = warp_subtiles(r, w)
        assert a["warp_sub"].shape[1] == len(subs)
        assert [tuple(x) for x in a["warp_sub"][w]] == [(s["row0"], s["col0"], s["rows"], s["cols"]) for s in subs]
        assert f"warp {w} " in meta["warp_text"][w]


@RUNGS
def test_windows_copies_and_slots_are_the_models(r):
    meta, a = lv.ladder_data(r)
    np.testing.assert_array_equal(a["loader_a"], ladder.loader_a(r))
    np.testing.assert_array_equal(a["loader_b"], ladder.loader_b(r))
    for m in range(r.BM):
        for k in range(r.BK):
            s = ladder.read_slot_a(r, m, k)
            assert (a["a_slot"][m, k], a["a_bank"][m, k]) == (s, s % 32)
    for k in range(r.BK):
        for n in range(r.BN):
            s = ladder.read_slot_b(r, k, n)
            assert (a["b_slot"][k, n], a["b_bank"][k, n]) == (s, s % 32)
    v = r.vector
    for t in range(r.threads):
        cp = copies(r, t)
        got_a = [tuple(x) for x in a["cp_a"][t] if x[0] >= 0]
        assert got_a == [(m, k, k + v - 1) for m, k in cp["a"]]
        for i, (m, k) in enumerate(cp["a"]):
            slots = ladder.read_slot_a(r, m, np.arange(k, k + v))
            np.testing.assert_array_equal(a["cp_a_slot"][t, i], slots)
            np.testing.assert_array_equal(a["cp_a_bank"][t, i], slots % 32)
        got_b = [tuple(x) for x in a["cp_b"][t] if x[0] >= 0]
        assert got_b == [(k, n, n + v - 1) for k, n in cp["b"]]
        for i, (k, n) in enumerate(cp["b"]):
            assert tuple(a["cp_b_slot"][t, i]) == (ladder.read_slot_b(r, k, n), ladder.read_slot_b(r, k, n + v - 1))
    assert f"{register_counts(r)['total']} floats in all" in meta["registers"]
    assert ("LDG.128" if v == 4 else "LDG.32") in meta["copies_head"]


@RUNGS
def test_what_the_browser_paints_is_the_models_picture(r):
    _, a = lv.ladder_data(r)
    for t in range(r.threads):
        k = t % r.BK
        got = lv.painted(a, t, k, "reads")
        np.testing.assert_array_equal(got["C"], block_tile_z(r, t))
        za, zb = reads_z(r, t, k)
        np.testing.assert_array_equal(got["A"], za)
        np.testing.assert_array_equal(got["B"], zb)
        got = lv.painted(a, t, k, "copies")
        za, zb = copies_z(r, t)
        np.testing.assert_array_equal(got["A"], za)
        np.testing.assert_array_equal(got["B"], zb)


@RUNGS
def test_payload_round_trips_and_is_small(r):
    meta, buf = lv.ladder_payload(r, thread=r.threads - 1, k=3, mode="copies")
    _, direct = lv.ladder_data(r)
    got = unpack(meta["arrays"], buf)
    assert set(got) == set(direct) and all(np.array_equal(got[k], direct[k]) for k in got)
    assert pack(direct)[1] == buf
    assert meta["start"] == {"thread": r.threads - 1, "k": 3, "mode": "copies"}
    assert len(buf) < 200_000 and "M" not in meta  # a rung is the whole state: no launch


def test_explorer_answers_a_rung_and_keeps_state_on_bad_input():
    e = lv.LadderExplorer(rung="blocktile_1d", thread=400, k=5, mode="copies")
    sent = []
    e.view.send = lambda msg, buffers=None: sent.append(msg)
    rev = e.view.rev
    e._on_msg(None, {"cmd": "kernel", "name": "warptile", "thread": 400, "k": 6, "mode": "reads"}, [])
    meta, _ = e.data()
    assert e.view.rev == rev + 1 and meta["rung"] == "warptile"
    assert meta["start"] == {"thread": 0, "k": 6, "mode": "reads"}  # 256 threads: thread 400 is gone
    e._on_msg(None, {"cmd": "kernel", "name": "vectorized", "thread": "37", "k": 2, "mode": "copies"}, [])
    assert e.data()[0]["start"] == {"thread": 37, "k": 2, "mode": "copies"} and (e.r.name, e.tid) == ("vectorized", 37)
    before = (e.view.rev, e.view.meta)
    e._on_msg(None, {"cmd": "kernel", "name": "nope"}, [])
    assert "unknown ladder kernel" in sent[-1]["error"] and "\n" not in sent[-1]["error"]
    assert not e.select(thread=999) and "thread must be 0..255" in sent[-1]["error"]
    assert not e.select(k=8) and not e.select(mode="x")
    assert (e.view.rev, e.view.meta) == before and (e.tid, e.k, e.mode) == (37, 2, "copies")
    assert e.select(thread=5, k=1) and sent[-1] == {"select": {"thread": 5, "k": 1, "mode": "copies"}}
    assert e.view.rev == before[0] and e.view.error == ""  # no new payload for a thread


def test_static_store_holds_every_rung_within_the_budget():
    e = lv.LadderExplorer(rung="double_buffered", thread=9)
    store = e.static_store()
    assert set(store["states"]) == set(lv.NAMES) and store["initial"] == store["states"]["double_buffered"]
    assert store["payloads"][store["initial"]]["meta"]["start"]["thread"] == 9
    assert store["bytes"] < 600_000
    small = e.static_store(100_000)  # the page's own rung always, then what fits
    assert "double_buffered" in small["states"] and small["bytes"] <= 100_000 + 70_000
    assert len(small["states"]) < len(lv.NAMES)
