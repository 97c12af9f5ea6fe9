#!/usr/bin/env bash
# PTX and SASS of HeCBench programs copied into an ignored folder (usage: sass_listings.sh
# FOLDER NAME): each .cu compiled for sm_90 with the machine's nvcc, -O3, -std=c++17 and the
# Makefile's -use_fast_math where its build has it; PTX and cuobjdump -sass kept in
# $OUT/NAME.tar.xz. Run on the device machine (flops_sass.sh and remaining_sass.sh name theirs).
set -u
cd "$(dirname "$0")/../.."
folder=$1; name=$2
out=$OUT/$name; mkdir -p "$out"
for d in "$folder"/*/; do
  p=$(basename "$d")
  fast=$(make -n -B -C "$d" 2>/dev/null | grep -o -- '-use_fast_math' | head -1)
  for f in "$d"*.cu; do
    unit="${p}_$(basename "$f" .cu)"
    if nvcc -arch=sm_90 -O3 -std=c++17 $fast -cubin -I"$d" "$f" -o "$out/$unit.cubin" 2>> "$out/errors.log"; then
      cuobjdump -sass "$out/$unit.cubin" > "$out/$unit.sass.txt"
      nvcc -arch=sm_90 -O3 -std=c++17 $fast -ptx -I"$d" "$f" -o "$out/$unit.ptx" 2>> "$out/errors.log"
      rm -f "$out/$unit.cubin"
    else
      echo "FAILED $f" >> "$out/errors.log"
    fi &
  done
done
wait
(cd "$OUT" && tar cJf "$name.tar.xz" "$name" && rm -rf "$name")
