#!/usr/bin/env bash
# Sets up everything (idempotent), builds Tessel, compiles one kernel of the suite
# through every stage printing what each produced, builds it as a whole program, runs it
# on the default device (a GPU when one is present, else sim) against the same program
# built by clang, and prints its per-kernel figures.
# Usage: tools/run-example.sh [KERNEL.c] [extra C flags, e.g. -DSMALL_DATASET]
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
cargo build -q
K=${1:-test/kernels/gemm.c}
shift || true
FLAGS=("$@")
OUT=$(mktemp -d)
BIN=target/debug
INC=(-I "$(dirname "$K")")
echo "== $K ${FLAGS[*]:-}"
for emit in mlir gpu ptx cubin amdgcn hsaco llvm obj; do
  start=$(date +%s%N)
  $BIN/tesselc "$K" "${INC[@]}" "${FLAGS[@]}" --emit=$emit -o "$OUT/k.$emit"
  end=$(date +%s%N)
  printf '  --emit=%-7s %8d bytes  %5d ms\n' "$emit" "$(stat -c %s "$OUT/k.$emit")" $(( (end - start) / 1000000 ))
done
echo "  kernels launched: $(grep -c 'gpu.launch ' "$OUT/k.gpu")"
echo "  PTX entry points: $(grep -c '^.visible .entry' "$OUT/k.ptx")"
# The schedule's loops and each kernel's mapping, as tesselc -v traces them.
$BIN/tesselc "$K" "${INC[@]}" "${FLAGS[@]}" --emit=gpu -v -o /dev/null 2>&1 \
  | sed -n -E 's/.*: (schedule: .*|mapping: .*)$/  \1/p' || true
echo "== whole program: tesselc $K -o $OUT/prog"
$BIN/tesselc "$K" "${INC[@]}" "${FLAGS[@]}" -o "$OUT/prog"
clang-22 -w "${INC[@]}" "${FLAGS[@]}" "$K" -lm -o "$OUT/prog.clang"
"$OUT/prog.clang" 2> "$OUT/want.txt"
start=$(date +%s%N)
TESSEL_VERBOSE=1 TESSEL_PROFILE="$OUT/profile.json" "$OUT/prog" 2> "$OUT/got.txt"
end=$(date +%s%N)
grep '^tessel:' "$OUT/got.txt" | sed 's/^/  /'
printf '  ran in %d ms; ' $(( (end - start) / 1000000 ))
grep -v '^tessel:' "$OUT/got.txt" > "$OUT/got.arrays" || true
python3 test/utils/differential.py --numdiff "$OUT/want.txt" "$OUT/got.arrays"
echo "== figures (tessel-bench, baseline: the naive pipeline, one thread per iteration)"
$BIN/tessel-bench "$K" "${INC[@]}" "${FLAGS[@]}" --device=auto --baseline=naive 2>&1 | sed 's/^/  /'
echo "  outputs in $OUT (profile.json: one JSON object per launch)"
