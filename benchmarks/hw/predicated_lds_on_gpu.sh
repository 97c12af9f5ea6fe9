#!/usr/bin/env bash
# Does a predicated-off LDS cost its warp the shared-load latency? (The PTX engine counts the
# predicated LDS/STS of if-converted regions as issued, and the time model charges each counted
# shared load its latency; whether the hardware makes a warp wait on one whose lanes are all off
# was not measured.) One warp, 4,096 iterations of a guarded dependent load `if ((i & m) == k)
# x = s[x] + 1;` with m, k from the host: guard always true, always false, and the same loop
# without the load; clock64 per iteration, median of 9 launches; the SASS shows whether ptxas
# predicated it. The probe is predicated_lds_probe.cu beside this script. One device call;
# writes $OUT/predicated_lds/ (result, SASS, the GPU).
set -u
out=$OUT/predicated_lds; mkdir -p "$out"
cp "$(dirname "$0")/predicated_lds_probe.cu" "$out/probe.cu"
cd "$out" && nvcc -arch=sm_90 -O3 -o probe probe.cu && nvcc -arch=sm_90 -O3 -cubin -o probe.cubin probe.cu \
  && cuobjdump -sass probe.cubin > probe.sass.txt && ./probe | tee result.txt
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv > gpu.txt
rm -f probe probe.cubin probe.cu
