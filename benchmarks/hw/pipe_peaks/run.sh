#!/bin/bash
# Device: the per-SM peak issue rate of each execution pipe as the profiler reports it
# (`.sum.peak_sustained` of sm__inst_executed_pipe_*: warp instructions per cycle per SM), for the
# integer pipe the time model lacks (issue 32: "integer ... throughput per CC"). Any kernel
# serves: the peaks are the SM's, not the launch's; the GEMM driver of gemm_stalls/ is used.
cd "$(dirname "$0")"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > "$OUT/gpu.txt"
ncu --version | tail -1 >> "$OUT/gpu.txt"
nvcc -O3 -arch=sm_90 -DBM=64 -DBN=64 -DBK=16 -DTM=4 -DTN=4 -o /tmp/g ../gemm_stalls/driver.cu
M=""
for p in alu fma fmaheavy fmalite fp64 lsu xu adu cbu uniform tensor fp16; do
  M="$M,sm__inst_executed_pipe_$p.sum.peak_sustained,sm__inst_executed_pipe_$p.sum"
done
M="${M#,},sm__inst_executed.sum.peak_sustained,smsp__inst_executed.sum.peak_sustained"
ncu --launch-skip 1 --launch-count 1 --csv --print-units base --metrics "$M" /tmp/g > "$OUT/peaks.csv" 2> "$OUT/peaks.log"
ncu --query-metrics --chip gh100 > "$OUT/query_metrics_gh100.txt" 2>&1 || true
grep -i "pipe_alu\|pipe_fma\|pipe_xu" "$OUT/query_metrics_gh100.txt" | head -40 > "$OUT/pipe_metric_descriptions.txt"
rm -f "$OUT/query_metrics_gh100.txt"
