#!/usr/bin/env bash
# The shared-store merge and the generic-load count of the PTX engine checked on the GPU
# (2026-11-28): store_merge_probe.cu's launches (pairs, guardedPairs, pick from the tile, pick from
# global memory), their SASS and Nsight Compute's shared and global counters. One device call;
# writes $OUT/store_merge/.
metrics=smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum
metrics+=,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
metrics+=,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
metrics+=,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,smsp__inst_executed_op_generic_ld.sum
exec bash "$(dirname "$0")/probe_on_gpu.sh" store_merge_probe store_merge "$metrics"
