#!/usr/bin/env bash
# Device side of serialisation_micro.py (one `run` call): the micro kernels timed, then each once
# under Nsight Compute (L2 write sectors/requests, L1 store sectors, shared/constant counters),
# and the SASS of the micro module and of the corpus kernels whose times the model missed.
set -u
cd "$(dirname "$0")/../.."
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,clocks.max.mem --format=csv,noheader > "$OUT/gpu.txt"
ncu --version | tail -1 >> "$OUT/gpu.txt"
python3 benchmarks/hw/serialisation_micro.py "$OUT" > "$OUT/timed.log" 2>&1
echo "timed rc=$?"
mkdir -p "$OUT/sass"
python3 benchmarks/hw/serialisation_micro.py --source > /tmp/micro.cu
nvcc -arch=sm_90 -cubin -o /tmp/micro.cubin /tmp/micro.cu && cuobjdump -sass /tmp/micro.cubin > "$OUT/sass/micro.sass"
for f in bit_intrinsics mulhi_mul24 atomics_shared constant_lookup gemv_warp; do
  nvcc -arch=sm_90 -cubin -o "/tmp/$f.cubin" "tests/data/cuda_corpus/$f.cu" && cuobjdump -sass "/tmp/$f.cubin" > "$OUT/sass/$f.sass"
done
tar czf "$OUT/sass.tgz" -C "$OUT" sass && rm -r "$OUT/sass"  # one file: the reply carries few
ncu --query-metrics --chip gh100 > /tmp/metrics.txt 2>&1
M=""
for m in gpu__time_duration.sum lts__t_sectors_srcunit_tex_op_write.sum dram__bytes_read.sum \
    lts__t_requests_srcunit_tex_op_write.sum l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum \
    l1tex__t_requests_pipe_lsu_mem_global_op_st.sum dram__bytes_write.sum \
    l1tex__data_pipe_lsu_wavefronts_mem_shared.sum l1tex__data_pipe_lsu_wavefronts.sum \
    l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum \
    l1tex__t_requests_pipe_lsu_mem_global_op_st.sum sm__inst_executed.sum \
    smsp__inst_executed_op_shared_atom.sum idc__requests.sum idc__requests_lookup_hit.sum \
    smsp__cycles_active.avg \
    l1tex__m_xbar2l1tex_read_sectors.sum l1tex__m_l1tex2xbar_write_sectors.sum \
    lts__t_sectors_srcunit_tex_op_write_lookup_hit.sum; do
  base=${m%.*}
  if grep -q "^$base " /tmp/metrics.txt; then M="$M,$m"; else echo "no metric $base" >> "$OUT/gpu.txt"; fi
done
M=${M#,}
[ -n "$M" ] || M=gpu__time_duration.sum,lts__t_sectors_srcunit_tex_op_write.sum,dram__bytes_write.sum
echo "metrics: $M" >> "$OUT/gpu.txt"
ncu --metrics "$M" --csv --log-file "$OUT/ncu.csv" python3 benchmarks/hw/serialisation_micro.py /tmp --profile > "$OUT/ncu_run.log" 2>&1
echo "ncu rc=$? rows=$(grep -c '"gpu__time_duration.sum"' "$OUT/ncu.csv")"
tail -n 3 "$OUT/ncu_run.log"
python3 - "$OUT" <<'PY'
import json, sys
d = json.load(open(sys.argv[1] + "/serialisation.json"))
for r in d["cases"]:
    v = r.get("ns_per_warp_instruction_per_sm")
    print(f"{r['case']:26} {r['median_ms']:9.4f} ms" + (f" {v:7.3f} ns/warp-instr/SM" if v else ""))
PY
