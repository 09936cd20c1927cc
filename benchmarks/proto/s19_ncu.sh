#!/bin/bash
# Session 19: ncu of one launch at several shapes (odd, even, aligned rows), key metrics side by side.
#   LAUNCH=warptile_64x64_bk16 bash benchmarks/proto/s19_ncu.sh SHAPE ...
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH PYTHONUNBUFFERED=1
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu | head -1)
for s in "$@"; do
  echo "=== $LAUNCH $s"
  $NCU --launch-skip ${SKIP:-2} --launch-count 1 --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
       --section InstructionStats --section LaunchStats --section Occupancy --section MemoryWorkloadAnalysis \
       --metrics smsp__inst_executed_op_global_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__average_warp_latency_issue_stalled_lg_throttle.ratio,smsp__average_warp_latency_issue_stalled_mio_throttle.ratio,smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_wait.ratio,smsp__average_warp_latency_issue_stalled_math_pipe_throttle.ratio,smsp__average_warp_latency_issue_stalled_not_selected.ratio,smsp__average_warp_latency_issue_stalled_selected.ratio,smsp__average_warp_latency_issue_stalled_dispatch_stall.ratio,smsp__average_warp_latency_issue_stalled_no_instruction.ratio,smsp__average_warp_latency_issue_stalled_drain.ratio,smsp__average_warp_latency_issue_stalled_membar.ratio,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum,smsp__inst_executed.sum,sm__cycles_elapsed.avg \
       python3 benchmarks/profile_one.py $LAUNCH $s 2>&1 | grep -E "Duration|Registers Per|Achieved Occupancy|Warp Cycles Per Issued|Issued Warp|No Eligible|Eligible Warps|Executed Ipc A|Compute \(SM\) Th|Memory Thr|L1/TEX Hit|L2 Hit|smsp__|l1tex__|sm__cycles|Stall|stall|Block Limit|Theoretical Occ|Dynamic Shared|Static Shared" | sed 's/  */ /g'
done
