#!/usr/bin/env bash
# Which guarded shared-memory accesses does ptxas turn into predicated LDS/STS (SASS '@P STS')
# rather than a branch around them? The H100's smsp__inst_executed_op_shared_{ld,st} count a
# predicated access for every warp that reaches it, lanes on or not, where perfcalc counts the
# warps with a lane inside the PTX's branch. One device call: every .cu of our PTX corpus
# (tests/data/cuda_corpus, tests/data/cuda) and of the HeCBench programs whose shared request
# counts differ that way (copied from the ignored .corpus/ into the ignored .corpus_sass/, sources
# only), compiled for sm_90 with the machine's nvcc (-O3); writes, per file, the PTX and the SASS
# under $OUT/ifconvert/, and a log of what did not compile.
set -u
cd "$(dirname "$0")/../.."
out=$OUT/ifconvert; mkdir -p "$out"
one() {  # folder file name
  local dir=$1 file=$2 name=$3
  if nvcc -arch=sm_90 -O3 -std=c++17 --extended-lambda -cubin -I"$dir" "$file" -o "$out/$name.cubin" 2>> "$out/errors.log"; then
    cuobjdump -sass "$out/$name.cubin" > "$out/$name.sass.txt"
    nvcc -arch=sm_90 -O3 -std=c++17 --extended-lambda -ptx -I"$dir" "$file" -o "$out/$name.ptx" 2>> "$out/errors.log"
    rm -f "$out/$name.cubin"
  else
    echo "FAILED $file" >> "$out/errors.log"
  fi
}
for f in tests/data/cuda_corpus/*.cu tests/data/cuda/*.cu; do
  one "$(dirname "$f")" "$f" "ours_$(basename "$f" .cu)" &
  [ "$(jobs -r | wc -l)" -ge 14 ] && wait -n
done
for d in .corpus_sass/*/; do
  p=$(basename "$d")
  for f in "$d"*.cu; do
    grep -q '__global__' "$f" "$d"*.h 2>/dev/null || continue
    one "$d" "$f" "hec_${p}_$(basename "$f" .cu)" &
    [ "$(jobs -r | wc -l)" -ge 14 ] && wait -n
  done
done
wait
nvcc --version | tail -2 > "$out/nvcc.txt"
ls "$out" | wc -l
