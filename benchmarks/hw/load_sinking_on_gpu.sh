#!/usr/bin/env bash
# Does ptxas sink a global load into the guarded loop that alone reads it (2026-11-28)?
# load_sinking_probe.cu's launch, its SASS, Nsight Compute's global-load requests, sectors and
# instructions. One device call; writes $OUT/load_sinking/.
metrics=l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,smsp__inst_executed_op_global_ld.sum
metrics+=,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
exec bash "$(dirname "$0")/probe_on_gpu.sh" load_sinking_probe load_sinking "$metrics"
