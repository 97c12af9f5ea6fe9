#!/bin/bash
# Device: why do the example GEMM's 16-row tiles take 1.5x what perfcalc predicts while its
# 64 x 64 tiles take 0.8x (issue 34)? Nsight Compute's warp-state statistics (the stall reasons
# per issued instruction), issue and pipe utilisation of the second launch of five
# configurations, at the card's clocks.
cd "$(dirname "$0")"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > "$OUT/gpu.txt"
ncu --version | tail -1 >> "$OUT/gpu.txt"
for cfg in "16 64 16 4 2" "16 64 8 4 2" "64 64 16 4 4" "32 128 16 4 2" "64 64 8 4 2"; do
  set -- $cfg
  name="bm$1_bn$2_bk$3_tm$4_tn$5"
  nvcc -O3 -arch=sm_90 -lineinfo -DBM=$1 -DBN=$2 -DBK=$3 -DTM=$4 -DTN=$5 -o /tmp/$name driver.cu
  ncu --clock-control none --launch-skip 1 --launch-count 1 --csv --page details \
    --section WarpStateStats --section SchedulerStats --section LaunchStats --section Occupancy \
    --section SpeedOfLight --section MemoryWorkloadAnalysis \
    --metrics gpu__time_duration.sum,smsp__inst_executed.sum,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum \
    /tmp/$name > "$OUT/$name.csv" 2> "$OUT/$name.log"
  cuobjdump -sass /tmp/$name | grep -cE "LDS|STS|LDG|FFMA|BAR" > "$OUT/$name.sass_counts.txt"
done
