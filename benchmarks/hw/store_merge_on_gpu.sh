#!/usr/bin/env bash
# The shared-store merge and the generic-load count of the PTX engine checked on the GPU
# (2026-11-28): store_merge_probe.cu built with -O3 for sm_90, its SASS, and Nsight Compute's
# shared and global counters per launch (pairs, guardedPairs, pick from the tile, pick from global
# memory). One device call; writes $OUT/store_merge/.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=$OUT/store_merge; mkdir -p "$out"; work=$(mktemp -d)
cp "$here/store_merge_probe.cu" "$work/"
cd "$work"
nvcc -arch=sm_90 -O3 -o probe store_merge_probe.cu && nvcc -arch=sm_90 -O3 -cubin -o probe.cubin store_merge_probe.cu
cuobjdump -sass probe.cubin > "$out/probe.sass.txt"
metrics=smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum
metrics+=,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
metrics+=,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
metrics+=,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,smsp__inst_executed_op_generic_ld.sum
ncu --metrics "$metrics" --csv ./probe > "$out/probe_ncu.csv" 2> "$out/probe_ncu.log"
./probe > "$out/probe_output.txt"
nvidia-smi --query-gpu=name,driver_version --format=csv > "$out/gpu.txt"; nvcc --version | tail -2 >> "$out/gpu.txt"
grep -E "STS|LDS|LD\.|Function" "$out/probe.sass.txt" | sed 's#/\* 0x[0-9a-f]* \*/##'
grep -v '^==' "$out/probe_ncu.csv" | cut -d, -f5,13- | cut -c1-160
