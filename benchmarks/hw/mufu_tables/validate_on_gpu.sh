#!/bin/bash
# Issue 33, after on_gpu.sh: perfcalc's MUFU emulation against the GPU at scale, and the SASS of
# every probe form.   run(command="bash benchmarks/hw/mufu_tables/validate_on_gpu.sh")
set -e
cd "$(dirname "$0")"
nvcc -O3 -arch=sm_90 -o ./mufu_probe mufu_probe.cu
nvcc -arch=sm_90 -cubin -o /tmp/mufu_probe.cubin mufu_probe.cu
cuobjdump -sass /tmp/mufu_probe.cubin > "$OUT/mufu_probe_divide.sass"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/validate.txt"
python3 validate_on_gpu.py "$OUT" | tee -a "$OUT/validate.txt"
rm -f ./mufu_probe
