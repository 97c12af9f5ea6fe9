#!/usr/bin/env bash
# Device side of issue 33 (one `run` call, nothing to carry): the tensor-core corpus of
# tests/data/cuda/tensor/ built by nvcc for sm_90 and run (1) at the sizes perfcalc's tests run,
# for the outputs (bit for bit) and under Nsight Compute for the counters, and (2) at realistic
# sizes (GEMM 2048^2, attention 4096 tokens) under Nsight Compute for the kernel times, with
# --clock-control none as the HeCBench times were taken. Everything comes back as
# $OUT/tensor_run.tgz; unpack it into benchmarks/hw/ and compare here: tensor_compare.py.
set -u
cd "$(dirname "$0")/../.."
R=/tmp/tensor_run  # archived into $OUT at the end (a run returns only a few files)
rm -rf "$R"; mkdir -p "$R" /tmp/tb
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > "$R/gpu.txt"
ncu --version | tail -1 >> "$R/gpu.txt"
nvcc --version | tail -2 >> "$R/gpu.txt"
ncu --query-metrics --chip gh100 > /tmp/tb/metrics.txt 2>&1
grep -iE "tensor|ldgsts|ldsm" /tmp/tb/metrics.txt > "$R/tensor_metric_names.txt"
# name, then the arguments after OUT.bin for the small (checked) run and the large (timed) run
CASES="mma_probe:2048:2048 mma_gemm:128:2048 wmma_gemm:64:2048 mma_int8_tf32:64:2048 bf16_norms:64,1024:4096,4096 half2_fp8:65536:16777216 flash_attention:256:4096"
CASES="$CASES sgemm_cp_async:100:2048 mma_shapes:256:256 bf16_elementwise:65536:16777216 wmma_int8:64:2048"
CASES="$CASES ldmatrix_variants:8:8192 cp_async_sizes:16:8192 lowprec_conversions:: wmma_shapes:64:4096"
CASES=${ONLY:-$CASES}  # ONLY="name:small:large ...": those programs alone
for c in $CASES; do
  IFS=: read -r name small large <<< "$c"
  nvcc -arch=sm_90 -O3 -lineinfo -o "/tmp/tb/$name" "tests/data/cuda/tensor/$name.cu" > "$R/$name.build.txt" 2>&1
  cuobjdump -sass "/tmp/tb/$name" > "$R/$name.sass.txt" 2>&1
  "/tmp/tb/$name" "$R/$name.bin" ${small//,/ } > "$R/$name.txt" 2>&1
  echo "$name build+run rc=$? $(tail -n 1 "$R/$name.txt")"
done
. benchmarks/hw/ncu_counters.sh  # M: the ten counters' metrics and the time
T=gpu__time_duration.sum
for x in smsp__inst_executed_pipe_tensor smsp__inst_executed_pipe_tensor_op_hmma smsp__inst_executed_pipe_tensor_op_imma \
  sm__inst_executed_pipe_tensor_op_hmma sm__inst_executed_pipe_tensor_op_imma smsp__inst_executed_op_ldgsts \
  smsp__inst_executed_op_ldsm sm__pipe_tensor_op_hmma_cycles_active; do  # only names this ncu knows
  if grep -qw "$x" /tmp/tb/metrics.txt; then M=$M,$x.sum; T=$T,$x.sum; fi
done
echo "metrics: $M" > "$R/metrics_used.txt"
for c in $CASES; do
  IFS=: read -r name small large <<< "$c"
  ncu --clock-control none --print-units base --csv --metrics "$M" --log-file "$R/ncu_small_$name.csv" \
    "/tmp/tb/$name" /tmp/tb/out.bin ${small//,/ } > "$R/ncu_small_$name.log" 2>&1
  echo "$name counters rc=$? rows=$(grep -c gpu__time_duration "$R/ncu_small_$name.csv")"
  ncu --clock-control none --print-units base --csv --metrics "$T" \
    --log-file "$R/ncu_large_$name.csv" "/tmp/tb/$name" /tmp/tb/out.bin ${large//,/ } > "$R/ncu_large_$name.log" 2>&1
  echo "$name time rc=$? $(grep gpu__time_duration "$R/ncu_large_$name.csv" | cut -d, -f5,15 | head -3 | tr '\n' ' ')"
done
tar czf "$OUT/tensor_run.tgz" -C /tmp tensor_run
