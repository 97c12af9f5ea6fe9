#!/usr/bin/env bash
# The SASS of the HeCBench programs whose flops or shared requests differ most from perfcalc's
# (shared float atomics, math-library calls): sources copied into the ignored .corpus_sass2/
# (scatterAdd, atomicPerf, threadfence, expdist, inversek2j, lif, rodrigues, complex; none builds
# with -use_fast_math), listings in $OUT/flops_sass.tar.xz. One device call.
exec "$(dirname "$0")/sass_listings.sh" .corpus_sass2 flops_sass
