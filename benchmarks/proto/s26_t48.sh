#!/bin/bash
# Session 26: a new configuration of kernel 14 (CFG, default warptile_128x48_t64, added to
# ladder.CONFIGS by benchmarks/proto/k14_128x48_t64_s26.patch): its GPU ladder and edge tests (trace
# equal to the model, products against float64 with C poisoned), then its launches against the
# others over ROWS (src_cmp.py, 3 interleaved rounds, every launch checked): s24_swz.sh with no tree.
CFG=${CFG:-warptile_128x48_t64}
CFGS="$CFG" SEL="${CFG#warptile_}" TREES="" ROWS=${ROWS:-benchmarks/proto/s26_t48_rows.txt} TAIL=${TAIL:-20} \
  bash benchmarks/proto/s24_swz.sh
