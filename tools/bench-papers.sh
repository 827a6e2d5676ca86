#!/usr/bin/env bash
# The benchmark table of the memory-hierarchy passes (issue 9): Tessel's own versions of
# paper 000's benchmarks (bench/kernels: matrix transpose, gemm, matrix-vector product,
# 5x5 blur on unsigned char, hotspot, 2-D Jacobi, 3-D Poisson), built with the default
# pipeline and with the naive one (one thread per iteration, no tiling, no shared
# memory), run on sim for each GPU model; one row per program and the geomean of the
# estimated speedups of default over naive.
#
#   tools/bench-papers.sh                 # gtx690, h100 and a100
#   GPUS=gtx690 tools/bench-papers.sh     # one model
#   tools/bench-papers.sh --json          # tessel-bench's JSON rows instead
#
# TESSEL_BENCH names the tessel-bench binary (default: target/debug/tessel-bench, or the
# one on PATH).
set -euo pipefail
cd "$(dirname "$0")/.."
bench=${TESSEL_BENCH:-target/debug/tessel-bench}
[ -x "$bench" ] || bench=tessel-bench
for gpu in ${GPUS:-gtx690 h100 a100}; do
  echo "== $gpu"
  "$bench" bench/kernels/*.c -I bench/kernels --gpu="$gpu" --per-program --baseline=naive "$@"
done
