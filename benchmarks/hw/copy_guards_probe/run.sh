#!/bin/bash
# Device: build probe.cu for sm_90 (ptxas -v kept), its SASS, and Nsight Compute's shared-load
# instruction and register counts of its five launches; then ptxas -v of the three tensor-corpus
# programs whose registers the H100 reported as 16 (is that ptxas's count or the allocation?).
cd "$(dirname "$0")"
nvcc --version | tail -2 > "$OUT/nvcc.txt"
nvcc -O3 -arch=sm_90 -lineinfo -Xptxas -v -o "$OUT/probe" probe.cu > "$OUT/probe.ptxas.txt" 2>&1
cuobjdump -sass "$OUT/probe" > "$OUT/probe.sass.txt"
"$OUT/probe" 8 7 > "$OUT/probe.stdout.txt"
ncu --clock-control none --csv --print-units base \
  --metrics smsp__inst_executed_op_shared_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,smsp__inst_executed_op_ldgsts.sum,launch__registers_per_thread \
  "$OUT/probe" 8 7 > "$OUT/ncu.csv" 2> "$OUT/ncu.log"
for p in bf16_elementwise half2_fp8 lowprec_conversions; do
  nvcc -O3 -arch=sm_90 -lineinfo -Xptxas -v -o "$OUT/$p" ../../../tests/data/cuda/tensor/$p.cu > "$OUT/$p.ptxas.txt" 2>&1
  rm -f "$OUT/$p"
done
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$OUT/gpu.txt"
rm -f "$OUT/probe"
