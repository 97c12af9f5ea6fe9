#!/usr/bin/env bash
# The SASS of the calibration-half HeCBench programs whose counters still differ from the H100's
# after the twelfth sitting's changes (kalman, scan, kurtosis, surfel, entropy, particlefilter,
# adamw, stddev, filter, keogh, clock, depixel, s3d, particles; sources copied into the ignored
# .corpus_sass3/), listings in $OUT/remaining_sass.tar.xz. Part of one device call.
exec "$(dirname "$0")/sass_listings.sh" .corpus_sass3 remaining_sass
