#!/bin/bash
# Session 34: every launch tune would measure at the given shapes (all_launches.py), timed builds warmed
# from the carried caches: timeout 580 bash benchmarks/proto/s34_launches.sh SHAPE... > $OUT/log.txt 2>&1
source benchmarks/proto/device_env.sh
precompile
python3 benchmarks/proto/all_launches.py $OUT/launches.json "$@" 2>&1 | grep -v Warning
echo "done $(( $(date +%s) - t0 )) s"
