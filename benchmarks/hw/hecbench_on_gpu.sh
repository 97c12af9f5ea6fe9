#!/usr/bin/env bash
# Device side of issues 31, 32 and 34 (one `run` call, .hw_hecbench carried; made here by
# hecbench_prepare.py). Results accumulate in .hw_out (an ignored folder kept on the warm
# machine between calls) and come back as one archive, $OUT/$LABEL.tgz.
#   STEP=first   the three tune sweeps timed (tune_on_gpu.py) while the HeCBench programs build,
#                then Nsight Compute over the perfcalc-sized arguments until BUDGET seconds
#   STEP=more    Nsight Compute goes on where the last call stopped (small, then full arguments)
#   TIMES=0      the ten counters only (the times were measured by an earlier call)
set -u
cd "$(dirname "$0")/../.."
export PYTHONUNBUFFERED=1
LABEL=${LABEL:-h100}
BUDGET=${BUDGET:-420}
mkdir -p .hw_out/hecbench
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,clocks.max.mem --format=csv,noheader > .hw_out/gpu.txt
ncu --version | tail -1 >> .hw_out/gpu.txt
nvcc --version | tail -2 >> .hw_out/gpu.txt
if [ -n "${SCALING:-}${SWEEPS:-}" ]; then  # perfcalc itself on this machine's CPUs, beside the profiling
  python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl > .hw_out/pip.log 2>&1
fi
if [ -n "${SWEEPS:-}" ]; then  # the three tune sweeps predicted (resumable: .hw_out/tune_results/*.jsonl)
  (PYTHONPATH=/tmp/site:. PERFCALC_COMPILER=nvcc PERFCALC_NVCC="$(command -v nvcc)" PERFCALC_CACHE_DIR=/tmp/pc-cache \
     timeout "${SWEEPS_SECONDS:-480}" python3 benchmarks/tune_sweeps.py --workers "$SWEEPS" \
     --results .hw_out/tune_results > .hw_out/sweeps.log 2>&1) &
fi
if [ -n "${SCALING:-}" ]; then  # perfcalc tune's worker curve on this machine's cores
  (cd benchmarks && PYTHONPATH=/tmp/site:.. PERFCALC_COMPILER=nvcc PERFCALC_NVCC="$(command -v nvcc)" \
     PERFCALC_CACHE_DIR=/tmp/pc-cache timeout "${SCALING_SECONDS:-480}" python3 bench_tune_scaling.py --workers "$SCALING" \
     > ../.hw_out/scaling.log 2>&1) &
fi
if [ "${STEP:-first}" = more ]; then
  python3 benchmarks/hw/hecbench_on_gpu.py build .hw_hecbench .hw_out/hecbench --budget "${BUILD_BUDGET:-120}" > .hw_out/build2.log 2>&1
fi
if [ "${STEP:-first}" = first ]; then
  if [ "${FLOOR:-1}" = 1 ]; then
  python3 benchmarks/hw/launch_floor_on_gpu.py .hw_out/floor > .hw_out/floor.log 2>&1
  ncu --clock-control none --print-units base --csv --metrics gpu__time_duration.sum -k regex:empty -c 40 --log-file .hw_out/floor/ncu.csv \
    python3 benchmarks/hw/launch_floor_on_gpu.py .hw_out/floor --profile >> .hw_out/floor.log 2>&1
  echo "launch floor: $(tail -n 2 .hw_out/floor.log | head -c 400)"
  fi
  if [ ! -f .hw_out/tune/tune_times.json ] && [ -f "${TUNE_SEED:-none}" ]; then  # rows timed by an earlier machine
    mkdir -p .hw_out/tune && cp "$TUNE_SEED" .hw_out/tune/tune_times.json
  fi
  if [ "${TUNE:-1}" = 1 ]; then
    python3 benchmarks/hw/tune_on_gpu.py .hw_out/tune > .hw_out/tune.log 2>&1 &
    TUNE_PID=$!
  fi
  if [ "${HECBENCH:-1}" = 1 ]; then
    python3 benchmarks/hw/hecbench_on_gpu.py build .hw_hecbench .hw_out/hecbench --budget "${BUILD_BUDGET:-200}" > .hw_out/build.log 2>&1
    echo "built: $(grep -c '"rc": 0' .hw_out/hecbench/build.jsonl) of $(wc -l < .hw_out/hecbench/build.jsonl)"
  fi
  [ -n "${TUNE_PID:-}" ] && wait "$TUNE_PID"  # not the sweeps: they go on beside the profiling
  tail -n 4 .hw_out/tune.log 2>/dev/null
fi
if [ "${HECBENCH:-1}" = 1 ]; then  # times first (cheap), then the ten counters while time is left
  [ "${TIMES:-1}" = 1 ] && python3 benchmarks/hw/hecbench_on_gpu.py profile .hw_hecbench .hw_out/hecbench \
    --which small --kind time --budget "$((BUDGET - SECONDS))" | tail -n 2
  [ "${COUNTERS:-1}" = 1 ] && python3 benchmarks/hw/hecbench_on_gpu.py profile .hw_hecbench .hw_out/hecbench \
    --which small --kind counters --budget "$((BUDGET - SECONDS))" | tail -n 2
fi
if [ "${HECBENCH:-1}" = 1 ] && [ "${FULL:-0}" = 1 ]; then
  python3 benchmarks/hw/hecbench_on_gpu.py profile .hw_hecbench .hw_out/hecbench --which full --kind time \
    --budget "$((BUDGET + ${FULL_EXTRA:-0} - SECONDS))" | tail -n 2
fi
wait
tail -n 12 .hw_out/scaling.log .hw_out/sweeps.log 2>/dev/null
echo "profiled: $(ls .hw_out/hecbench/small/*.time.csv 2>/dev/null | wc -l) small (time), \
$(ls .hw_out/hecbench/small/*.counters.csv 2>/dev/null | wc -l) small (counters), \
$(ls .hw_out/hecbench/full 2>/dev/null | wc -l) full"
tar czf "$OUT/$LABEL.tgz" -C .hw_out .
ls -la "$OUT"
