// tessel-ilp-unroll with a scalar private to each point (a dot product accumulated in a
// local scalar, as C's `acc` in gemm): when a thread runs its 4 (or 2) points side by
// side, each point gets its own copy of the scalar (paper 000 Algorithm 1's array
// expansion of live locals); the points do not share one. The optimized module prints
// what the original prints.
// With coarsen=4 every thread takes 4 points at run time (the 4-point version runs).
// RUN: tessel-opt %s --tessel-optimize 2>/dev/null | FileCheck %s
// RUN: tessel-run %s --device=sim | FileCheck %s --check-prefix=OUT
// RUN: tessel-opt %s --tessel-detect-scops --tessel-schedule --tessel-tile --tessel-promote-shared --tessel-pad-banks --tessel-map-to-gpu=coarsen=4 --tessel-promote-registers --tessel-ilp-unroll -o %t.mlir 2>/dev/null
// RUN: tessel-run %t.mlir --device=sim | FileCheck %s --check-prefix=OUT

// CHECK-LABEL: func.func @dot(
// CHECK: gpu.launch
// The thread's scalar (for the loop that runs one point at a time)...
// CHECK-NEXT: memref.alloca() : memref<f32>
// ...and in the 4-point version four, each point storing into its own.
// CHECK: %[[S0:.*]] = memref.alloca() : memref<f32>
// CHECK-NEXT: %[[S1:.*]] = memref.alloca() : memref<f32>
// CHECK-NEXT: %[[S2:.*]] = memref.alloca() : memref<f32>
// CHECK-NEXT: %[[S3:.*]] = memref.alloca() : memref<f32>
// CHECK: memref.store %{{.*}}, %[[S0]][] : memref<f32>
// CHECK-NEXT: memref.store %{{.*}}, %[[S1]][] : memref<f32>
// CHECK-NEXT: memref.store %{{.*}}, %[[S2]][] : memref<f32>
// CHECK-NEXT: memref.store %{{.*}}, %[[S3]][] : memref<f32>
// The 2-point version: two.
// CHECK: %[[T0:.*]] = memref.alloca() : memref<f32>
// CHECK-NEXT: %[[T1:.*]] = memref.alloca() : memref<f32>
// CHECK: memref.store %{{.*}}, %[[T0]][] : memref<f32>
// CHECK-NEXT: memref.store %{{.*}}, %[[T1]][] : memref<f32>
func.func @dot(%A: memref<128x64xf32>, %B: memref<64x128xf32>, %C: memref<128x128xf32>) {
  tpoly.scop {
    %acc = memref.alloca() : memref<f32>
    affine.for %i = 0 to 128 {
      affine.for %j = 0 to 128 {
        %z = arith.constant 0.0 : f32
        affine.store %z, %acc[] : memref<f32>
        affine.for %k = 0 to 64 {
          %a = affine.load %A[%i, %k] : memref<128x64xf32>
          %b = affine.load %B[%k, %j] : memref<64x128xf32>
          %m = arith.mulf %a, %b : f32
          %s = affine.load %acc[] : memref<f32>
          %n = arith.addf %s, %m : f32
          affine.store %n, %acc[] : memref<f32>
        }
        %r = affine.load %acc[] : memref<f32>
        affine.store %r, %C[%i, %j] : memref<128x128xf32>
      }
    }
  }
  return
}

// C[i][j] = sum_k ((i + k) mod 7) * ((k + 2j) mod 5): rows 0..3, one thread's 4 points.
// OUT: 366
// OUT-NEXT: 380
// OUT-NEXT: 387
// OUT-NEXT: 387
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %A = memref.alloc() : memref<128x64xf32>
  %B = memref.alloc() : memref<64x128xf32>
  %C = memref.alloc() : memref<128x128xf32>
  scf.for %i = %c0 to %c128 step %c1 {
    scf.for %k = %c0 to %c64 step %c1 {
      %s = arith.addi %i, %k : index
      %m = arith.remui %s, %c7 : index
      %w = arith.index_cast %m : index to i32
      %f = arith.sitofp %w : i32 to f32
      memref.store %f, %A[%i, %k] : memref<128x64xf32>
      %j2 = arith.muli %i, %c2 : index
      %t = arith.addi %k, %j2 : index
      %q = arith.remui %t, %c5 : index
      %v = arith.index_cast %q : index to i32
      %g = arith.sitofp %v : i32 to f32
      memref.store %g, %B[%k, %i] : memref<64x128xf32>
    }
  }
  func.call @dot(%A, %B, %C) : (memref<128x64xf32>, memref<64x128xf32>, memref<128x128xf32>) -> ()
  %r0 = memref.load %C[%c0, %c5] : memref<128x128xf32>
  func.call @tessel_print_f32(%r0) : (f32) -> ()
  %r1 = memref.load %C[%c1, %c5] : memref<128x128xf32>
  func.call @tessel_print_f32(%r1) : (f32) -> ()
  %r2 = memref.load %C[%c2, %c5] : memref<128x128xf32>
  func.call @tessel_print_f32(%r2) : (f32) -> ()
  %r3 = memref.load %C[%c3, %c5] : memref<128x128xf32>
  func.call @tessel_print_f32(%r3) : (f32) -> ()
  return
}
func.func private @tessel_print_f32(f32)
