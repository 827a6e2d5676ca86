#!/usr/bin/env bash
# Sets up everything (idempotent), builds Tessel, compiles one kernel of the suite
# through every stage printing what each produced, and runs the mapped kernel on the CPU
# (--emit=emulated) against the same program built by clang. Usage: tools/run-example.sh [KERNEL.c]
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
cargo build -q
K=${1:-test/kernels/gemm.c}
OUT=$(mktemp -d)
TC=target/debug/tesselc
echo "== $K"
for emit in mlir gpu ptx cubin amdgcn hsaco llvm; do
  start=$(date +%s%N)
  $TC "$K" --emit=$emit -o "$OUT/k.$emit"
  end=$(date +%s%N)
  printf '  --emit=%-7s %8d bytes  %5d ms\n' "$emit" "$(stat -c %s "$OUT/k.$emit")" $(( (end - start) / 1000000 ))
done
echo "  kernels launched: $(grep -c 'gpu.launch ' "$OUT/k.gpu")"
echo "  PTX entry points: $(grep -c '^.visible .entry' "$OUT/k.ptx")"
$TC "$K" --emit=gpu -v -o /dev/null 2>&1 | grep -E "parallel loops" | sed 's/^/  /'
echo "  run: no GPU runtime yet; checking the mapped program on the CPU (--emit=emulated) against clang:"
PATH="$PWD/target/debug:$PATH" python3 test/utils/differential.py "$(dirname "$K")" "$K" | sed 's/^/    /'
echo "  outputs in $OUT"
