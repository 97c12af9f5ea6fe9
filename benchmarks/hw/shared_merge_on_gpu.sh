#!/usr/bin/env bash
# shared_merge_probe.cu's tileDot built with -O3 for sm_90: its SASS (LDS.128 where the PTX has
# four ld.shared.f32) and Nsight Compute's shared-load counters (requests, wavefronts, bank
# conflicts) for tests/test_shared_merge.py. Writes $OUT/shared_merge/.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=$OUT/shared_merge; mkdir -p "$out"; work=$(mktemp -d)
cp "$here/shared_merge_probe.cu" "$work/probe.cu"; cd "$work"
nvcc -arch=sm_90 -O3 -o probe probe.cu && nvcc -arch=sm_90 -O3 -cubin -o probe.cubin probe.cu
cuobjdump -sass probe.cubin | grep -E "LDS|STS|Function" > "$out/probe_lds.sass.txt"
ncu --metrics smsp__inst_executed_op_shared_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum \
  --csv ./probe > "$out/probe_ncu.csv" 2> "$out/probe_ncu.log"
./probe > "$out/probe_output.txt"
