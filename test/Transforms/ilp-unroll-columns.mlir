// RUN: tessel-opt %s --pass-pipeline='builtin.module(tessel-detect-scops, tessel-schedule, tessel-tile)' | FileCheck %s --check-prefix=RULE
// RUN: tessel-opt %s --pass-pipeline='builtin.module(tessel-detect-scops, tessel-schedule, tessel-share, tessel-tile{sizes=8,128}, tessel-promote-shared, tessel-pad-banks, tessel-map-to-gpu, tessel-promote-registers, tessel-ilp-unroll)' --cse 2>/dev/null | FileCheck %s
// RUN: tessel-opt %s --pass-pipeline='builtin.module(tessel-detect-scops, tessel-schedule, tessel-share, tessel-tile{sizes=8,128}, tessel-promote-shared, tessel-pad-banks, tessel-map-to-gpu, tessel-promote-registers, tessel-ilp-unroll)' -o %t.mlir 2>/dev/null
// RUN: tessel-run %t.mlir --device=sim | FileCheck %s --check-prefix=OUT
// RUN: tessel-run %s --device=sim | FileCheck %s --check-prefix=OUT
// Stencils over arrays narrower than a word (8-bit pixels, 16-bit values) whose
// neighbouring points along x read the same elements. tessel-tile's rule widens thread
// x's tile to a word's worth of elements per thread (128 columns of i8, 64 of i16)
// where the grid keeps 4 (2) x 64 blocks; 4-byte elements, a point that reads one
// column, a store of 4-byte elements along x (whose warps would span 4 times the
// lines) and a grid that would keep too few blocks keep 32. tessel-ilp-unroll then
// runs a thread's points of a full tile as consecutive columns (4t .. 4t + 3) rather
// than 32 apart, so that they share their loads: after cse, a row of 4 points of the
// 3-wide filter @rows reads 6 elements where 4 threads read 12. The last tile of a row
// (columns 256 to 298, partial) runs a column per point as before.

// RULE-LABEL: func.func @wide8(
// RULE: tpoly.scop tile_sizes [32, 128]
// RULE-LABEL: func.func @wide16(
// RULE: tpoly.scop tile_sizes [32, 64]
// RULE-LABEL: func.func @wide32(
// RULE: tpoly.scop tile_sizes [32, 32]
// RULE-LABEL: func.func @few8(
// RULE: tpoly.scop tile_sizes [32, 32]
// RULE-LABEL: func.func @tofloat(
// RULE: tpoly.scop tile_sizes [32, 32]
// RULE-LABEL: func.func @point8(
// RULE: tpoly.scop tile_sizes [32, 32]

// CHECK-LABEL: func.func @rows(
// CHECK: gpu.launch
// CHECK-SAME: threads(%[[TX:[^,]*]], %{{.*}}) in (%{{.*}} = %c32,
// A full tile of 128 columns (the span 4 x 32)...
// CHECK: %[[LO:.*]] = arith.maxsi %{{.*}}, %c1 : index
// CHECK: %[[SPAN:.*]] = arith.subi %{{.*}}, %[[LO]] : index
// CHECK: %[[FULL:.*]] = arith.cmpi eq, %[[SPAN]], %{{.*}} : index
// CHECK-NEXT: scf.if %[[FULL]] {
// ...where thread x takes columns 4t .. 4t + 3:
// CHECK-NEXT: %[[T4:.*]] = arith.muli %[[TX]], %c4 : index
// CHECK-NEXT: %[[T4S:.*]] = arith.muli %[[T4]], %c1 : index
// CHECK-NEXT: %[[X0:.*]] = arith.addi %[[LO]], %[[T4S]] : index
// CHECK-NEXT: %[[X1:.*]] = arith.addi %[[X0]], %c1 : index
// CHECK-NEXT: %[[X2:.*]] = arith.addi %[[X0]], %c2 : index
// CHECK-NEXT: %[[X3:.*]] = arith.addi %[[X0]], %c3 : index
// Column x0 - 1 once; column x0 + 1 of point 0 is point 1's column, and so on:
// CHECK-NEXT: %[[XM:.*]] = arith.addi %[[X0]], %c-1 : index
// CHECK-NEXT: memref.load %{{.*}}[%[[R0:.*]], %[[XM]]] : memref<40x300xi8>
// CHECK-NEXT: memref.load %{{.*}}[%[[R0]], %[[X0]]] : memref<40x300xi8>
// CHECK-NEXT: memref.load %{{.*}}[%[[R0]], %[[X1]]] : memref<40x300xi8>
// CHECK-NEXT: memref.load %{{.*}}[%[[R0]], %[[X2]]] : memref<40x300xi8>
// 4 rows of 6 loads for 16 points:
// CHECK-COUNT-20: memref.load %{{.*}} : memref<40x300xi8>
// CHECK-NOT: memref.load
// CHECK-COUNT-16: memref.store
// Otherwise, a column per point, 32 apart:
// CHECK: } else {
// CHECK-NEXT: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c32 {

// The checksum of B, the same on the host (the module as written) and on sim.
// OUT: 4505253

module {
  func.func @wide8(%A: memref<256x4096xi8>, %B: memref<256x4096xi8>) {
    affine.for %i = 0 to 256 {
      affine.for %j = 1 to 4095 {
        %a = affine.load %A[%i, %j - 1] : memref<256x4096xi8>
        %b = affine.load %A[%i, %j + 1] : memref<256x4096xi8>
        %s = arith.addi %a, %b : i8
        affine.store %s, %B[%i, %j] : memref<256x4096xi8>
      }
    }
    return
  }
  func.func @wide16(%A: memref<256x4096xi16>, %B: memref<256x4096xi16>) {
    affine.for %i = 0 to 256 {
      affine.for %j = 1 to 4095 {
        %a = affine.load %A[%i, %j - 1] : memref<256x4096xi16>
        %b = affine.load %A[%i, %j + 1] : memref<256x4096xi16>
        %s = arith.addi %a, %b : i16
        affine.store %s, %B[%i, %j] : memref<256x4096xi16>
      }
    }
    return
  }
  func.func @wide32(%A: memref<256x4096xf32>, %B: memref<256x4096xf32>) {
    affine.for %i = 0 to 256 {
      affine.for %j = 1 to 4095 {
        %a = affine.load %A[%i, %j - 1] : memref<256x4096xf32>
        %b = affine.load %A[%i, %j + 1] : memref<256x4096xf32>
        %s = arith.addf %a, %b : f32
        affine.store %s, %B[%i, %j] : memref<256x4096xf32>
      }
    }
    return
  }
  func.func @few8(%A: memref<64x4096xi8>, %B: memref<64x4096xi8>) {
    affine.for %i = 0 to 64 {
      affine.for %j = 1 to 4095 {
        %a = affine.load %A[%i, %j - 1] : memref<64x4096xi8>
        %b = affine.load %A[%i, %j + 1] : memref<64x4096xi8>
        %s = arith.addi %a, %b : i8
        affine.store %s, %B[%i, %j] : memref<64x4096xi8>
      }
    }
    return
  }
  func.func @tofloat(%A: memref<256x4096xi8>, %B: memref<256x4096xf32>) {
    affine.for %i = 0 to 256 {
      affine.for %j = 1 to 4095 {
        %a = affine.load %A[%i, %j - 1] : memref<256x4096xi8>
        %b = affine.load %A[%i, %j + 1] : memref<256x4096xi8>
        %s = arith.addi %a, %b : i8
        %f = arith.uitofp %s : i8 to f32
        affine.store %f, %B[%i, %j] : memref<256x4096xf32>
      }
    }
    return
  }
  func.func @point8(%A: memref<256x4096xi8>, %B: memref<256x4096xi8>) {
    affine.for %i = 0 to 256 {
      affine.for %j = 0 to 4096 {
        %a = affine.load %A[%i, %j] : memref<256x4096xi8>
        %s = arith.addi %a, %a : i8
        affine.store %s, %B[%i, %j] : memref<256x4096xi8>
      }
    }
    return
  }
  func.func @rows(%A: memref<40x300xi8>, %B: memref<40x300xi8>) {
    affine.for %i = 0 to 40 {
      affine.for %j = 1 to 299 {
        %a = affine.load %A[%i, %j - 1] : memref<40x300xi8>
        %b = affine.load %A[%i, %j] : memref<40x300xi8>
        %c = affine.load %A[%i, %j + 1] : memref<40x300xi8>
        %x = arith.extui %a : i8 to i32
        %y = arith.extui %b : i8 to i32
        %z = arith.extui %c : i8 to i32
        %s0 = arith.addi %x, %y : i32
        %s1 = arith.addi %s0, %z : i32
        %c3 = arith.constant 3 : i32
        %q = arith.divui %s1, %c3 : i32
        %t = arith.trunci %q : i32 to i8
        affine.store %t, %B[%i, %j] : memref<40x300xi8>
      }
    }
    return
  }
  func.func @main() {
    %A = memref.alloc() : memref<40x300xi8>
    %B = memref.alloc() : memref<40x300xi8>
    affine.for %i = 0 to 40 {
      affine.for %j = 0 to 300 {
        %s = arith.muli %i, %j : index
        %c7 = arith.constant 7 : index
        %u = arith.addi %s, %j : index
        %m = arith.muli %u, %c7 : index
        %n = arith.index_cast %m : index to i32
        %v = arith.trunci %n : i32 to i8
        affine.store %v, %A[%i, %j] : memref<40x300xi8>
        %z = arith.constant 0 : i8
        affine.store %z, %B[%i, %j] : memref<40x300xi8>
      }
    }
    func.call @rows(%A, %B) : (memref<40x300xi8>, memref<40x300xi8>) -> ()
    %zero = arith.constant 0 : i32
    %sum = affine.for %i = 0 to 40 iter_args(%acc = %zero) -> i32 {
      %row = affine.for %j = 0 to 300 iter_args(%a2 = %acc) -> i32 {
        %v = affine.load %B[%i, %j] : memref<40x300xi8>
        %w = arith.extui %v : i8 to i32
        %ji = arith.index_cast %j : index to i32
        %c5 = arith.constant 5 : i32
        %k = arith.remui %ji, %c5 : i32
        %c1 = arith.constant 1 : i32
        %k1 = arith.addi %k, %c1 : i32
        %p = arith.muli %w, %k1 : i32
        %n = arith.addi %a2, %p : i32
        affine.yield %n : i32
      }
      affine.yield %row : i32
    }
    func.call @tessel_print_i32(%sum) : (i32) -> ()
    return
  }
  func.func private @tessel_print_i32(i32)
}
