"""benchmarks/planner_regret_offline.py: the planner's choice judged, without a GPU, against the
launches a targets run measured at each shape (the reasons' lists of the shortlist's times)."""

from __future__ import annotations

import importlib.util
import json
import math
import subprocess
import sys
from pathlib import Path

from explainer.gpu import recorded
from explainer.model import planner

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "planner_regret_offline.py"
spec = importlib.util.spec_from_file_location("planner_regret_offline", SCRIPT)
reg = importlib.util.module_from_spec(spec)
spec.loader.exec_module(reg)


def test_the_measured_list_is_read_from_the_reason():
    why = ("the fastest measured here, 0.0709 ms, of the planner's shortlist of 4 (its choice "
           "warptile_64x64_t64@3+reduce; warptile_32x128 0.0742, warptile_64x128@3x27+pad 0.1268, "
           "warptile_48x128@2 failed ms); 64×64 tiles → ...")
    got = reg.measured_list(why, "warptile_64x64_t64@3+reduce", 0.0709)
    assert got == {"warptile_64x64_t64@3+reduce": 0.0709, "warptile_32x128": 0.0742,
                   "warptile_64x128@3x27+pad": 0.1268}  # a failed launch has no time
    assert reg.measured_list("measured at 1x1x1", "warptile", 1.0) == {"warptile": 1.0}


def test_the_measured_times_come_from_the_row_where_bench_kept_them():
    """Rows of bench's plans since session 31 carry ``measured`` (the shortlist's times, None where
    a launch failed); older rows only the reason."""
    why = "the fastest measured here, 0.0709 ms, of the planner's shortlist of 2 (its choice a; b 0.0742 ms); ..."
    old = {"label": "a", "ms": 0.0709, "why": why}
    assert reg.measured_of(old) == {"a": 0.0709, "b": 0.0742}
    new = {**old, "measured": {"a": 0.0709, "b": 0.0750, "c": None}}
    assert reg.measured_of(new) == {"a": 0.0709, "b": 0.0750}


def _row(M, N, K, times):
    label, ms = min(times.items(), key=lambda kv: kv[1])
    others = ", ".join(f"{k} {v:.4f}" for k, v in times.items() if k != label)
    return {"shape": f"{M}x{N}x{K}", "M": M, "N": N, "K": K, "label": label, "ms": ms,
            "why": f"the fastest measured here, {ms:.4f} ms, of the planner's shortlist of {len(times)} "
                   f"(its choice {label}; {others} ms); ..."}


def test_the_choice_is_judged_by_its_time_against_the_fastest(tmp_path):
    """Two shapes: at one the planner's choice was measured at twice the fastest's time, at the
    other it is the fastest; a third whose choice no run measured counts as not measured."""
    data = recorded.load_recorded()
    sms = int(data["device"]["sm_count"])
    tuned = recorded.load_tuned(device=data["device"]["name"])
    rows, tuned_rows = recorded.recorded_rows(data, split_k=True), recorded.recorded_rows(tuned, split_k=True)
    pick = {s: planner.plan(*s, rows, sms, tuned_rows)[0].label for s in ((2048, 2048, 2048), (1023, 1023, 1023))}
    report = [_row(2048, 2048, 2048, {pick[(2048, 2048, 2048)]: 0.2, "warptile_zzz": 0.1}),
              _row(1023, 1023, 1023, {pick[(1023, 1023, 1023)]: 0.05, "warptile_zzz": 0.06}),
              _row(4096, 4096, 4096, {"warptile_zzz": 2.9})]
    f = tmp_path / "targets.json"
    f.write_text(json.dumps(report))
    out = subprocess.run([sys.executable, str(SCRIPT), str(f)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    last = out.stdout.strip().splitlines()[-1]
    assert last.startswith("choices measured: 2 of 3;")
    assert f"geometric mean of choice / fastest: {math.sqrt(2.0 * 1.0):.3f}; worst 2.00" in last
