#!/bin/bash
# Device: the SASS of serial_shared_sum.cu (nvcc -O3 sm_90), into $OUT.
set -e
cd "$(dirname "$0")"
nvcc -O3 -arch=sm_90 -cubin -o "$OUT/probe.cubin" serial_shared_sum.cu
cuobjdump -sass "$OUT/probe.cubin" > "$OUT/probe.sass.txt"
nvcc --version | tail -2 > "$OUT/nvcc.txt"
grep -c "LDS" "$OUT/probe.sass.txt" || true
