#!/usr/bin/env bash
# The README's pictures, made by perfcalc itself (needs the 'plot' extra). Run from the checkout.
set -euo pipefail
cd "$(dirname "$0")"
perfcalc roofline --gpu h100-sxm -k matmul_tiled -k matmul_naive -p Width=1024 --plot roofline-h100.png --dpi 100 >/dev/null
perfcalc occupancy --cc 8.6 --block 256 --regs 40 --smem 8192 --sweep all --plot occupancy-8.6.png --dpi 100 >/dev/null
perfcalc coalesce --pattern stride --stride 2 --plot coalesce-stride2.png --dpi 100 >/dev/null
perfcalc banks --stride 2 --plot banks-stride2.png --dpi 100 >/dev/null
perfcalc run transpose_shared --cc 9.0 --plot run-transpose_shared.png --dpi 100 >/dev/null
