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
M=launch__registers_per_thread,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
M=$M,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
M=$M,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,smsp__inst_executed_op_shared_ld.sum
M=$M,smsp__inst_executed_op_shared_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
M=$M,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
M=$M,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
M=$M,smsp__sass_thread_inst_executed_op_fadd_pred_on.sum,smsp__sass_thread_inst_executed_op_fmul_pred_on.sum
M=$M,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,smsp__sass_thread_inst_executed_op_dadd_pred_on.sum
M=$M,smsp__sass_thread_inst_executed_op_dmul_pred_on.sum,smsp__sass_thread_inst_executed_op_dfma_pred_on.sum
M=$M,smsp__sass_branch_targets_threads_divergent.sum,smsp__inst_executed_op_global_ld.sum
mkdir -p /tmp/ncu_out
ncu --metrics "$M" --csv --log-file "$OUT/ncu.csv" python3 benchmarks/hw/ptx_corpus_on_h100.py .hw_corpus /tmp/ncu_out > "$OUT/ncu_run.log" 2>&1
echo "ncu rc=$? rows=$(grep -c '"launch__registers_per_thread"' "$OUT/ncu.csv")"
tail -n 3 "$OUT/ncu_run.log"
