// tessel-opt runs upstream passes by flag and by pipeline, splits input, prints IR
// after passes, and reads standard input.
// RUN: tessel-opt %s --canonicalize --cse | FileCheck %s
// RUN: tessel-opt %s --pass-pipeline='builtin.module(func.func(canonicalize, cse))' | FileCheck %s
// RUN: tessel-opt %s --canonicalize --mlir-print-ir-after=canonicalize -o /dev/null 2>&1 | FileCheck %s --check-prefix=DUMP
// RUN: cat %s | tessel-opt - --canonicalize | FileCheck %s
// RUN: tessel-opt %s --affine-loop-tile="tile-size=4" | FileCheck %s --check-prefix=TILE

// CHECK-LABEL: func.func @fold
// CHECK-NEXT: %[[C:.*]] = arith.constant 5 : i32
// CHECK-NEXT: return %[[C]]
func.func @fold() -> i32 {
  %a = arith.constant 2 : i32
  %b = arith.constant 3 : i32
  %c = arith.addi %a, %b : i32
  return %c : i32
}

// DUMP: // -----// IR Dump After canonicalize //----- //
// DUMP: func.func @fold

// TILE-LABEL: func.func @loop
// TILE: affine.for %{{.*}} = 0 to 64 step 4
func.func @loop(%m: memref<64xf32>) {
  affine.for %i = 0 to 64 {
    %v = affine.load %m[%i] : memref<64xf32>
    affine.store %v, %m[%i] : memref<64xf32>
  }
  return
}
