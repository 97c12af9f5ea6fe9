#!/usr/bin/env bash
# 8-byte shared-memory accesses on the GPU (2026-11-28): lds64_probe.cu's 64 launches (LDS.64 and
# STS.64 by stride and active lanes), their SASS and Nsight Compute's shared counters. One device
# call; writes $OUT/lds64/.
metrics=smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum
metrics+=,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
metrics+=,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
exec bash "$(dirname "$0")/probe_on_gpu.sh" lds64_probe lds64 "$metrics"
