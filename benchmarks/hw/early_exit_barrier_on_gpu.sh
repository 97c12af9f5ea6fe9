#!/usr/bin/env bash
# Device side: tests/data/cuda_app programs as a GPU runs them, and what compute-sanitizer's
# synccheck, memcheck and racecheck say of them (the behaviour perfcalc app copies); first
# tests/data/cuda/partial_barrier.cu with a main() under synccheck. ONLY=partial: that case
# alone; PROGRAMS="a b": those cuda_app programs alone. One file back: $OUT/gpu_runs.txt.
set -u
cd "$(dirname "$0")/../.."
log="$OUT/gpu_runs.txt"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$log"
if [ -z "${PROGRAMS:-}" ]; then
  cat tests/data/cuda/partial_barrier.cu - > /tmp/partial_barrier.cu <<'CU'
#include <cstdio>
int main() {
  float host[64], *d;
  for (int i = 0; i < 64; i++) host[i] = i;
  cudaMalloc(&d, sizeof host);
  cudaMemcpy(d, host, sizeof host, cudaMemcpyHostToDevice);
  partialBarrier<<<1, 64>>>(d);
  cudaError_t err = cudaMemcpy(host, d, sizeof host, cudaMemcpyDeviceToHost);
  printf("%s data[0]=%g data[31]=%g\n", cudaGetErrorName(err), host[0], host[31]);
  return 0;
}
CU
  nvcc -O3 -arch=sm_90 -o /tmp/partial_barrier /tmp/partial_barrier.cu >> "$log" 2>&1
  echo "== partial_barrier (tests/data/cuda): plain run" >> "$log"
  /tmp/partial_barrier >> "$log" 2>&1; echo "rc=$?" >> "$log"
  echo "== partial_barrier: compute-sanitizer --tool synccheck" >> "$log"
  compute-sanitizer --tool synccheck --print-limit 4 /tmp/partial_barrier >> "$log" 2>&1
  [ "${ONLY:-}" = partial ] && { cat "$log"; exit 0; }
fi
for p in ${PROGRAMS:-early_exit_barrier two_barriers overrun null_copy}; do
  nvcc -O3 -arch=sm_90 -o "/tmp/$p" "tests/data/cuda_app/$p.cu" >> "$log" 2>&1
  echo "== $p: plain run" >> "$log"
  "/tmp/$p" >> "$log" 2>&1; echo "rc=$?" >> "$log"
  for tool in synccheck memcheck racecheck; do
    echo "== $p: compute-sanitizer --tool $tool --print-limit 4" >> "$log"
    compute-sanitizer --tool "$tool" --print-limit 4 "/tmp/$p" >> "$log" 2>&1
  done
done
cat "$log"
