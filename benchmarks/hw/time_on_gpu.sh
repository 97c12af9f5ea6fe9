#!/usr/bin/env bash
# Device side of the time model's check (one `run` call; nothing carried):
# 1. microbenchmarks + every time_cases.py launch timed with CUDA events -> micro.json, times.json
# 2. every launch once under Nsight Compute -> ncu.csv (default --cache-control all: cold caches,
#    default --clock-control base: counters, not times, are what is compared from it)
set -u
cd "$(dirname "$0")/../.."
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,clocks.max.mem --format=csv,noheader > "$OUT/gpu.txt"
ncu --version | tail -1 >> "$OUT/gpu.txt"
python3 benchmarks/hw/time_on_gpu.py "$OUT" > "$OUT/timed.log" 2>&1
echo "timed rc=$?"; tail -n 25 "$OUT/timed.log"
M=gpu__time_duration.sum,launch__registers_per_thread,dram__bytes_read.sum,dram__bytes_write.sum
M=$M,lts__t_sector_hit_rate.pct,l1tex__t_sector_hit_rate.pct
M=$M,l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct
M=$M,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum
M=$M,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum
M=$M,sm__warps_active.avg.pct_of_peak_sustained_active,sm__inst_executed.sum
M=$M,smsp__cycles_active.avg,sm__cycles_elapsed.avg.per_second
M=$M,l1tex__data_pipe_lsu_wavefronts.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
ncu --metrics "$M" --csv --log-file "$OUT/ncu.csv" python3 benchmarks/hw/time_on_gpu.py /tmp/ncu_out --profile > "$OUT/ncu_run.log" 2>&1
echo "ncu rc=$? rows=$(grep -c '"gpu__time_duration.sum"' "$OUT/ncu.csv")"
tail -n 3 "$OUT/ncu_run.log"
