#!/usr/bin/env bash
# Device side: build edge.cu for sm_90 and run it; output in $OUT.
set -u
cd "$(dirname "$0")"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/gpu.txt"
nvcc --version | tail -2 >> "$OUT/gpu.txt"
nvcc -arch=sm_90 -o /tmp/edge edge.cu > "$OUT/build.log" 2>&1
/tmp/edge > "$OUT/edge.txt" 2>&1; echo "exit $?" >> "$OUT/edge.txt"
cat "$OUT/edge.txt"
