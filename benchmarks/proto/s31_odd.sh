#!/bin/bash
# Session 31: what the odd rows cost each configuration at one mid-size shape (aligned / even / odd rows,
# the same run), then ncu of LAUNCH (default warptile_128x64_bk16) at the aligned and the odd shape.
source benchmarks/proto/warm_k14.sh >/dev/null 2>&1; rm -f $OUT/ccnew_*
KS="warptile_64x64_t64 warptile_128x64_bk16 warptile_64x64_bk16 warptile_64x128 warptile_128x128 warptile_32x128 warptile_48x128 warptile_64x64_bk32 warptile_128x48_t64 warptile_96x128"
python3 -m explainer bench --kernels $KS --sizes ${SIZES:-2156x920x1720 2158x920x1718 2157x919x1719} --repeats 20 2>&1 | grep -v "^#" | tee $OUT/odd_bench.txt
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
for s in 2156x920x1720 2157x919x1719; do
  echo "=== ${LAUNCH:-warptile_128x64_bk16} $s"
  $NCU --clock-control none --launch-skip 2 --launch-count 1 --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy \
    --metrics smsp__inst_executed.sum,smsp__inst_executed_op_global_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,sm__cycles_elapsed.avg,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__average_warp_latency_issue_stalled_lg_throttle.ratio,smsp__average_warp_latency_issue_stalled_mio_throttle.ratio,smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_wait.ratio,smsp__average_warp_latency_issue_stalled_not_selected.ratio,smsp__average_warp_latency_issue_stalled_selected.ratio,smsp__average_warp_latency_issue_stalled_dispatch_stall.ratio,smsp__average_warp_latency_issue_stalled_no_instruction.ratio,smsp__average_warp_latency_issue_stalled_math_pipe_throttle.ratio \
    python3 benchmarks/profile_one.py ${LAUNCH:-warptile_128x64_bk16} $s 2>&1 | grep -E "Duration|Registers Per|Achieved Occupancy|Warp Cycles Per Issued|Issue Slots Busy|No Eligible|Eligible Warps|Compute \(SM\) Th|Memory Thr|smsp__|l1tex__|sm__cycles|Theoretical Occ|Block Limit Reg" | sed 's/  */ /g' | tee -a $OUT/odd_ncu.txt
done
