#!/usr/bin/env bash
# Device side (one `device run` call): catalog kernels under Nsight Compute, then the seed fault
# cases under compute-sanitizer. Everything lands in $OUT; compare_h100.py turns it into
# benchmarks/hw/h100_counters.csv here.
set -u
cd "$(dirname "$0")/../.."
export PYTHONPATH="/tmp/site:${PYTHONPATH:-}"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>&1 | tail -1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > "$OUT/gpu.txt"
ncu --version | tail -1 >> "$OUT/gpu.txt"
. benchmarks/hw/ncu_counters.sh  # M: the ten counters' metrics (a superset of what this run used)
ncu --metrics "$M" --csv --log-file "$OUT/ncu.csv" python3 benchmarks/hw/run_on_h100.py > "$OUT/cases.jsonl" 2> "$OUT/cases.err"
echo "ncu rc=$? cases=$(wc -l < "$OUT/cases.jsonl")"
compute-sanitizer --tool memcheck python3 benchmarks/hw/sanitize_on_h100.py memcheck convolve_seed > "$OUT/san_memcheck_convolve_seed.txt" 2>&1
compute-sanitizer --tool memcheck python3 benchmarks/hw/sanitize_on_h100.py memcheck convolve_fixed > "$OUT/san_memcheck_convolve_fixed.txt" 2>&1
compute-sanitizer --tool racecheck python3 benchmarks/hw/sanitize_on_h100.py racecheck reduce_nosync > "$OUT/san_racecheck_reduce_nosync.txt" 2>&1
compute-sanitizer --tool synccheck python3 benchmarks/hw/sanitize_on_h100.py synccheck partial_barrier > "$OUT/san_synccheck_partial_barrier.txt" 2>&1
tail -n 3 "$OUT"/san_*.txt
tail -n 5 "$OUT/cases.err"
