#!/bin/bash
# Session 34, one device call (carry .whl, .cc): a new configuration into the tuning table.
#   KERNELS="warptile_64x96_t64" timeout 585 bash benchmarks/proto/s34_tune.sh FAMILIES -- K... > $OUT/log.txt 2>&1
# unpacks the carried caches, compiles the kernels' timed modules, then `tune --new-table --unpadded-only`
# (written as it goes to $OUT/tuned/: a run cut short keeps the shapes it measured); join it locally
# with recorded.merge_tables.
source benchmarks/proto/device_env.sh
echo $KERNELS | tr ' ' '\n' | xargs -P 16 -L 1 python3 benchmarks/proto/precompile.py 2>&1 | tail -1
echo "precompile $(( $(date +%s) - t0 )) s"
FAM=(); while [ "$1" != "--" ]; do FAM+=("$1"); shift; done; shift
timeout ${TUNE_S:-540} python3 -m explainer tune --families "${FAM[@]}" --unpadded-only --new-table --k "$@" --kernels $KERNELS --out $OUT/tuned 2>&1 | grep -v Warning | tail -5
echo "tune rc=$? $(( $(date +%s) - t0 )) s"; ls -la $OUT/tuned
