#!/usr/bin/env bash
# Device side of issue 34's GPU comparison, one `run` call (.whl carried: PyYAML, pycparser,
# platformdirs, tabulate, cxxfilt, tree-sitter for perfcalc on this machine's CPUs):
#  1. perfcalc predicts the example GEMM's 768 points for the H100 on this machine's cores
#     (tune_sweeps.py --only gemm_tiled, nvcc 13.0 here), in the background;
#  2. meanwhile the corpus's two sweeps (templated matmul, reduction) are timed on the GPU,
#     starting from the committed tune_times.json (the GEMM's 663 timed points are kept, the
#     corpus rows that failed to compile there are timed again); a point that faults ends its
#     process (tune_on_gpu.py exits 3) and the loop starts the next one where it stopped.
# Everything comes back as $OUT/tune.tgz.
set -u
cd "$(dirname "$0")/../.."
export PYTHONUNBUFFERED=1
WORKERS=${WORKERS:-14}
SECONDS_PERFCALC=${SECONDS_PERFCALC:-500}
mkdir -p .hw_out/tune .hw_out/tune_results
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,clocks.max.mem --format=csv,noheader > .hw_out/gpu.txt
nvcc --version | tail -2 >> .hw_out/gpu.txt
nproc >> .hw_out/gpu.txt
if [ "${PERFCALC:-1}" = 1 ]; then  # PERFCALC=0: the GPU side only
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl > .hw_out/pip.log 2>&1
(PYTHONPATH=/tmp/site:. PERFCALC_COMPILER=nvcc PERFCALC_NVCC="$(command -v nvcc)" PERFCALC_CACHE_DIR=/tmp/pc-cache \
   timeout "$SECONDS_PERFCALC" python3 benchmarks/tune_sweeps.py --gpu h100-sxm --only gemm_tiled \
   --workers "$WORKERS" --results .hw_out/tune_results > .hw_out/sweeps.log 2>&1) &
fi
touch .hw_out/sweeps.log
[ -f .hw_out/tune/tune_times.json ] || cp benchmarks/hw/tune_h100/tune_times.json .hw_out/tune/tune_times.json
for name in matmul_template reduce6; do
  for attempt in 1 2 3 4 5 6 7; do
    python3 benchmarks/hw/tune_on_gpu.py .hw_out/tune 200 --only=$name >> .hw_out/tune/tune.log 2>&1
    rc=$?
    echo "$name attempt $attempt: exit $rc" >> .hw_out/tune/tune.log
    [ $rc -eq 3 ] || break
  done
done
wait
tail -n 5 .hw_out/sweeps.log
tail -n 20 .hw_out/tune/tune.log
tar czf "$OUT/tune.tgz" -C .hw_out gpu.txt tune tune_results sweeps.log
