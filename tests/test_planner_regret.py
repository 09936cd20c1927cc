"""benchmarks/planner_regret_offline.py: the planner's choice judged, without a GPU, against the
launches a targets run measured at each shape (the shortlist's times bench kept with each plan). The
planner plans on made-up tables (tests/planner_tables.py), not the shipped ones. The tuning
engine's: marked ``check``."""

from __future__ import annotations

import copy
import importlib.util
import json
import math
from pathlib import Path

import pytest
from planner_tables import DATA, ROWS, SMS, cublas, launch, table, table_rows

from explainer.gpu import recorded
from explainer.tuning import planner

pytestmark = pytest.mark.check

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "planner_regret_offline.py"
spec = importlib.util.spec_from_file_location("planner_regret_offline", SCRIPT)
reg = importlib.util.module_from_spec(spec)
spec.loader.exec_module(reg)


def test_the_measured_times_come_from_the_row_where_bench_kept_them():
    """Rows of bench's plans carry ``measured`` (the shortlist's times, None where a launch failed):
    the launches that ran. Rows saved before plans kept their times as data have none (their reason
    is words, not read back)."""
    why = "the fastest measured here, 0.0709 ms, of the planner's shortlist of 2 (its choice a; b 0.0742 ms); ..."
    old = {"label": "a", "ms": 0.0709, "why": why}
    assert reg.measured_of(old) == {}
    new = {**old, "measured": {"a": 0.0709, "b": 0.0750, "c": None}}
    assert reg.measured_of(new) == {"a": 0.0709, "b": 0.0750}


def _row(M, N, K, times):
    label, ms = min(times.items(), key=lambda kv: kv[1])
    return {"shape": f"{M}x{N}x{K}", "M": M, "N": N, "K": K, "label": label, "ms": ms, "measured": dict(times),
            "why": "the fastest measured here, ..."}


def test_the_choice_is_judged_by_its_time_against_the_fastest(tmp_path, monkeypatch, capsys):
    """Two shapes: at one the planner's choice was measured at twice the fastest's time, at the
    other it is the fastest; a third whose choice no run measured counts as not measured, a fourth
    row without its times (saved before plans kept them) not at all. The
    script plans on the device's tables (here the made-up recording and a made-up tuning table
    where warptile_128x128 ran fastest near 2048^3 and warptile_64x64 near 1023^3)."""
    rows = [launch("warptile_128x128", 2044, 2044, 2044, 0.30), launch("warptile_64x64", 2044, 2044, 2044, 0.90),
            launch("warptile_128x128", 1021, 1021, 1021, 0.30), launch("warptile_64x64", 1021, 1021, 1021, 0.06),
            cublas(2044, 2044, 2044, 0.28), cublas(1021, 1021, 1021, 0.05)]
    monkeypatch.setattr(recorded, "load_recorded", lambda path=None, device=None: copy.deepcopy(DATA))
    monkeypatch.setattr(recorded, "load_tuned", lambda device=None, folder=None: table(rows))
    tuned = table_rows(rows)
    pick = {s: planner.plan(*s, ROWS, SMS, tuned)[0] for s in ((2048, 2048, 2048), (1023, 1023, 1023))}
    assert pick[(2048, 2048, 2048)].label == "warptile_128x128" and pick[(1023, 1023, 1023)].label == "warptile_64x64"
    report = [_row(2048, 2048, 2048, {"warptile_128x128": 0.2, "warptile_zzz": 0.1}),
              _row(1023, 1023, 1023, {"warptile_64x64": 0.05, "warptile_zzz": 0.06}),
              _row(4096, 4096, 4096, {"warptile_zzz": 2.9}),
              {**_row(512, 512, 512, {"warptile_64x64": 0.01, "warptile_zzz": 0.02}), "measured": None}]  # an old row
    f = tmp_path / "targets.json"
    f.write_text(json.dumps(report))
    assert reg.main([str(f)]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out[-1].startswith("choices measured: 2 of 3;")
    assert f"geometric mean of choice / fastest: {math.sqrt(2.0 * 1.0):.3f}; worst 2.00" in out[-1]
    assert [line.split()[0] for line in out[:-1]] == ["2048x2048x2048", "1023x1023x1023", "4096x4096x4096"]
    assert out[0].split()[1:] == ["warptile_128x128", "0.2", "2.0"] and out[1].split()[1:] == ["warptile_64x64", "0.05", "1.0"]
    assert out[2].split()[2:] == ["-", "-"]  # its choice not on the list measured there
