#!/usr/bin/env bash
# The flop-count rules of the PTX engine checked on the GPU (2026-11-28): flops_rules_probe.cu's
# pick (a select ptxas predicates) and rowSum (a warp reduction whose last add ptxas moves past
# the early exit), built with -O3 for sm_90: their SASS, and Nsight Compute's six flop counters
# per launch; and tests/data/cuda_app/fast_math.cu built without and with -use_fast_math (its
# denormal kept or flushed). One device call; writes $OUT/flops_rules/.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=$OUT/flops_rules; mkdir -p "$out"; work=$(mktemp -d)
cp "$here/flops_rules_probe.cu" "$here/../../tests/data/cuda_app/fast_math.cu" "$work/"
cd "$work"
nvcc -arch=sm_90 -O3 -o probe flops_rules_probe.cu && nvcc -arch=sm_90 -O3 -cubin -o probe.cubin flops_rules_probe.cu
cuobjdump -sass probe.cubin > "$out/probe.sass.txt"
metrics=$(printf 'smsp__sass_thread_inst_executed_op_%s_pred_on.sum,' fadd fmul ffma dadd dmul dfma)
ncu --metrics "${metrics%,}" --csv ./probe > "$out/probe_ncu.csv" 2> "$out/probe_ncu.log"
./probe > "$out/probe_output.txt"
nvcc -arch=sm_90 -O3 -o plain fast_math.cu && nvcc -arch=sm_90 -O3 -use_fast_math -o fast fast_math.cu
{ echo "without: $(./plain)"; echo "with -use_fast_math: $(./fast)"; } > "$out/fast_math.txt"
nvidia-smi --query-gpu=name,driver_version --format=csv > "$out/gpu.txt"; nvcc --version | tail -2 >> "$out/gpu.txt"
cat "$out/probe_output.txt" "$out/fast_math.txt"; grep -v '^==' "$out/probe_ncu.csv" | cut -c1-200
