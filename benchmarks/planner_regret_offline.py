"""The planner's choice judged against what the targets runs measured (no GPU): each shape of
benchmarks/issue13_targets.py's saved reports (``--out`` files) lists the times of the planner's
shortlist at that shape; the planner run here (on this checkout's recorded and tuned tables)
picks a launch, and where that launch was measured there its time is compared with the fastest.

    python benchmarks/planner_regret_offline.py benchmarks/results/issue13_targets_h100_2026-11-27_s34b.json ...

Prints per shape the choice, its measured time and its ratio to the fastest measured launch
(``-`` where the choice was not on the measured list), then the geometric mean ratio and the
count of choices measured. Same device as the reports: the tables of the device they name.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explainer.gpu import recorded  # noqa: E402
from explainer.tuning import planner  # noqa: E402


def measured_of(row: dict) -> dict[str, float]:
    """{label: ms} of the launches a targets row measured (those that ran): its ``measured``, the
    data bench's plans keep (empty in rows saved before they kept it)."""
    return {k: float(v) for k, v in (row.get("measured") or {}).items() if v}


def main(files: list[str]) -> int:
    data = recorded.load_recorded()
    sms = int(data["device"]["sm_count"])
    tuned = recorded.load_tuned(device=data["device"]["name"])
    rows = recorded.recorded_rows(data, split_k=True)
    tuned_rows = recorded.recorded_rows(tuned, split_k=True) if tuned else ()
    ratios, seen = [], set()
    for f in files:
        for r in json.loads(Path(f).read_text()):
            times = measured_of(r)
            if r["shape"] in seen or not times:  # (rows saved before plans kept their times as data)
                continue
            seen.add(r["shape"])
            choice = planner.plan(r["M"], r["N"], r["K"], rows, sms, tuned_rows)[0].label
            t = times.get(choice)
            best = min(times.values())
            if t:
                ratios.append(t / best)
            print(f"{r['shape']:>18}  {choice:36} {t if t else '-':>8}  {t / best if t else '-':>5.4}")
    if ratios:
        print(f"choices measured: {len(ratios)} of {len(seen)}; geometric mean of choice / fastest: "
              f"{math.exp(sum(map(math.log, ratios)) / len(ratios)):.3f}; worst {max(ratios):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
