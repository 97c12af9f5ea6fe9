#!/bin/bash
# Issue 33, MUFU tables: run(command="bash benchmarks/hw/mufu_tables/on_gpu.sh") on an H100/H200.
set -e
cd "$(dirname "$0")"
nvcc -O3 -arch=sm_90 -o /tmp/mufu_probe mufu_probe.cu
nvcc -arch=sm_90 -cubin -o /tmp/mufu_probe.cubin mufu_probe.cu
cuobjdump -sass /tmp/mufu_probe.cubin > "$OUT/mufu_probe.sass"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | tail -1; } > "$OUT/log.txt"
cp /tmp/mufu_probe ./mufu_probe
python3 run_on_gpu.py "$OUT" | tee -a "$OUT/log.txt"
python3 validate_on_gpu.py | tee "$OUT/validate.txt"
rm -f ./mufu_probe
