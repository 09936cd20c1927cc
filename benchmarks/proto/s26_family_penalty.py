"""Session 26 (CPU): from this device's tuning table, per configuration of kernel 14, the time per
unit of work of each guarded family (aligned: M, N, K = x - 4; even: x - 2; odd: x - 1) over the
whole shape x's, at the same launch, median over the table's grid (M, N in 128..4096, K in 256..16384).
    python benchmarks/proto/s26_family_penalty.py [DEVICE]
"""
import collections
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from explainer.gpu import recorded  # noqa: E402

table = recorded.load_tuned(sys.argv[1] if len(sys.argv) > 1 else "NVIDIA H100 80GB HBM3")
rows = [r for r in table["results"] if r.get("passed", True)]
idx = {(r["kernel"], r["M"], r["N"], r["K"]): r["median_ms"] for r in rows}
WHOLE = {128, 256, 512, 1024, 2048, 4096}
out = collections.defaultdict(lambda: collections.defaultdict(list))
for (k, M, N, K), ms in idx.items():
    if M not in WHOLE or N not in WHOLE or K not in (256, 1024, 4096, 8192, 16384):
        continue
    for fam, d in (("aligned", 4), ("even", 2), ("odd", 1)):
        o = idx.get((k, M - d, N - d, K - d))
        if o:
            out[k.split("@")[0].split("+")[0]][fam].append(o / ms * (M * N * K) / ((M - d) * (N - d) * (K - d)))
print(f"# {table['device']['name']}, table of {str(table.get('date', '?'))[:10]}: time per unit of work over the whole shape's")
for k in sorted(out):
    print(k.ljust(22) + "".join(f"  {f} {statistics.median(v):.3f} (n={len(v)})" if (v := out[k][f]) else f"  {f} -"
                                 for f in ("aligned", "even", "odd")))
