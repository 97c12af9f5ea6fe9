#!/usr/bin/env bash
# The SASS of the HeCBench programs whose flops or shared requests differ most from perfcalc's
# (shared float atomics, math-library calls): sources copied into the ignored .corpus_sass2/;
# each .cu compiled for sm_90 with the machine's nvcc (-O3), PTX and cuobjdump -sass kept in
# $OUT/flops_sass.tar.xz. One device call.
set -u
cd "$(dirname "$0")/../.."
out=$OUT/flops_sass; mkdir -p "$out"
for d in .corpus_sass2/*/; do
  p=$(basename "$d")
  for f in "$d"*.cu; do
    name="${p}_$(basename "$f" .cu)"
    if nvcc -arch=sm_90 -O3 -std=c++17 -cubin -I"$d" "$f" -o "$out/$name.cubin" 2>> "$out/errors.log"; then
      cuobjdump -sass "$out/$name.cubin" > "$out/$name.sass.txt"
      nvcc -arch=sm_90 -O3 -std=c++17 -ptx -I"$d" "$f" -o "$out/$name.ptx" 2>> "$out/errors.log"
      rm -f "$out/$name.cubin"
    else
      echo "FAILED $f" >> "$out/errors.log"
    fi &
  done
done
wait
cd "$OUT" && tar cJf flops_sass.tar.xz flops_sass && rm -rf flops_sass && ls -la
