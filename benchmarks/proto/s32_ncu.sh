#!/bin/bash
# Session 32: ncu of LAUNCH at each of SHAPES (short K: aligned, even, odd rows), the counters of s31_odd.sh.
source benchmarks/proto/warm_k14.sh >/dev/null 2>&1; rm -f $OUT/ccnew_*
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
for s in ${SHAPES:-2490x2976x64 2490x2974x64 2490x2975x64}; do
  echo "=== ${LAUNCH:-warptile_64x64_bk16} $s"
  $NCU --clock-control none --launch-skip 2 --launch-count 1 --section SpeedOfLight --section WarpStateStats --section Occupancy \
    --metrics smsp__inst_executed.sum,smsp__inst_executed_op_global_ld.sum,smsp__inst_executed_op_global_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,sm__cycles_elapsed.avg,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__average_warp_latency_issue_stalled_lg_throttle.ratio,smsp__average_warp_latency_issue_stalled_mio_throttle.ratio,smsp__average_warp_latency_issue_stalled_drain.ratio,smsp__average_warp_latency_issue_stalled_membar.ratio,lts__t_sectors_op_write.sum,dram__bytes_write.sum,dram__bytes_read.sum \
    python3 benchmarks/profile_one.py ${LAUNCH:-warptile_64x64_bk16} $s 2>&1 | grep -E "Duration|Registers Per|Achieved Occupancy|Warp Cycles Per Issued|Compute \(SM\) Th|Memory Thr|DRAM Th|smsp__|l1tex__|lts__|dram__|sm__cycles|Theoretical Occ" | sed 's/  */ /g'
done
