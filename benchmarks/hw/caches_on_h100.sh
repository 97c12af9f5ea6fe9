#!/usr/bin/env bash
# Device side (one `device run` call, with .hw_caches carried; caches_prepare.py makes it):
# 1. every launch timed by CUDA events (3 warm-ups, 20 timed) -> times_ms.json;
# 2. every launch under Nsight Compute with the cache and DRAM counters the model predicts
#    (ncu's default --cache-control all flushes L1/L2 before each kernel: cold caches, as the
#    model starts) -> ncu.csv. caches_compare.py turns them into the comparison here.
set -u
cd "$(dirname "$0")/../.."
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader > "$OUT/gpu.txt"
ncu --version | tail -1 >> "$OUT/gpu.txt"
python3 benchmarks/hw/ptx_corpus_on_h100.py .hw_caches "$OUT" 20 > "$OUT/timed.log" 2>&1
echo "timed rc=$? $(grep -c ': ok' "$OUT/timed.log") ok"; tail -n 2 "$OUT/timed.log"
M=gpu__time_duration.sum,launch__registers_per_thread,dram__bytes_read.sum,dram__bytes_write.sum
M=$M,lts__t_sector_hit_rate.pct,l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct
M=$M,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
M=$M,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum
M=$M,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__t_sectors_op_atom.sum
M=$M,lts__t_sectors_op_red.sum,sm__warps_active.avg.pct_of_peak_sustained_active
M=$M,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_write_lookup_hit.sum
mkdir -p /tmp/ncu_out
ncu --metrics "$M" --csv --log-file "$OUT/ncu.csv" python3 benchmarks/hw/ptx_corpus_on_h100.py .hw_caches /tmp/ncu_out > "$OUT/ncu_run.log" 2>&1
rc=$?
echo "ncu rc=$rc rows=$(grep -c '"gpu__time_duration.sum"' "$OUT/ncu.csv")"
tail -n 3 "$OUT/ncu_run.log"
