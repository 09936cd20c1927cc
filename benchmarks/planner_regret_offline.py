"""The planner's choice judged against what the targets runs measured (no GPU): each shape of
benchmarks/issue13_targets.py's saved reports (``--out`` files) lists the times of the planner's
shortlist at that shape; the planner run here (on this checkout's recorded and tuned tables)
picks a launch, and where that launch was measured there its time is compared with the fastest.

    python benchmarks/planner_regret_offline.py benchmarks/results/issue13_targets_h100_2026-11-27_s30a.json ...

Prints per shape the choice, its measured time and its ratio to the fastest measured launch
(``-`` where the choice was not on the measured list), then the geometric mean ratio and the
count of choices measured. Same device as the reports: the tables of the device they name.
"""

from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explainer.gpu import recorded  # noqa: E402
from explainer.model import planner  # noqa: E402


def measured_list(why: str, label: str, ms: float) -> dict[str, float]:
    """{label: ms} of every launch a targets row measured: the fastest and the listed others, read
    from the reason (rows saved before bench's plans kept ``measured``, see :func:`measured_of`)."""
    out = {label: ms}
    m = re.search(r"\(its choice (\S+)(?: ([\d.]+) ms)?(?:; (.*?) ms)?\)", why)
    if m:
        for part in (m.group(3) or "").split(", "):
            bits = part.rsplit(" ", 1)
            if len(bits) == 2 and re.fullmatch(r"[\d.]+", bits[1]):
                out[bits[0]] = float(bits[1])
    return out


def measured_of(row: dict) -> dict[str, float]:
    """{label: ms} of the launches a targets row measured (those that ran): its ``measured``, or in
    rows saved before bench kept it, :func:`measured_list` of its reason."""
    got = {k: float(v) for k, v in (row.get("measured") or {}).items() if v}
    return got or measured_list(row.get("why", ""), row["label"], row["ms"])


def main(files: list[str]) -> int:
    data = recorded.load_recorded()
    sms = int(data["device"]["sm_count"])
    tuned = recorded.load_tuned(device=data["device"]["name"])
    rows = recorded.recorded_rows(data, split_k=True)
    tuned_rows = recorded.recorded_rows(tuned, split_k=True) if tuned else ()
    ratios, seen = [], set()
    for f in files:
        for r in json.loads(Path(f).read_text()):
            if r["shape"] in seen or "its choice" not in r.get("why", ""):
                continue
            seen.add(r["shape"])
            times = measured_of(r)
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
