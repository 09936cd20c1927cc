#!/bin/bash
# Session 26 hypothesis (benchmarks/results/splitk_2026-11-23.md, session 26): kernel 14's guarded
# launches run two bodies (interior, edge) whose K loops are fully unrolled over a phase (28 KB for
# the 48-column configurations); blocks of both on one SM stall on the instruction cache (ncu: 23%
# "no instruction" at 450x288x59034). Two trees test it against kernels/ ("new"), built here from
# benchmarks/proto/k14_icache_s26.patch (measurement defines, not in the shipped kernel):
#   onebody: EXPLAINER_ONE_BODY (every block of a guarded launch runs the edge body);
#   unroll8: EXPLAINER_K_UNROLL=8 (a phase's k-steps unrolled by 8, not all).
# warptile_128x48_t64 (benchmarks/proto/k14_128x48_t64_s26.patch) is added to ladder.CONFIGS first.
# Then src_cmp over ROWS (3 interleaved rounds, every launch checked against float64).
#   bash benchmarks/proto/s26_icache.sh        (carry .whl; about 5-7 minutes on an H100)
python3 - <<'PY'
import pathlib
p = pathlib.Path("explainer/model/ladder.py"); s = p.read_text()
add = [l[1:] for l in pathlib.Path("benchmarks/proto/k14_128x48_t64_s26.patch").read_text().splitlines()
       if l.startswith("+") and not l.startswith("+++")]
anchor = '       "tiles leave columns empty"),\n)\n'
if "warptile_128x48_t64" not in s:
    s = s.replace(anchor, '       "tiles leave columns empty"),\n' + "\n".join(add) + "\n)\n", 1)
    p.write_text(s)
PY
for v in onebody:EXPLAINER_ONE_BODY unroll8:EXPLAINER_K_UNROLL=8; do
  d=benchmarks/proto/trees/${v%%:*}; rm -rf $d; mkdir -p $d; cp kernels/* $d/
  python3 - "$d/14_warptile.cu" "${v#*:}" <<'PY'
import pathlib, sys
f = pathlib.Path(sys.argv[1]); s = f.read_text()
patch = pathlib.Path("benchmarks/proto/k14_icache_s26.patch").read_text()
for hunk in patch.split("\n@@")[1:]:
    lines = hunk.split("\n")[1:]
    old = "\n".join(l[1:] for l in lines if l[:1] in (" ", "-"))
    new = "\n".join(l[1:] for l in lines if l[:1] in (" ", "+"))
    assert s.count(old) == 1, old[:80]
    s = s.replace(old, new)
name, _, val = sys.argv[2].partition("=")
f.write_text(f"#define {name} {val}\n" + s)
PY
done
TREES="benchmarks/proto/trees/onebody benchmarks/proto/trees/unroll8" ROWS=${ROWS:-benchmarks/proto/s26_icache_rows.txt} bash benchmarks/proto/s23_cmp.sh
