#!/bin/bash
# Device: build probe.cu for sm_90, keep its SASS, run it (outputs to gpu.bin; compare here with
# `python benchmarks/hw/div_contraction/compare.py`).
cd "$(dirname "$0")"
nvcc --version | tail -2 > "$OUT/nvcc.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > "$OUT/gpu.txt"
nvcc -O3 -arch=sm_90 -lineinfo -o /tmp/probe probe.cu
cuobjdump -sass /tmp/probe > "$OUT/probe.sass.txt"
/tmp/probe "$OUT/gpu.bin" > "$OUT/probe.stdout.txt"
xz -9 "$OUT/gpu.bin"
