"""Scratch: every launch tune would measure at each given shape (kernel 14's configurations, split
counts, tails, +reduce, +pad), timed next to cuBLAS by gpu.benchmark; then, per shape, the fastest
measured launch against the planner's shortlist (what `bench --kernels planned` picks from).
    python benchmarks/proto/all_launches.py OUT.json SHAPE [SHAPE ...]"""
import json
import sys
import time

from explainer import gpu
from explainer.app import tune
from explainer.app.bench import label
from explainer.gpu import recorded
from explainer.gpu.sweep import parse_size
from explainer.model import ladder, planner

out, shapes = sys.argv[1], sys.argv[2:]
dev = gpu.device_info()
sms = dev.sm_count
rows = recorded.recorded_rows(recorded.load_recorded(device=dev.name) or {}, split_k=True)
tuned = recorded.recorded_rows(recorded.load_tuned(dev.name) or {}, split_k=True)
warp = [r.name for r in ladder.RUNGS + ladder.CONFIGS if r.splits_k]
report = None
for s in shapes:
    M, N, K = parse_size(s)
    t0 = time.time()
    labs = tune.launches((M, N, K), sms, rows, warp)
    part = gpu.benchmark(kernels=labs, sizes=[s], tiles=[16], repeats=10, budget_s=0.5)
    report = part if report is None else report.extend(part)
    ms = {label(r): r["median_ms"] for r in part.results if r.get("passed", True)}
    cub = part.cublas[0]["median_ms"]
    listed = [c.label for c in planner.shortlist(M, N, K, rows, sms, tuned)]
    ranked = [c.label for c in planner.plan(M, N, K, rows, sms, tuned, pad="all")]
    best = sorted(ms, key=ms.get)
    lb = min((l for l in listed if l in ms), key=ms.get)
    print(f"{s}: cuBLAS {cub:.4f} | shortlist best {lb} {ms[lb]:.4f} {100 * cub / ms[lb]:.1f}% | "
          f"{len(labs)} launches in {time.time() - t0:.0f} s", flush=True)
    for l in best[:6]:
        print(f"    {l:40s} {ms[l]:.4f} {100 * cub / ms[l]:5.1f}%  plan rank {ranked.index(l) if l in ranked else '-'}"
              f"{'  (listed)' if l in listed else ''}", flush=True)
json.dump(recorded.compact(report.to_dict()), open(out, "w"))
