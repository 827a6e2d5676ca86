#!/usr/bin/env bash
# Sets up everything (idempotent), builds Tessel and compiles one kernel of the suite
# through every stage, printing what each produced. Usage: tools/run-example.sh [KERNEL.c]
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
cargo build --release -q
K=${1:-test/kernels/gemm.c}
OUT=$(mktemp -d)
TC=target/release/tesselc
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
echo "  outputs in $OUT"
