#!/bin/bash
# Device: build chains.cu for sm_90, keep its SASS, run it; into $OUT.
set -e
cd "$(dirname "$0")"
nvcc -O3 -arch=sm_90 -o "$OUT/chains" chains.cu
cuobjdump -sass "$OUT/chains" > "$OUT/chains.sass.txt"
"$OUT/chains" | tee "$OUT/latency.csv"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$OUT/gpu.txt"
rm "$OUT/chains"
