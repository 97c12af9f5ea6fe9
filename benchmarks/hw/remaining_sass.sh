#!/usr/bin/env bash
# The SASS of the calibration-half HeCBench programs whose counters still differ from the H100's
# after the twelfth sitting's changes (kalman, scan, kurtosis, surfel, entropy, particlefilter,
# adamw, stddev, filter, keogh, clock, depixel, s3d, particles; sources copied into the ignored
# .corpus_sass3/): each .cu compiled for sm_90 with the machine's nvcc, -O3 and the Makefile's
# -use_fast_math where its build has it, PTX and cuobjdump -sass kept in
# $OUT/remaining_sass.tar.xz. Part of one device call (flops_rules_on_gpu.sh's sibling).
set -u
cd "$(dirname "$0")/../.."
out=$OUT/remaining_sass; mkdir -p "$out"
for d in .corpus_sass3/*/; do
  p=$(basename "$d")
  fast=$(make -n -B -C "$d" 2>/dev/null | grep -o -- '-use_fast_math' | head -1)
  for f in "$d"*.cu; do
    name="${p}_$(basename "$f" .cu)"
    if nvcc -arch=sm_90 -O3 -std=c++17 $fast -cubin -I"$d" "$f" -o "$out/$name.cubin" 2>> "$out/errors.log"; then
      cuobjdump -sass "$out/$name.cubin" > "$out/$name.sass.txt"
      nvcc -arch=sm_90 -O3 -std=c++17 $fast -ptx -I"$d" "$f" -o "$out/$name.ptx" 2>> "$out/errors.log"
      rm -f "$out/$name.cubin"
    else
      echo "FAILED $f" >> "$out/errors.log"
    fi &
  done
done
wait
(cd "$OUT" && tar cJf remaining_sass.tar.xz remaining_sass && rm -rf remaining_sass)
