#!/usr/bin/env bash
# Device side (second call): the SASS nvcc 13 makes of each catalog kernel (what the hardware
# counters count), and the seed's out-of-bounds convolve under memcheck with padding after each
# allocation (without it, input[N] lands in the next allocation and memcheck sees nothing).
set -u
cd "$(dirname "$0")/../.."
export PYTHONPATH="/tmp/site:${PYTHONPATH:-}"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>&1 | tail -1
mkdir -p /tmp/sass
python3 - <<'PY'
import sys; sys.path.insert(0, ".")
from perfcalc.specs.kernels import catalog
for name, spec in catalog().items():
    defs = "".join(f"#define {d} 16\n" for d in spec.defines)
    open(f"/tmp/sass/{name}.cu", "w").write(defs + spec.source)
PY
for f in /tmp/sass/*.cu; do
  n=$(basename "$f" .cu)
  nvcc -arch=sm_90 -cubin -o "/tmp/sass/$n.cubin" "$f" && cuobjdump -sass "/tmp/sass/$n.cubin" > "/tmp/sass/$n.sass"
  echo "== $n: $(grep -oE '(LDS|STS|LDG|STG|BAR|MUFU)[A-Z0-9.]*' "/tmp/sass/$n.sass" | sort | uniq -c | tr -s ' ' | tr '\n' ';')"
done > "$OUT/sass_summary.txt"
cat /tmp/sass/*.sass > "$OUT/sass_all.txt"
compute-sanitizer --tool memcheck --padding 1024 python3 benchmarks/hw/sanitize_on_h100.py memcheck convolve_seed > "$OUT/san_memcheck_padded_convolve_seed.txt" 2>&1
compute-sanitizer --tool memcheck --padding 1024 python3 benchmarks/hw/sanitize_on_h100.py memcheck convolve_fixed > "$OUT/san_memcheck_padded_convolve_fixed.txt" 2>&1
cat "$OUT/sass_summary.txt"; tail -n 12 "$OUT"/san_memcheck_padded_*.txt
