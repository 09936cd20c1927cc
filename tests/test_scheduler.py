"""The warp scheduler model (explainer/model/scheduler.py) against a brute-force simulation written
here from the rules alone (one object per warp, the rules checked instruction by instruction), its
invariants (one issue per scheduler and cycle, never idle while a warp is ready, loads waited for,
barriers kept), the presets' schedulers from arches.json, and the rule of thumb it illustrates."""

from __future__ import annotations

import json
import math
from importlib import resources

import numpy as np
import pytest

from explainer.model import hardware
from explainer.model import scheduler as sm


# ---- the brute force ---------------------------------------------------------------------------
def brute(T, blocks, wpb, S, L, phases, policy):
    """Each warp a dict walking its own instruction list; each cycle, per scheduler, the warps it
    owns (w % S) asked one by one whether they can issue. Returns (state[w][c], issued[s][c])."""
    prog = []
    for t in range(phases):
        prog += ["ldg A", "ldg B", "sts A", "sts B", "bar"] + ["fma"] * T + ["bar"]
    prog += ["stg C"]
    W = blocks * wpb
    warps = [{"pc": 0, "a": None, "b": None, "bar": False} for _ in range(W)]
    last = {s: None for s in range(S)}
    states, issued = [[] for _ in range(W)], [[] for _ in range(S)]
    cycle = 0
    while any(w["pc"] < len(prog) for w in warps):
        def can(w):
            x = warps[w]
            if x["pc"] >= len(prog) or x["bar"]:
                return False
            op = prog[x["pc"]]
            if op == "sts A":
                return cycle >= x["a"]
            if op == "sts B":
                return cycle >= x["b"]
            return True

        pick = {}
        for s in range(S):
            mine = [w for w in range(W) if w % S == s]
            ok = [w for w in mine if can(w)]
            if not ok:
                pick[s] = None
            elif policy == "oldest":
                pick[s] = min(ok)
            else:  # the first ready warp after the one issued last, wrapping around
                start = 0 if last[s] is None else mine.index(last[s]) + 1
                order = mine[start:] + mine[:start]
                pick[s] = next(w for w in order if w in ok)
                last[s] = pick[s]
            issued[s].append(-1 if pick[s] is None else pick[s])
        chosen = {w for w in pick.values() if w is not None}
        for w in range(W):
            x = warps[w]
            if w in chosen:
                states[w].append("issuing")
            elif x["pc"] >= len(prog):
                states[w].append("done")
            elif x["bar"]:
                states[w].append("barrier")
            elif can(w):
                states[w].append("ready")
            else:
                states[w].append("stalled")
        for w in sorted(chosen):
            x = warps[w]
            op = prog[x["pc"]]
            if op == "ldg A":
                x["a"] = cycle + L
            elif op == "ldg B":
                x["b"] = cycle + L
            elif op == "bar":
                x["bar"] = True
            x["pc"] += 1
        for b in range(blocks):
            group = [warps[w] for w in range(b * wpb, (b + 1) * wpb)]
            if all(g["bar"] for g in group):
                for g in group:
                    g["bar"] = False
        cycle += 1
    return states, issued


NAMES = {"issuing": sm.ISSUING, "ready": sm.READY, "stalled": sm.STALLED, "barrier": sm.BARRIER, "done": sm.DONE}
CASES = [  # T, blocks, warps per block, schedulers, latency, phases
    (2, 1, 1, 1, 5, 2),
    (3, 2, 3, 2, 7, 2),  # blocks straddle the schedulers
    (4, 3, 2, 4, 11, 3),  # fewer warps per block than schedulers
    (1, 5, 1, 2, 1, 2),  # a one-cycle load
    (5, 2, 5, 4, 23, 2),  # 10 warps on 4 schedulers: two schedulers hold 3, two hold 2
    (8, 4, 8, 4, 40, 2),
]


@pytest.mark.parametrize("policy", sm.POLICIES)
@pytest.mark.parametrize("T,blocks,wpb,S,L,phases", CASES)
def test_the_model_is_the_brute_force(T, blocks, wpb, S, L, phases, policy):
    run = sm.simulate(T, blocks, wpb, S, L, phases, policy)
    states, issued = brute(T, blocks, wpb, S, L, phases, policy)
    want = np.array([[NAMES[x] for x in row] for row in states])
    assert run.state.shape == want.shape
    assert (run.state == want).all(), np.argwhere(run.state != want)[:5]
    assert (run.issued == np.array(issued)).all()
    assert (run.slots == (np.array(issued) >= 0).sum(axis=0)).all()


def test_the_brute_force_can_tell_the_policies_apart():
    a = sm.simulate(4, 3, 2, 2, 9, 2, "oldest")
    _, rr = brute(4, 3, 2, 2, 9, 2, "round_robin")
    assert a.issued.shape != np.array(rr).shape or not (a.issued == np.array(rr)).all()


@pytest.mark.parametrize("policy", sm.POLICIES)
@pytest.mark.parametrize("T,blocks,wpb,S,L,phases", CASES)
def test_invariants(T, blocks, wpb, S, L, phases, policy):
    run = sm.simulate(T, blocks, wpb, S, L, phases, policy)
    prog = sm.program(T, phases)
    W = blocks * wpb
    issuing = run.state == sm.ISSUING
    for s in range(S):
        mine = [w for w in range(W) if w % S == s]
        assert (issuing[mine].sum(axis=0) <= 1).all()  # one instruction per scheduler and cycle
        idle = run.issued[s] < 0
        assert not (run.state[mine][:, idle] == sm.READY).any()  # never idle while a warp is ready
        for c in np.flatnonzero(~idle):
            assert run.issued[s, c] in mine and run.state[run.issued[s, c], c] == sm.ISSUING
    assert (issuing.sum(axis=1) == len(prog)).all()  # every warp issues its whole program
    issue_cycles = [np.flatnonzero(issuing[w]) for w in range(W)]
    for w in range(W):
        for i, (kind, t, k) in enumerate(prog):
            if kind in (sm.STS_A, sm.STS_B):  # the load it needs issued at least L cycles before
                assert issue_cycles[w][i] - issue_cycles[w][i - 2] >= L
    for i, (kind, t, k) in enumerate(prog):
        if kind == sm.BAR:  # nobody passes a barrier before the whole block has reached it
            for b in range(blocks):
                ws = range(b * wpb, (b + 1) * wpb)
                assert min(issue_cycles[w][i + 1] for w in ws) > max(issue_cycles[w][i] for w in ws)
    assert issuing[:, -1].any() and (run.state[:, -1] != sm.DONE).any()  # the run ends with the last issue


# ---- presets and residency -----------------------------------------------------------------------
def test_schedulers_per_sm_in_the_presets():
    raw = json.loads(resources.files("explainer").joinpath("data/arches.json").read_text())
    want = {"fermi": 2, "turing": 4, "ampere": 4, "hopper": 4}  # the architecture whitepapers
    for name, a in hardware.arches().items():
        assert a["schedulers_per_sm"] == want[name] == raw[name]["schedulers_per_sm"]
        assert a["max_warps_per_sm"] % a["schedulers_per_sm"] == 0
    assert "whitepaper" in raw["_about"]


@pytest.mark.parametrize("arch", list(hardware.arches()))
@pytest.mark.parametrize("T", [8, 16, 32])
def test_resident_warps_come_from_the_occupancy_model(arch, T):
    run, occ, lat = sm.tile_run(arch, T, latency=50, phases=1)
    o = hardware.tile_occupancy(arch, T)
    assert (run.blocks, run.warps_per_block, run.warps) == (o.blocks_per_sm, o.warps_per_block, o.active_warps)
    assert run.schedulers == hardware.arch(arch)["schedulers_per_sm"] and run.latency == 50
    assert sum(len(run.warps_of(s)) for s in range(run.schedulers)) == run.warps


def test_the_latency_is_the_recorded_measurement_or_labelled_assumed(monkeypatch):
    from explainer.model import corrections

    recs = corrections.latency_records()
    got = sm.latency_choice("global_dram")
    if recs:
        assert got["measured"] and got["cycles"] == round(recs[0]["cycles_per_load"]["global_dram"])
        assert recs[0]["device"]["name"] in got["label"] and recs[0]["source"] in got["label"]
    monkeypatch.setattr(corrections, "latency_records", lambda: [])
    none = sm.latency_choice("global_l2_hit")
    assert not none["measured"] and none["cycles"] == sm.ASSUMED_LATENCY and "assumed" in none["label"]


@pytest.mark.parametrize("call,needle", [
    (lambda: sm.simulate(0, 1, 1, 1, 5), "T must be"),
    (lambda: sm.simulate(4, 1, 1, 1, 0), "latency must be"),
    (lambda: sm.simulate(4, 1, 1, 1, 5, policy="random"), "policy must be one of"),
    (lambda: sm.simulate(64, 1, 1, 1, 5), "at most"),
    (lambda: sm.tile_run("pascal", 16), "unknown architecture"),
    (lambda: sm.tile_run("fermi", 16, regs=128), "registers per thread"),
    (lambda: sm.latency_choice("shared"), "latency kind"),
])
def test_bad_input_is_one_line(call, needle):
    with pytest.raises(sm.SchedulerError, match=needle) as e:
        call()
    assert "\n" not in str(e.value)


# ---- what it illustrates -------------------------------------------------------------------------
def test_the_rule_of_thumb():
    # warps of one warp per block (no barrier couples them) on one scheduler: with the rule's
    # number of warps (plus one: the wait is L after the warp's own first load) the scheduler is
    # busy from cycle L until the first warp finishes; with half as many it is idle about half the time.
    for T, L in ((8, 100), (16, 287), (32, 673)):
        need = sm.warps_needed(L, T)
        assert need == math.ceil(L / (T + 6))
        full = sm.simulate(T, need + 1, 1, 1, L, phases=4)
        assert full.steady() > 0.97, (T, L, full.steady())
        half = sm.simulate(T, max(1, need // 2), 1, 1, L, phases=4)
        assert half.steady() < 0.65, (T, L, half.steady())


def test_more_resident_warps_fewer_idle_cycles():
    # page 06's lever: more registers per thread -> fewer resident warps -> more idle cycles
    seen = []
    for regs in (255, 128, 64, None):
        run, occ, _ = sm.tile_run("hopper", 16, regs, latency=287, phases=3)
        seen.append((occ.active_warps, run.steady(), run.idle_cycles(0) / run.cycles))
    assert [w for w, _, _ in seen] == sorted(w for w, _, _ in seen) and seen[0][0] < seen[-1][0]
    assert all(a[1] < b[1] for a, b in zip(seen, seen[1:]) if a[0] < b[0])
    assert seen[-1][1] > 0.95 and seen[0][1] < 0.3


def test_the_first_load_is_idle_whatever_the_warps():
    # before cycle L only the loads can issue: 2 per warp of the scheduler
    for blocks, wpb, S, L in ((1, 4, 4, 50), (8, 8, 4, 50), (3, 2, 2, 9)):
        run = sm.simulate(4, blocks, wpb, S, L, phases=1)
        for s in range(S):
            assert run.idle_cycles(s, 0, L) == max(0, L - 2 * len(run.warps_of(s)))


def test_running_utilisation_and_summary():
    run = sm.simulate(4, 2, 4, 4, 20, 2)
    r = run.running(0)
    assert r[-1] == pytest.approx(run.utilisation(0))
    assert r[9] == pytest.approx((run.issued[0, :10] >= 0).mean())
    s = sm.summary(run)
    assert s["issued_0"] + s["idle_0"] == run.cycles and s["warps_per_scheduler"] == 2
