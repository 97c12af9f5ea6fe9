#!/usr/bin/env bash
# Issue 34's many-core scaling: `perfcalc tune`'s 2,000-point GEMM sweep on a local Ray cluster of
# N workers, on the device's largest CPU machine (benchmarks/bench_tune_scaling.py --space large).
# Carried in .whl/: ray312.tar.xz (Ray 2.60.0's cp312 wheel without its Java jars, dashboard web
# client, rllib/data/serve/train/tune/llm libraries and debug symbols: the whole wheel is larger
# than a call may carry) and wheels of what the device's image lacks (pycparser, platformdirs,
# cxxfilt, tree-sitter(-cuda), jsonschema and its three dependencies). The compile cache and the
# record of passes stay in the ignored .hw_caches/tune_ray/ between calls on a warm machine:
#   WORKERS=64,32,16,8,4 benchmarks/hw/tune_scaling_on_ray.sh          # fills the cache first
#   SPACE=sample WORKERS=8,4,2,1 FILL=0 benchmarks/hw/tune_scaling_on_ray.sh   # few workers
#   BACKEND=process WORKERS=64 benchmarks/hw/tune_scaling_on_ray.sh    # the same machine without Ray
#   FILL_WORKERS=64 WORKERS=1 BUDGET=440 benchmarks/hw/tune_scaling_on_ray.sh  # a pass split over
#   FILL=0 WORKERS=1 BUDGET=540 benchmarks/hw/tune_scaling_on_ray.sh             # calls, resumed
# BUDGET (seconds) makes each pass one segment that the next call with the same arguments resumes
# (bench_tune_scaling.py --budget); the record and the pass's points come back under $OUT, and a
# fresh machine starts from the copies carried in .hw_caches/tune_ray_carry/ if it lacks its own.
# Everything comes back under $OUT.
set -u
cd "$(dirname "$0")/../.."
export PYTHONUNBUFFERED=1 RAY_AUTH_MODE=disabled RAY_USAGE_STATS_ENABLED=0
WORKERS=${WORKERS:-64,32,16,8,4,2}
FILL=${FILL:-1}
SPACE=${SPACE:-large}
BACKEND=${BACKEND:-ray}
CACHE=$PWD/.hw_caches/tune_ray
mkdir -p /tmp/site "$CACHE"
if [ ! -d /tmp/site/ray ]; then
  tar xJf .whl/ray312.tar.xz -C /tmp/site || exit 1
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl || exit 1
fi
export PYTHONPATH=/tmp/site:. PERFCALC_COMPILER=nvcc PERFCALC_NVCC="$(command -v nvcc)" PERFCALC_CACHE_DIR="$CACHE/pc"
{ nproc; lscpu | grep -E "^CPU\(s\)|Model name|Socket|Core|Thread"; nvcc --version | tail -1; python3 --version; free -g | head -2; } > "$OUT/machine.txt" 2>&1
fill=()
[ "$FILL" = 1 ] || fill=(--no-fill)
[ -z "${BUDGET:-}" ] || fill+=(--budget "$BUDGET")
[ -z "${FILL_WORKERS:-}" ] || fill+=(--fill-workers "$FILL_WORKERS")
for f in .hw_caches/tune_ray_carry/record_*; do
  [ -e "$f" ] && [ ! -e "$CACHE/$(basename "$f")" ] && cp "$f" "$CACHE/"
done
name="${BACKEND}_${SPACE}_${WORKERS//,/_}"
python3 benchmarks/bench_tune_scaling.py --backend "$BACKEND" --space "$SPACE" --workers "$WORKERS" \
  --record "$CACHE/record_${BACKEND}_${SPACE}.json" "${fill[@]}" 2>&1 | tee "$OUT/scaling_$name.log"
cp "$CACHE"/record_"${BACKEND}_${SPACE}"* "$OUT/"
