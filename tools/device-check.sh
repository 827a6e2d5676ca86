#!/bin/bash
# Checks Tessel's programs on a lent NVIDIA GPU in one short run, built here.
#
#   tools/device-check.sh build DIR [--gpu G] [--polybench PB]   # here, where tesselc runs
#   tools/device-check.sh run DIR OUT [SECONDS]                  # on the GPU machine
#   tools/device-check.sh table DIR OUT/results.tar.xz           # here, after the run
#
# `build` builds these sets with tools/calibrate.py (each program run on sim's model G,
# default h100, its output and profile kept) and packs the programs, stripped, with sim's
# outputs into DIR/programs.tar.xz (a few MB, to carry to the GPU machine):
#   suite        test/kernels, SMALL_DATASET, default pipeline (ncu: 5 launches each)
#   suite-naive  the same with --pipeline=naive (run and checked, not profiled)
#   bench        bench/kernels at their sizes, default pipeline (ncu)
#   bench-naive  the same with --pipeline=naive (ncu)
#   cuda         test/Cuda's programs (ncu)
#   polybench    with --polybench PB (a PolyBench/C 4.2.1 tree, not in this repository):
#                its 30 kernels, SMALL_DATASET, arrays dumped (run and checked)
# `run` unpacks DIR/programs.tar.xz and runs `calibrate.py measure` on each set (every
# set run and checked first, then the profiled ones under ncu), within SECONDS (default
# 420) in all, packing each set's GPU outputs, measured kernel times and ncu reports into
# OUT/results.tar.xz as it goes (one file, as the device tool brings back only shallow
# folders; the machine's description in OUT/machine.txt). `table` unpacks them into DIR
# and writes DIR/SET.md with `calibrate.py table`,
# then prints per set the programs whose GPU output differs from sim's and the measured
# speedups of the default pipeline over naive.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cal="$here/tools/calibrate.py"
mode=${1:-}; dir=${2:-}
if [ -z "$mode" ] || [ -z "$dir" ]; then
    echo "error: expected a mode (build, run or table) and a directory; usage:" >&2
    sed -n 4,6p "$0" >&2
    exit 1
fi

case "$mode" in
build)
    shift 2
    gpu=h100; pb=
    while [ $# -gt 0 ]; do
        case "$1" in
        --gpu) gpu=$2; shift 2 ;;
        --polybench) pb=$2; shift 2 ;;
        *) echo "error: unknown argument '$1'" >&2; exit 1 ;;
        esac
    done
    tesselc="$here/target/release/tesselc"
    [ -x "$tesselc" ] || { echo "error: build tesselc first (cargo build --release --bins)" >&2; exit 1; }
    mkdir -p "$dir"
    # A program that fails to build or run on sim is reported and left out.
    b() { python3 "$cal" build --tesselc "$tesselc" --gpu "$gpu" "$@" || echo "warning: $*: failed" >&2; }
    b --dir "$dir/suite" --launches 5 -I "$here/test/kernels" -D SMALL_DATASET "$here"/test/kernels/*.c
    b --dir "$dir/suite-naive" --no-ncu --flag=--pipeline=naive -I "$here/test/kernels" -D SMALL_DATASET "$here"/test/kernels/*.c
    b --dir "$dir/bench" -I "$here/bench/kernels" "$here"/bench/kernels/*.c
    b --dir "$dir/bench-naive" --flag=--pipeline=naive -I "$here/bench/kernels" "$here"/bench/kernels/*.c
    b --dir "$dir/cuda" $(ls "$here"/test/Cuda/*.cu | grep -v /intrinsics.cu)
    # intrinsics.cu checks its results against a host-side reference of its own.
    b --dir "$dir/cuda" --link "$here/test/Cuda/Inputs/gold.cpp" "$here/test/Cuda/intrinsics.cu"
    if [ -n "$pb" ]; then
        for f in $(find "$pb" -name '*.c' \( -path '*/linear-algebra/*' -o -path '*/datamining/*' \
                -o -path '*/stencils/*' -o -path '*/medley/*' \) | sort); do
            b --dir "$dir/polybench" --no-ncu -I "$pb/utilities" -I "$(dirname "$f")" \
                -D SMALL_DATASET -D POLYBENCH_DUMP_ARRAYS --link "$pb/utilities/polybench.c" "$f"
        done
    fi
    for s in "$dir"/*/bin; do strip -s "$s"/*; done
    (cd "$dir" && tar cf - */bin */sim/*.out */sim/*.meta | xz -9 -T2 > programs.tar.xz)
    ls -la "$dir/programs.tar.xz"
    ;;
run)
    out=${3:?OUT}; budget=${4:-420}
    start=$(date +%s)
    work=$(mktemp -d)
    tar xJf "$dir/programs.tar.xz" -C "$work"
    mkdir -p "$out" "$work/res"
    { nvidia-smi || true; ncu --version || true; } > "$out/machine.txt" 2>&1
    # Every set run and checked first, then the profiled ones under ncu, the largest last.
    measure() {  # SET FLAG LAUNCHES
        local s=$1 left=$((budget - ($(date +%s) - start)))
        [ -d "$work/$s" ] || return 0
        [ "$left" -gt 5 ] || { echo "$s $2: no time left" | tee -a "$work/res/skipped.txt"; return 0; }
        echo "== $s $2 ($left s left)"
        timeout "$left" python3 "$cal" measure --dir "$work/$s" "$2" --launches "$3" --timeout 60 \
            2>> "$work/$s.log" || echo "$s $2: measure stopped (exit $?)" | tee -a "$work/res/skipped.txt"
        mkdir -p "$work/res/$s"
        cp -r "$work/$s/gpu" "$work/$s/ncu" "$work/$s.log" "$work/res/$s/" 2>/dev/null || true
        tar cJf "$out/results.tar.xz" -C "$work/res" .
        grep -v "same as sim" "$work/$s.log" | tail -n 5 || true
    }
    for s in suite suite-naive bench bench-naive cuda polybench; do measure $s --no-ncu 20; done
    for s in bench bench-naive cuda; do measure $s --only-ncu 20; done
    measure suite --only-ncu 5
    ;;
table)
    out=$(mktemp -d)
    trap 'rm -rf "$out"' EXIT
    tar xJf "${3:?OUT/results.tar.xz}" -C "$out"
    sets=
    for s in suite suite-naive polybench bench bench-naive cuda; do
        [ -d "$out/$s" ] || continue
        sets="$sets $s"
        rm -rf "$dir/$s/gpu" "$dir/$s/ncu"
        cp -r "$out/$s/gpu" "$dir/$s/" 2>/dev/null || true
        cp -r "$out/$s/ncu" "$dir/$s/" 2>/dev/null || true
    done
    for s in $sets; do
        python3 "$cal" table --dir "$dir/$s" --out "$dir/$s.md" || true
        python3 - "$dir" "$s" <<'EOF'
import json, math, os, sys
d, s = sys.argv[1], sys.argv[2]
r = json.load(open(os.path.join(d, s, "gpu", "results.json")))
bad = {k: v for k, v in r.items() if v != "same as sim"}
print(f"{s}: {len(r) - len(bad)} of {len(r)} programs print on the GPU what they print on sim")
for k, v in sorted(bad.items()):
    print(f"  {k}: {v}")
def times(set_):
    g = os.path.join(d, set_, "gpu")
    t = {}
    for f in os.listdir(g) if os.path.isdir(g) else []:
        if f.endswith(".json") and f != "results.json":
            launches = json.load(open(os.path.join(g, f)))
            t[f[:-5]] = sum(l.get("measured_time_s") or 0 for l in launches)
    return t
if os.path.isdir(os.path.join(d, s + "-naive")):
    a, b = times(s), times(s + "-naive")
    both = sorted(k for k in a if k in b and a[k] > 0 and b[k] > 0)
    for k in both:
        print(f"  {k}: default {a[k] * 1e6:.1f} us, naive {b[k] * 1e6:.1f} us, {b[k] / a[k]:.2f}x")
    if both:
        g = math.exp(sum(math.log(b[k] / a[k]) for k in both) / len(both))
        print(f"{s}: measured speedup of default over naive, geomean over {len(both)}: {g:.2f}x")
EOF
    done
    ;;
*)
    echo "error: unknown mode '$mode' (build, run or table)" >&2; exit 1 ;;
esac
