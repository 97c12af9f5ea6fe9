#!/usr/bin/env bash
# The if-conversion of an arm that jumps back to its loop's head, checked on the GPU (2026-11-28):
# loop_tail_probe.cu's launches (tailIf, tailIfVolatile), their SASS and Nsight Compute's shared
# and global counters. One device call; writes $OUT/loop_tail/.
metrics=smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum
metrics+=,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
metrics+=,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,smsp__inst_executed_op_global_ld.sum
exec bash "$(dirname "$0")/probe_on_gpu.sh" loop_tail_probe loop_tail "$metrics"
