// RUN: tessel-opt %s --split-input-file --tessel-expand-scalars | FileCheck %s
// RUN: tessel-opt %s --split-input-file --tessel-expand-scalars --tessel-schedule | FileCheck %s --check-prefix=SCHED
// RUN: tessel-opt %s --split-input-file --tessel-expand-scalars --tessel-optimize 2>/dev/null | FileCheck %s --check-prefix=OPT

// Paper 004's row reduction with C's scalar accumulator (gesummv's `sa`): each live
// range of %s lies in one iteration of %i and runs across the j loop. The scalar gets
// one element per iteration of %i, allocated before the scop (n elements, at least
// one) and freed after it; the scheduler can then put i and j in one permutable band,
// which tessel-tile tiles and tessel-promote-shared stages through shared memory.
// CHECK-LABEL: func.func @row_sum(
// CHECK-SAME: %[[N:[^:]*]]: index
// CHECK: %[[EXT:.*]] = affine.max #{{.*}}()[%[[N]]]
// CHECK: %[[E:.*]] = memref.alloc(%[[EXT]]) : memref<?xf64>
// CHECK-NEXT: tpoly.scop {
// CHECK-NOT: memref.alloca
// CHECK: affine.for %[[I:.*]] = 0 to %[[N]] {
// CHECK: affine.store %{{.*}}, %[[E]][%[[I]]] : memref<?xf64>
// CHECK-NEXT: affine.for %[[J:.*]] = 0 to %[[N]] {
// CHECK-NEXT: affine.load %[[E]][%[[I]]] : memref<?xf64>
// CHECK: affine.store %{{.*}}, %[[E]][%[[I]]] : memref<?xf64>
// CHECK: affine.load %[[E]][%[[I]]] : memref<?xf64>
// CHECK: memref.dealloc %[[E]] : memref<?xf64>
// SCHED-LABEL: func.func @row_sum(
// SCHED: affine.for
// SCHED: affine.for
// SCHED: tpoly.band = {{[0-9]+}} : i64, tpoly.member = 1 : i64, tpoly.permutable
// Then in the default pipeline, each block's 256 rows are staged 16 columns at a time
// through shared memory, read along the rows (coalesced) and transposed (paper 004
// Fig. 4).
// OPT-LABEL: func.func @row_sum(
// OPT: gpu.alloc  (%{{.*}}) : memref<?xf64>
// OPT: tgpu.alloc_shared [16, 256] padding [0, 2] : memref<16x258xf64, #gpu.address_space<workgroup>>
// OPT: tgpu.tile_copy %{{.*}} to %{{.*}} offsets [%{{.*}}, %{{.*}}] tile [256, 16] {permutation = array<i64: 1, 0>}
// OPT-LABEL: func.func @offset(
func.func @row_sum(%n: index, %A: memref<?x?xf64>, %x: memref<?xf64>, %y: memref<?xf64>) {
  tpoly.scop {
    %s = memref.alloca() : memref<f64>
    affine.for %i = 0 to %n {
      %z = arith.constant 0.0 : f64
      affine.store %z, %s[] : memref<f64>
      affine.for %j = 0 to %n {
        %a = affine.load %s[] : memref<f64>
        %b = affine.load %A[%i, %j] : memref<?x?xf64>
        %c = affine.load %x[%j] : memref<?xf64>
        %m = arith.mulf %b, %c : f64
        %t = arith.addf %a, %m : f64
        affine.store %t, %s[] : memref<f64>
      }
      %r = affine.load %s[] : memref<f64>
      affine.store %r, %y[%i] : memref<?xf64>
    }
  }
  return
}

// -----

// A constant lower bound: the element of iteration i is i - 2.
// CHECK-LABEL: func.func @offset(
// CHECK: memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK: affine.for %[[I:.*]] = 2 to %{{.*}} {
// CHECK: affine.store %{{.*}}, %{{.*}}[%[[I]] - 2] : memref<?xf32>
func.func @offset(%n: index, %A: memref<?x?xf32>, %y: memref<?xf32>) {
  tpoly.scop {
    %s = memref.alloca() : memref<f32>
    affine.for %i = 2 to %n {
      %z = arith.constant 0.0 : f32
      affine.store %z, %s[] : memref<f32>
      affine.for %j = 0 to %n {
        %a = affine.load %s[] : memref<f32>
        %b = affine.load %A[%i, %j] : memref<?x?xf32>
        %t = arith.addf %a, %b : f32
        affine.store %t, %s[] : memref<f32>
      }
      %r = affine.load %s[] : memref<f32>
      affine.store %r, %y[%i] : memref<?xf32>
    }
  }
  return
}

// -----

// A constant lower bound written with an operand of its own: the trip count takes the
// upper bound's operand alone.
// CHECK-LABEL: func.func @bound_operands(
// CHECK-SAME: %[[N:[^:]*]]: index, %[[M:[^:]*]]: index
// CHECK: %[[EXT:.*]] = affine.max #{{.*}}()[%[[N]]]
// CHECK: memref.alloc(%[[EXT]]) : memref<?xf32>
// CHECK: affine.for %[[I:.*]] = #{{.*}}()[%[[M]]] to %[[N]] {
// CHECK: affine.store %{{.*}}, %{{.*}}[%[[I]] - 1] : memref<?xf32>
func.func @bound_operands(%n: index, %m: index, %A: memref<?x?xf32>, %y: memref<?xf32>) {
  tpoly.scop {
    %s = memref.alloca() : memref<f32>
    affine.for %i = affine_map<()[s0] -> (1)>()[%m] to %n {
      %z = arith.constant 0.0 : f32
      affine.store %z, %s[] : memref<f32>
      affine.for %j = 0 to %n {
        %a = affine.load %s[] : memref<f32>
        %b = affine.load %A[%i, %j] : memref<?x?xf32>
        %t = arith.addf %a, %b : f32
        affine.store %t, %s[] : memref<f32>
      }
      %r = affine.load %s[] : memref<f32>
      affine.store %r, %y[%i] : memref<?xf32>
    }
  }
  return
}

// -----

// gemm's accumulator: the innermost loop around its accesses is j, and i is expanded
// too (an element per (i, j)), or the array would order the iterations of i.
// CHECK-LABEL: func.func @dot(
// CHECK: %[[E:.*]] = memref.alloc(%{{.*}}, %{{.*}}) : memref<?x?xf32>
// CHECK: affine.for %[[I:.*]] = 0 to 64 {
// CHECK-NEXT: affine.for %[[J:.*]] = 0 to 48 {
// CHECK: affine.store %{{.*}}, %[[E]][%[[I]], %[[J]]] : memref<?x?xf32>
// CHECK: memref.dealloc %[[E]] : memref<?x?xf32>
// SCHED-LABEL: func.func @dot(
// SCHED: tpoly.coincident, tpoly.member = 0 : i64, tpoly.permutable
func.func @dot(%A: memref<64x32xf32>, %B: memref<32x48xf32>, %C: memref<64x48xf32>) {
  tpoly.scop {
    %s = memref.alloca() : memref<f32>
    affine.for %i = 0 to 64 {
      affine.for %j = 0 to 48 {
        %z = arith.constant 0.0 : f32
        affine.store %z, %s[] : memref<f32>
        affine.for %k = 0 to 32 {
          %a = affine.load %s[] : memref<f32>
          %b = affine.load %A[%i, %k] : memref<64x32xf32>
          %c = affine.load %B[%k, %j] : memref<32x48xf32>
          %m = arith.mulf %b, %c : f32
          %t = arith.addf %a, %m : f32
          affine.store %t, %s[] : memref<f32>
        }
        %r = affine.load %s[] : memref<f32>
        affine.store %r, %C[%i, %j] : memref<64x48xf32>
      }
    }
  }
  return
}

// -----

// Kept: the value crosses the iterations of i (a running sum, not reset per row), so
// one copy per iteration would change what the program computes.
// CHECK-LABEL: func.func @running(
// CHECK-NOT: memref.alloc(
// CHECK: memref.alloca() : memref<f64>
func.func @running(%n: index, %A: memref<?x?xf64>, %y: memref<?xf64>) {
  tpoly.scop {
    %s = memref.alloca() : memref<f64>
    affine.for %i = 0 to %n {
      affine.for %j = 0 to %n {
        %a = affine.load %s[] : memref<f64>
        %b = affine.load %A[%i, %j] : memref<?x?xf64>
        %t = arith.addf %a, %b : f64
        affine.store %t, %s[] : memref<f64>
      }
      %r = affine.load %s[] : memref<f64>
      affine.store %r, %y[%i] : memref<?xf64>
    }
  }
  return
}

// -----

// Kept: no loop inside the iteration carries the value (a temporary between two
// statements of one iteration stays a register as it is).
// CHECK-LABEL: func.func @temporary(
// CHECK-NOT: memref.alloc(
// CHECK: memref.alloca() : memref<f32>
func.func @temporary(%n: index, %A: memref<?xf32>, %y: memref<?xf32>) {
  tpoly.scop {
    %s = memref.alloca() : memref<f32>
    affine.for %i = 0 to %n {
      %a = affine.load %A[%i] : memref<?xf32>
      affine.store %a, %s[] : memref<f32>
      %r = affine.load %s[] : memref<f32>
      %t = arith.mulf %r, %r : f32
      affine.store %t, %y[%i] : memref<?xf32>
    }
  }
  return
}

// -----

// Kept: the loop's upper bound is defined inside the scop, where the buffer could not
// be sized before it.
// CHECK-LABEL: func.func @inner_bound(
// CHECK-NOT: memref.alloc(
func.func @inner_bound(%n: index, %A: memref<?x?xf32>, %y: memref<?xf32>) {
  tpoly.scop {
    %s = memref.alloca() : memref<f32>
    affine.for %t = 0 to %n {
      affine.for %i = 0 to affine_map<(d0) -> (d0)>(%t) {
        %z = arith.constant 0.0 : f32
        affine.store %z, %s[] : memref<f32>
        affine.for %j = 0 to %n {
          %a = affine.load %s[] : memref<f32>
          %b = affine.load %A[%i, %j] : memref<?x?xf32>
          %u = arith.addf %a, %b : f32
          affine.store %u, %s[] : memref<f32>
        }
        %r = affine.load %s[] : memref<f32>
        affine.store %r, %y[%i] : memref<?xf32>
      }
    }
  }
  return
}
