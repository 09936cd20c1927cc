"""What the warp scheduler stepper (explainer/views/scheduler.py) sends to the browser is the model's
run: scheduler 0's rows, the warp and instruction each cycle issued, the issue slots, the running
utilisation, and the binned overview recounted here cycle by cycle; the presets' warps are the
occupancy model's; a static page stores every preset; bad input keeps the last good state."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from explainer.model import hardware
from explainer.model import scheduler as sm
from explainer.views import scheduler as sv

KEYS = [f"{p}|{lk}" for lk in sv.LATENCIES for p in sv.PRESETS]


@pytest.mark.parametrize("key", KEYS)
def test_payload_is_the_model(key):
    meta, A = sv.scheduler_data(key)
    preset, _, lk = key.partition("|")
    T, regs = sv.PRESETS[preset]
    run, occ, lat = sm.tile_run(sv.ARCH, T, regs, phases=sv.PHASES, latency_kind=lk)
    rows = [w for w in range(run.warps) if w % run.schedulers == 0]
    assert meta["row_warps"] == rows and meta["cycles"] == run.cycles and meta["latency"] == lat["cycles"]
    assert meta["rows"] == [f"warp {w} (block {w // occ.warps_per_block})" for w in rows]
    assert (A["state"] == run.state[rows]).all()
    assert (A["issued_all"] == run.issued).all() and (A["slots"] == (run.issued >= 0).sum(axis=0)).all()
    prog = sm.program(T, sv.PHASES)
    for c in range(run.cycles):  # the issuing row and its instruction, from the warps' own program counters
        w = run.issued[0, c]
        if w < 0:
            assert A["issued_row"][c] == -1 and A["issued_kind"][c] == -1
            continue
        assert rows[A["issued_row"][c]] == w and A["state"][A["issued_row"][c], c] == sm.ISSUING
        done_before = int((run.state[w, :c] == sm.ISSUING).sum())  # instructions it issued before c
        kind, phase, k = prog[done_before]
        assert (A["issued_kind"][c], A["issued_phase"][c], A["issued_k"][c]) == (kind, phase, k)
    busy0 = run.issued[0] >= 0
    assert np.allclose(A["running"], 100 * np.cumsum(busy0) / np.arange(1, run.cycles + 1), atol=1e-3)
    assert np.allclose(A["running_sm"], 100 * np.cumsum(run.issued >= 0, axis=1).sum(axis=0)
                       / (run.schedulers * np.arange(1, run.cycles + 1)), atol=1e-3)
    # the overview, bin by bin: each row's most frequent state (ties: the lower state number)
    b = meta["bin"]
    assert meta["bins"] == len(range(0, run.cycles, b)) <= sv.MAX_BINS
    for j, start in enumerate(range(0, run.cycles, b)):
        assert A["bin_start"][j] == start and (A["bin_of"][start:start + b] == j).all()
        cycles = range(start, start + b)
        for r, w in enumerate(rows):
            n = Counter(int(run.state[w, c]) if c < run.cycles else sm.DONE for c in cycles)
            most = max(n.values())
            assert A["overview"][r, j] == min(s for s, v in n.items() if v == most)
        share = busy0[start:start + b].sum() / b
        want = 0 if share == 0 else 4 if share == 1 else 1 if share < 1 / 3 else 2 if share <= 2 / 3 else 3
        assert A["busy"][0, j] == want
    assert len(meta["palette"]) == len(meta["states"]) == len(sm.STATES)
    assert lat["label"] in meta["caption"]


def test_presets_take_their_warps_from_the_occupancy_model():
    meta, _ = sv.scheduler_data()
    S = hardware.arch(sv.ARCH)["schedulers_per_sm"]
    for key, label in meta["presets"]:
        T, regs = sv.PRESETS[key]
        o = hardware.tile_occupancy(sv.ARCH, T, regs)
        assert f"{o.active_warps} warps ({o.occupancy:.0%})" in label
        assert f"{len(range(0, o.active_warps, S))} per scheduler" in label
    per = [len(range(0, hardware.tile_occupancy(sv.ARCH, *sv.PRESETS[k]).active_warps, S)) for k in sv.PRESETS]
    assert min(per) <= 2 and max(per) >= 16  # few warps and many


def test_the_rule_and_result_lines_are_the_models():
    meta, A = sv.scheduler_data(f"T16|{sv.LATENCIES[0]}")
    s = meta["summary"]
    L, n = meta["latency"], 16 + 6
    assert f"L × 1 / n = {L} / {n} → {-(-L // n)} warps" in meta["rule"]
    issued = int((A["issued_row"] >= 0).sum())
    assert f"issued in {issued:,} of {meta['cycles']:,} cycles" in meta["result"] and s["issued_0"] == issued


def test_the_explorer_switches_and_keeps_the_last_good_state():
    ex = sv.SchedulerExplorer()
    assert ex.view.meta["key"] == f"{sv.OPENING}|{sv.LATENCIES[0]}"
    rev = ex.view.rev
    ex._on_msg(ex.view, {"cmd": "kernel", "name": f"T16|{sv.LATENCIES[1]}"}, [])
    assert ex.view.rev == rev + 1 and ex.view.meta["key"] == f"T16|{sv.LATENCIES[1]}" and ex.view.error == ""
    meta, A = ex.data()
    assert (A["state"] == sv.scheduler_data(f"T16|{sv.LATENCIES[1]}")[1]["state"]).all()
    assert not ex.select("T99")
    assert "unknown preset" in ex.view.error and ex.view.meta["key"] == f"T16|{sv.LATENCIES[1]}" and ex.view.rev == rev + 1
    assert ex.select(latency=sv.LATENCIES[0]) and ex.view.error == "" and ex.view.meta["key"] == f"T16|{sv.LATENCIES[0]}"


def test_static_store_holds_every_preset():
    ex = sv.SchedulerExplorer()
    store = ex.static_store()
    assert set(store["states"]) == set(KEYS)
    assert store["payloads"][store["initial"]]["meta"]["key"] == ex.key
    assert store["bytes"] <= 2 << 20
