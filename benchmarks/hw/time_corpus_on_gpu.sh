#!/usr/bin/env bash
# Device side of the time model's corpus check (one `run` call, .hw_time_corpus carried, made by
# time_corpus_prepare.py): every realistic-size corpus launch timed with CUDA events, then each
# once under Nsight Compute (cold caches) for the same counters as time_on_gpu.sh.
# `STEP=time` or `STEP=ncu` runs one half (each fits a 10-minute device call); the profile runs
# every launch in one process (the timed run, a process per launch, shows they all run).
set -u
cd "$(dirname "$0")/../.."
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,clocks.max.mem --format=csv,noheader > "$OUT/gpu.txt"
ncu --version | tail -1 >> "$OUT/gpu.txt"
if [ -n "${ONLY:-}" ]; then  # re-time one launch: its row on stdout
  python3 benchmarks/hw/time_corpus_on_gpu.py .hw_time_corpus "$OUT" --only "$ONLY" | tee "$OUT/only_$ONLY.log"
  exit 0
fi
if [ "${STEP:-time}" != ncu ]; then
  python3 benchmarks/hw/time_corpus_on_gpu.py .hw_time_corpus "$OUT" > "$OUT/timed.log" 2>&1
  echo "timed rc=$?"; cat "$OUT/timed.log"
fi
[ "${STEP:-}" = time ] && exit 0
M=gpu__time_duration.sum,launch__registers_per_thread,dram__bytes_read.sum,dram__bytes_write.sum
M=$M,lts__t_sector_hit_rate.pct,l1tex__t_sector_hit_rate.pct
M=$M,l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct
M=$M,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum
M=$M,sm__warps_active.avg.pct_of_peak_sustained_active,sm__inst_executed.sum
M=$M,smsp__cycles_active.avg,sm__cycles_elapsed.avg.per_second
M=$M,l1tex__data_pipe_lsu_wavefronts.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
mkdir -p /tmp/ncu_out
ncu --metrics "$M" --csv --log-file "$OUT/ncu.csv" python3 benchmarks/hw/time_corpus_on_gpu.py .hw_time_corpus /tmp/ncu_out --profile --one-process > "$OUT/ncu_run.log" 2>&1
echo "ncu rc=$? rows=$(grep -c '"gpu__time_duration.sum"' "$OUT/ncu.csv")"
tail -n 3 "$OUT/ncu_run.log"
