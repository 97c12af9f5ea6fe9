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
M=smsp__inst_executed_op_global_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
M=$M,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
M=$M,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,smsp__inst_executed_op_shared_ld.sum
M=$M,smsp__inst_executed_op_shared_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
M=$M,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
M=$M,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
M=$M,smsp__sass_thread_inst_executed_op_fadd_pred_on.sum,smsp__sass_thread_inst_executed_op_fmul_pred_on.sum
M=$M,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,smsp__sass_thread_inst_executed_op_dadd_pred_on.sum
M=$M,smsp__sass_thread_inst_executed_op_dmul_pred_on.sum,smsp__sass_thread_inst_executed_op_dfma_pred_on.sum
ncu --metrics "$M" --csv --log-file "$OUT/ncu.csv" python3 benchmarks/hw/run_on_h100.py > "$OUT/cases.jsonl" 2> "$OUT/cases.err"
echo "ncu rc=$? cases=$(wc -l < "$OUT/cases.jsonl")"
compute-sanitizer --tool memcheck python3 benchmarks/hw/sanitize_on_h100.py memcheck convolve_seed > "$OUT/san_memcheck_convolve_seed.txt" 2>&1
compute-sanitizer --tool memcheck python3 benchmarks/hw/sanitize_on_h100.py memcheck convolve_fixed > "$OUT/san_memcheck_convolve_fixed.txt" 2>&1
compute-sanitizer --tool racecheck python3 benchmarks/hw/sanitize_on_h100.py racecheck reduce_nosync > "$OUT/san_racecheck_reduce_nosync.txt" 2>&1
compute-sanitizer --tool synccheck python3 benchmarks/hw/sanitize_on_h100.py synccheck partial_barrier > "$OUT/san_synccheck_partial_barrier.txt" 2>&1
tail -n 3 "$OUT"/san_*.txt
tail -n 5 "$OUT/cases.err"
