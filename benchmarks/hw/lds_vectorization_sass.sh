#!/usr/bin/env bash
# Does ptxas merge a register tile's scalar shared loads (PTX ld.shared.f32 at [r], [r+4], ...)
# into LDS.64/LDS.128? One device call: the example GEMM at two points of its sweep (the H100's
# fastest, BM64 BN64 BK16 TM4 TN4, and the committed pick, BM64 BN32 BK8 TM4 TN2) and HeCBench's
# aidw (carried from the ignored .corpus/), compiled for sm_90 with the machine's nvcc; counts the
# PTX loads and the SASS LDS instructions by width. Writes $OUT/lds.txt and the SASS listings.
set -u
cd "$(dirname "$0")/../.."
out=$OUT/lds; mkdir -p "$out"
report() {  # name ptx sass
  {
    echo "== $1"
    echo "PTX ld.shared: $(grep -c 'ld\.shared' "$2")  (.v2: $(grep -c 'ld\.shared\.v2' "$2"), .v4: $(grep -c 'ld\.shared\.v4' "$2"))"
    for w in "LDS " "LDS.U8" "LDS.64" "LDS.128"; do echo "SASS $w: $(grep -c "$w" "$3")"; done
  } >> "$out/lds.txt"
}
for cfg in "64 64 16 4 4" "64 32 8 4 2"; do
  set -- $cfg; name="gemm_tiled_BM$1_BN$2_BK$3_TM$4_TN$5"
  flags="-DBM=$1 -DBN=$2 -DBK=$3 -DTM=$4 -DTN=$5"
  nvcc -arch=sm_90 -ptx $flags examples/tune/gemm_tiled.cu -o "$out/$name.ptx"
  nvcc -arch=sm_90 -cubin $flags examples/tune/gemm_tiled.cu -o "$out/$name.cubin"
  cuobjdump -sass "$out/$name.cubin" > "$out/$name.sass.txt"
  report "$name" "$out/$name.ptx" "$out/$name.sass.txt"
done
src=.corpus/HeCBench/src/aidw-cuda
if [ -d "$src" ]; then
  nvcc -arch=sm_90 -ptx -I"$src" "$src/main.cu" -o "$out/aidw.ptx"
  nvcc -arch=sm_90 -cubin -I"$src" "$src/main.cu" -o "$out/aidw.cubin"
  cuobjdump -sass "$out/aidw.cubin" > "$out/aidw.sass.txt"
  report aidw "$out/aidw.ptx" "$out/aidw.sass.txt"
fi
rm -f "$out"/*.cubin
cat "$out/lds.txt"
