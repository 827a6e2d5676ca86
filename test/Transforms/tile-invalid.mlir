// RUN: tessel-opt %s --split-input-file --verify-diagnostics --tessel-tile
// RUN: not tessel-opt %s --tessel-tile=sizes=32,0 2>&1 | FileCheck %s --check-prefix=SIZES
// RUN: not tessel-opt %s --tessel-tile=sizes=big 2>&1 | FileCheck %s --check-prefix=SIZES
// SIZES: error: 'tessel-tile' option sizes={{.*}}: expected positive integers separated by commas

// A band whose second member is not alone in the loop above it (written by hand: isl
// gives a band perfectly nested loops) is tiled in its first member only.
func.func @imperfect(%A: memref<64x64xf32>, %B: memref<64xf32>) {
  tpoly.scop {
    // expected-remark @+1 {{band tiled in its first member only: the next member is not the only operation in the loop above it}}
    affine.for %i = 0 to 64 {
      %b = affine.load %B[%i] : memref<64xf32>
      affine.store %b, %B[%i] : memref<64xf32>
      affine.for %j = 0 to 64 {
        %v = affine.load %A[%i, %j] : memref<64x64xf32>
        affine.store %v, %A[%i, %j] : memref<64x64xf32>
      } {tpoly.band = 0 : i64, tpoly.member = 1 : i64, tpoly.coincident, tpoly.permutable}
    } {tpoly.band = 0 : i64, tpoly.member = 0 : i64, tpoly.coincident, tpoly.permutable}
  }
  return
}
