#!/bin/bash
# Session 31: the multistage prototype (benchmarks/proto/ms_gemm.cu) against cuBLAS and kernel 14 (carry .whl .cc).
source benchmarks/proto/warm_k14.sh
python3 benchmarks/proto/ms_cmp.py ${SHAPES:-benchmarks/proto/ms_shapes.txt} ${ROUNDS:-2} 2>&1 | tee $OUT/ms_cmp.txt
echo "done $(( $(date +%s) - t0 )) s"
