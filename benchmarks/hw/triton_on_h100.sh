#!/usr/bin/env bash
# Device side of issue 33's Triton point (one `run` call, .hw_triton carried; made here by
# triton_prepare.py): the Triton kernels' cubins launched plainly (outputs, registers) and under
# Nsight Compute (the ten counters, the tensor pipe, the time; --clock-control none as the
# HeCBench times). Everything comes back as $OUT/triton_run.tgz; compare: triton_compare.py.
set -u
cd "$(dirname "$0")/../.."
R=/tmp/triton_run
rm -rf "$R"; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > "$R/gpu.txt"
ncu --version | tail -1 >> "$R/gpu.txt"
python3 benchmarks/hw/ptx_corpus_on_h100.py .hw_triton "$R" > "$R/plain.log" 2>&1
echo "plain rc=$? $(grep -c ': ok' "$R/plain.log") ok"; tail -n 3 "$R/plain.log"
. benchmarks/hw/ncu_counters.sh  # M: the ten counters' metrics and the time
M=$M,smsp__inst_executed_pipe_tensor.sum,smsp__inst_executed_op_ldgsts.sum,smsp__inst_executed_op_ldsm.sum
mkdir -p /tmp/triton_out
ncu --clock-control none --print-units base --csv --metrics "$M" --log-file "$R/ncu.csv" \
  python3 benchmarks/hw/ptx_corpus_on_h100.py .hw_triton /tmp/triton_out > "$R/ncu_run.log" 2>&1
echo "ncu rc=$? rows=$(grep -c gpu__time_duration "$R/ncu.csv")"
tar czf "$OUT/triton_run.tgz" -C /tmp triton_run
