#!/bin/bash
# Issue 31 on the device machine's CPUs (no GPU used): HeCBench programs through `perfcalc app`
# with a longer time limit than this 2-core machine allows for the whole suite.
#
#   here:   python benchmarks/hw/hecbench_app_pack.py HECBENCH LIST   (packs the programs into .hw_app/)
#   device: run(command="bash benchmarks/hw/hecbench_app_on_device.sh SECONDS JOBS", carry=[".hw_app"])
#
# Each program's row is appended to $OUT/progress.jsonl as it finishes, so a call stopped at its
# limit loses nothing: copy that file to .hw_app/progress.jsonl and call again to go on.
set -u
seconds=${1:-120}
jobs=${2:-0}  # 0: as many as the CPUs really run at once (measured below: nproc can say 1 under gVisor)
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .hw_app/*.whl || exit 1
mkdir -p /tmp/hec && tar -xJf .hw_app/hec_small.tar.xz -C /tmp/hec || exit 1
# the programs in .hw_app/programs.txt's order (the likeliest to finish first), else all packed
if [ -f .hw_app/programs.txt ]; then cp .hw_app/programs.txt /tmp/programs.txt
else ls /tmp/hec/src | grep -- '-cuda$' > /tmp/programs.txt; fi
[ -f .hw_app/progress.jsonl ] && cp .hw_app/progress.jsonl "$OUT/progress.jsonl"
touch "$OUT/progress.jsonl"
ln -sf "$OUT/progress.jsonl" benchmarks/.corpus_app_dev.progress.jsonl
export PYTHONPATH=/tmp/site:. PERFCALC_COMPILER=nvcc PERFCALC_NVCC="$(command -v nvcc)"
export PERFCALC_CACHE_DIR=/tmp/pc-cache OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
{ nproc; lscpu | grep -E 'Model name|MHz'; nvcc --version | tail -2; python3 --version; } > "$OUT/machine.txt" 2>&1
# how many busy processes run at full speed together: 64 spinning for 2 s each
start=$(date +%s.%N)
for i in $(seq 64); do python3 -c 'import time; t=time.process_time()
while time.process_time()-t<2: pass' & done; wait
parallel=$(python3 -c "print(max(1, int(128 / ($(date +%s.%N) - $start))))")
echo "64 processes spinning 2 s each: $parallel at full speed together" >> "$OUT/machine.txt"
[ "$jobs" = 0 ] && jobs=$parallel
timeout "${3:-520}" python3 benchmarks/corpus_app.py /tmp/hec --programs /tmp/programs.txt --jobs "$jobs" \
    --seconds "$seconds" --suffix _dev --write > "$OUT/summary.md" 2> "$OUT/stderr.txt"
echo "exit $?" >> "$OUT/stderr.txt"
cp benchmarks/results_corpus_app_dev.csv "$OUT/" 2>/dev/null
wc -l "$OUT/progress.jsonl"
