#!/usr/bin/env bash
# Builds public CUDA benchmark suites with tesselc and runs each program on sim, printing
# how each ended: its own CPU-versus-GPU check, or the build or run error. The suites are
# fetched by the user and stay outside this repository; this script works on a copy.
#
# usage:
#   tools/cuda-suites.sh polybench-gpu DIR   # github.com/sgrauerg/polybenchGpu checkout
#                                            # (its CUDA/ programs, sizes set to $SIZE,
#                                            # default 256, time steps to 2)
#   tools/cuda-suites.sh polybench-acc DIR   # github.com/cavazos-lab/PolyBench-ACC
#                                            # (its CUDA/ programs at -D$DATASET, default
#                                            # MINI_DATASET)
#   tools/cuda-suites.sh cuda-samples DIR SAMPLE...   # github.com/NVIDIA/cuda-samples;
#                                            # SAMPLE as Samples/0_Introduction/vectorAdd
#
# Environment: TESSELC (default: tesselc on PATH), TIMEOUT per program run in seconds
# (default 300). Exit status 0; the summary lines are the result.
set -uo pipefail

suite=${1:?usage: tools/cuda-suites.sh polybench-gpu|polybench-acc|cuda-samples DIR [SAMPLE...]}
src=$(cd "${2:?missing the suite directory}" && pwd)
shift 2
TESSELC=${TESSELC:-tesselc}
TIMEOUT=${TIMEOUT:-300}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# run NAME DIR EXE: runs a built program in DIR on sim; prints its check lines.
run() {
  local name=$1 dir=$2 exe=$3
  if ! (cd "$dir" && TESSEL_DEVICE=sim timeout "$TIMEOUT" "$exe" > "$work/$name.run" 2>&1); then
    echo "$name: RUN FAIL: $(grep -m1 -i 'error\|fail' "$work/$name.run" || echo "timeout or exit status")"
    return
  fi
  echo "$name: $(grep -i 'non-matching\|misses\|pass\|fail\|returned' "$work/$name.run" | head -2 | tr '\n' ' ')"
}

# build NAME EXE ARGS...: builds with tesselc; prints the first error on failure.
build() {
  local name=$1 exe=$2
  shift 2
  if ! "$TESSELC" "$@" -o "$exe" > "$work/$name.build" 2>&1; then
    echo "$name: BUILD FAIL: $(grep -m1 'error' "$work/$name.build")"
    return 1
  fi
}

case $suite in
  polybench-gpu)
    cp -r "$src" "$work/suite"
    cd "$work/suite/CUDA"
    for d in */; do
      d=${d%/}
      cu=$(ls "$d"/*.cu | head -1)
      for h in "$d"/*.cuh; do
        [ -e "$h" ] || continue
        sed -i -E "/DIM|BLOCK|THREAD/!{s/^(# *define +(TSTEPS|TMAX|T|ITER[A-Z_]*) +)[0-9]+ *$/\12/; s/^(# *define +[A-Z_]+ +)[0-9]{2,} *$/\1${SIZE:-256}/}" "$h"
      done
      build "$d" "$work/$d.exe" "$cu" -I "$d" && run "$d" "$d" "$work/$d.exe"
    done
    ;;
  polybench-acc)
    cd "$src/CUDA"
    for cu in $(find . -name '*.cu' | sort); do
      d=$(dirname "$cu")
      n=$(basename "$d")
      build "$n" "$work/$n.exe" "$cu" -I utilities -I "$d" "-D${DATASET:-MINI_DATASET}" \
        && run "$n" "$d" "$work/$n.exe"
    done
    ;;
  cuda-samples)
    cd "$src/Samples" 2>/dev/null || cd "$src"
    for s in "$@"; do
      s=${s#Samples/}
      n=$(basename "$s")
      build "$n" "$work/$n.exe" $(ls "$s"/*.cu "$s"/*.cpp 2>/dev/null) -I ../Common -I "$s" \
        && run "$n" "$s" "$work/$n.exe"
    done
    ;;
  *)
    echo "unknown suite '$suite' (polybench-gpu, polybench-acc or cuda-samples)" >&2
    exit 1
    ;;
esac
