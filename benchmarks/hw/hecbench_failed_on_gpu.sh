#!/usr/bin/env bash
# Device side: do the HeCBench programs whose own check failed under `perfcalc app` pass it on a
# GPU? (.hw_failed carried; made by `hecbench_prepare.py CHECKOUT .hw_failed --outcome failed`.)
# Each is built by its own Makefile (sm_90) and run as it is with the arguments perfcalc ran.
set -u
cd "$(dirname "$0")/../.."
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/gpu.txt"
nvcc --version | tail -2 >> "$OUT/gpu.txt"
python3 benchmarks/hw/hecbench_on_gpu.py build .hw_failed "$OUT/failed" --budget "${BUILD_BUDGET:-150}" > "$OUT/build.log" 2>&1
echo "built: $(grep -c '"rc": 0' "$OUT/failed/build.jsonl") of $(wc -l < "$OUT/failed/build.jsonl")"
python3 benchmarks/hw/hecbench_on_gpu.py profile .hw_failed "$OUT/failed" --which small --kind plain \
  --budget "${BUDGET:-200}" | tail -n 3
rm -rf "$OUT/failed/small"  # empty markers
