#!/usr/bin/env bash
# Device side (one `device run` call, with .hw_corpus carried): the corpus kernels under Nsight
# Compute, the same counters as the C-engine check (run_on_h100.sh) plus divergent branches and
# registers, and a second plain run for the outputs. compare: ptx_corpus_compare.py here.
set -u
cd "$(dirname "$0")/../.."
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > "$OUT/gpu.txt"
ncu --version | tail -1 >> "$OUT/gpu.txt"
python3 benchmarks/hw/ptx_corpus_on_h100.py .hw_corpus "$OUT" > "$OUT/plain.log" 2>&1
echo "plain rc=$? $(grep -c ': ok' "$OUT/plain.log") ok"; tail -n 3 "$OUT/plain.log"
. benchmarks/hw/ncu_counters.sh  # M: the ten counters' metrics (a superset of what this run used)
mkdir -p /tmp/ncu_out
ncu --metrics "$M" --csv --log-file "$OUT/ncu.csv" python3 benchmarks/hw/ptx_corpus_on_h100.py .hw_corpus /tmp/ncu_out > "$OUT/ncu_run.log" 2>&1
echo "ncu rc=$? rows=$(grep -c '"launch__registers_per_thread"' "$OUT/ncu.csv")"
tail -n 3 "$OUT/ncu_run.log"
