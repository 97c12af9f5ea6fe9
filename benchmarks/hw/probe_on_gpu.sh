#!/usr/bin/env bash
# One probe of the PTX engine's counting rules on the GPU: PROBE.cu (in this folder) built with -O3
# for sm_90, its SASS, the Nsight Compute METRICS (comma-separated) of every launch, and what it
# prints; written to $OUT/FOLDER/. Used by store_merge_on_gpu.sh and load_sinking_on_gpu.sh.
#   probe_on_gpu.sh PROBE FOLDER METRICS
set -u
here=$(cd "$(dirname "$0")" && pwd)
probe=$1 out=$OUT/$2 metrics=$3
mkdir -p "$out"; work=$(mktemp -d)
cp "$here/$probe.cu" "$work/"
cd "$work"
nvcc -arch=sm_90 -O3 -o probe "$probe.cu" && nvcc -arch=sm_90 -O3 -cubin -o probe.cubin "$probe.cu"
cuobjdump -sass probe.cubin > "$out/probe.sass.txt"
ncu --metrics "$metrics" --csv ./probe > "$out/probe_ncu.csv" 2> "$out/probe_ncu.log"
./probe > "$out/probe_output.txt"
nvidia-smi --query-gpu=name,driver_version --format=csv > "$out/gpu.txt"; nvcc --version | tail -2 >> "$out/gpu.txt"
grep -E "STS|LDS|LDG|LD\.|BRA|EXIT|Function" "$out/probe.sass.txt" | sed 's#/\* 0x[0-9a-f]* \*/##'
grep -v '^==' "$out/probe_ncu.csv" | cut -d, -f5,13- | cut -c1-160
