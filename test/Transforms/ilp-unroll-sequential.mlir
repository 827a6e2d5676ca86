// tessel-ilp-unroll on the sequential loops of kernels (a reduction over a tile's
// points, a row copied element by element, a thread's recurrence): the loop takes 8
// iterations per step (for a small body) over the largest multiple of 8 of its trip
// count, their loads first where no store before them may write their memory (in
// flight together); the loop as it was runs the rest. The iterations keep their order,
// each with the values the one before yields.
// RUN: tessel-opt %s --tessel-ilp-unroll 2>/dev/null | FileCheck %s
// RUN: tessel-opt %s --tessel-ilp-unroll --tessel-ilp-unroll 2>/dev/null | FileCheck %s
// RUN: tessel-run %s --device=sim | FileCheck %s --check-prefix=OUT
// RUN: tessel-opt %s --tessel-ilp-unroll -o %t.mlir 2>/dev/null
// RUN: tessel-run %t.mlir --device=sim --profile=%t.json | FileCheck %s --check-prefix=OUT

module attributes {gpu.container_module} {

// The sum of row tx of A over columns [0, n), and row tx copied to B (no values
// carried), for n = 16 (2 steps of 8) and n = 13 (one step of 8, then 5 of 1).
// CHECK-LABEL: func.func @rows(
// CHECK: gpu.launch
// CHECK: %[[TC:.*]] = arith.subi %[[N:.*]], %[[LO:.*]] : index
// CHECK-NEXT: %[[REM:.*]] = arith.remsi %[[TC]], %[[U:.*]] : index
// CHECK-NEXT: %[[MID:.*]] = arith.subi %[[N]], %[[REM]] : index
// CHECK-NEXT: %[[X:.*]] = scf.for %[[K:.*]] = %[[LO]] to %[[MID]] step %[[U]] iter_args(%[[A:.*]] = %{{.*}}) -> (i32) {
// CHECK-NEXT: %[[V0:.*]] = memref.load %{{.*}}[%{{.*}}, %[[K]]] : memref<4x16xi32>
// CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[K1:.*]] = arith.addi %[[K]], %[[C1]] : index
// CHECK-NEXT: %[[V1:.*]] = memref.load %{{.*}}[%{{.*}}, %[[K1]]] : memref<4x16xi32>
// CHECK-COUNT-6: memref.load
// CHECK: %[[S0:.*]] = arith.addi %[[A]], %[[V0]] : i32
// CHECK-NEXT: %[[S1:.*]] = arith.addi %[[S0]], %[[V1]] : i32
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[S:.*]] = scf.for %{{.*}} = %[[MID]] to %[[N]] step %{{.*}} iter_args(%{{.*}} = %[[X]]) -> (i32) {
// CHECK: memref.store %[[S]]
// The copy: no values carried; A and B are arguments of the function (they may be
// one array), so each load stays after the store before it.
// CHECK: arith.remsi
// CHECK: scf.for %{{.*}} step %[[U2:.*]] {
// CHECK-NEXT: memref.load
// CHECK: memref.store
// CHECK-NEXT: memref.load
// CHECK-COUNT-7: memref.store
// CHECK: scf.for
// CHECK: gpu.terminator
func.func @rows(%A: memref<4x16xi32>, %B: memref<4x16xi32>, %Y: memref<4xi32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant 0 : i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
    %s = scf.for %k = %c0 to %n step %c1 iter_args(%a = %z) -> (i32) {
      %v = memref.load %A[%tx, %k] : memref<4x16xi32>
      %t = arith.addi %a, %v : i32
      scf.yield %t : i32
    }
    memref.store %s, %Y[%tx] : memref<4xi32>
    scf.for %k = %c0 to %n step %c1 {
      %v = memref.load %A[%tx, %k] : memref<4x16xi32>
      memref.store %v, %B[%tx, %k] : memref<4x16xi32>
    }
    gpu.terminator
  }
  return
}

// A and B distinct allocations: the loads of A in the 8 iterations come before the
// stores to B; a condition in the body is copied with each iteration.
// CHECK-LABEL: func.func @distinct(
// CHECK: %[[A:.*]] = memref.alloc() : memref<4x16xi32>
// CHECK: %[[B:.*]] = memref.alloc() : memref<4x16xi32>
// CHECK: scf.for %{{.*}} step %{{.*}} {
// CHECK-COUNT-8: memref.load %[[A]]
// CHECK-NOT: memref.load
// CHECK: memref.store %{{.*}}, %[[B]]
// CHECK-NEXT: arith.cmpi
// CHECK-NEXT: scf.if
// CHECK-NEXT: memref.store
// CHECK-NEXT: }
// CHECK-COUNT-7: scf.if
// CHECK: scf.for
func.func @distinct(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1 : i32
  %A = memref.alloc() : memref<4x16xi32>
  %B = memref.alloc() : memref<4x16xi32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
    scf.for %k = %c0 to %n step %c1 {
      %v = memref.load %A[%tx, %k] : memref<4x16xi32>
      memref.store %v, %B[%tx, %k] : memref<4x16xi32>
      %z = arith.cmpi eq, %v, %one : i32
      scf.if %z {
        memref.store %one, %B[%tx, %k] : memref<4x16xi32>
      }
    }
    gpu.terminator
  }
  return
}

// One array, stored under a condition at row k and loaded at row k + 1: the rows
// differ by a constant, so the elements are distinct and the 8 loads come first; a
// store to the row a later load reads (A[k + 1][0] before A[k + 1][tx]) keeps that
// load after it.
// CHECK-LABEL: func.func @apart(
// CHECK: %[[A:.*]] = memref.alloc() : memref<17x4xi32>
// CHECK: scf.for %{{.*}} step %{{.*}} {
// CHECK-COUNT-8: memref.load %[[A]]
// CHECK-NOT: memref.load
// CHECK: scf.if
// CHECK: scf.for %{{.*}} step %c8{{.*}} {
// CHECK-NEXT: memref.load %[[A]]
// CHECK: memref.store %{{.*}}, %[[A]][%{{.*}}, %c0]
// CHECK-NEXT: memref.load %[[A]]
func.func @apart(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %A = memref.alloc() : memref<17x4xi32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
    %first = arith.cmpi eq, %tx, %c0 : index
    scf.for %k = %c0 to %n step %c1 {
      %k1 = arith.addi %k, %c1 : index
      %v = memref.load %A[%k1, %tx] : memref<17x4xi32>
      scf.if %first {
        memref.store %v, %A[%k, %tx] : memref<17x4xi32>
      }
    }
    scf.for %k = %c0 to %n step %c1 {
      %v = memref.load %A[%k, %tx] : memref<17x4xi32>
      %k1 = arith.addi %k, %c1 : index
      memref.store %v, %A[%k1, %c0] : memref<17x4xi32>
    }
    gpu.terminator
  }
  return
}

// A body of 67 operations that cse makes 3 (the same element's index and load 33
// times, as the passes before leave a jammed loop's copies): its size is judged after
// cse, so it is unrolled by 8 (counted as written, it would not be unrolled at all).
// CHECK-LABEL: func.func @duplicates(
// CHECK: %[[U:.*]] = arith.constant 8 : index
// CHECK: arith.remsi %{{.*}}, %[[U]] : index
// CHECK: scf.for %{{.*}} step %[[U]] iter_args
func.func @duplicates(%A: memref<4x17xi32>, %Y: memref<4xi32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant 0 : i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
    %s = scf.for %k = %c0 to %n step %c1 iter_args(%a = %z) -> (i32) {
      %k0 = arith.addi %k, %c1 : index
      %v0 = memref.load %A[%tx, %k0] : memref<4x17xi32>
      %k1 = arith.addi %k, %c1 : index
      %v1 = memref.load %A[%tx, %k1] : memref<4x17xi32>
      %k2 = arith.addi %k, %c1 : index
      %v2 = memref.load %A[%tx, %k2] : memref<4x17xi32>
      %k3 = arith.addi %k, %c1 : index
      %v3 = memref.load %A[%tx, %k3] : memref<4x17xi32>
      %k4 = arith.addi %k, %c1 : index
      %v4 = memref.load %A[%tx, %k4] : memref<4x17xi32>
      %k5 = arith.addi %k, %c1 : index
      %v5 = memref.load %A[%tx, %k5] : memref<4x17xi32>
      %k6 = arith.addi %k, %c1 : index
      %v6 = memref.load %A[%tx, %k6] : memref<4x17xi32>
      %k7 = arith.addi %k, %c1 : index
      %v7 = memref.load %A[%tx, %k7] : memref<4x17xi32>
      %k8 = arith.addi %k, %c1 : index
      %v8 = memref.load %A[%tx, %k8] : memref<4x17xi32>
      %k9 = arith.addi %k, %c1 : index
      %v9 = memref.load %A[%tx, %k9] : memref<4x17xi32>
      %k10 = arith.addi %k, %c1 : index
      %v10 = memref.load %A[%tx, %k10] : memref<4x17xi32>
      %k11 = arith.addi %k, %c1 : index
      %v11 = memref.load %A[%tx, %k11] : memref<4x17xi32>
      %k12 = arith.addi %k, %c1 : index
      %v12 = memref.load %A[%tx, %k12] : memref<4x17xi32>
      %k13 = arith.addi %k, %c1 : index
      %v13 = memref.load %A[%tx, %k13] : memref<4x17xi32>
      %k14 = arith.addi %k, %c1 : index
      %v14 = memref.load %A[%tx, %k14] : memref<4x17xi32>
      %k15 = arith.addi %k, %c1 : index
      %v15 = memref.load %A[%tx, %k15] : memref<4x17xi32>
      %k16 = arith.addi %k, %c1 : index
      %v16 = memref.load %A[%tx, %k16] : memref<4x17xi32>
      %k17 = arith.addi %k, %c1 : index
      %v17 = memref.load %A[%tx, %k17] : memref<4x17xi32>
      %k18 = arith.addi %k, %c1 : index
      %v18 = memref.load %A[%tx, %k18] : memref<4x17xi32>
      %k19 = arith.addi %k, %c1 : index
      %v19 = memref.load %A[%tx, %k19] : memref<4x17xi32>
      %k20 = arith.addi %k, %c1 : index
      %v20 = memref.load %A[%tx, %k20] : memref<4x17xi32>
      %k21 = arith.addi %k, %c1 : index
      %v21 = memref.load %A[%tx, %k21] : memref<4x17xi32>
      %k22 = arith.addi %k, %c1 : index
      %v22 = memref.load %A[%tx, %k22] : memref<4x17xi32>
      %k23 = arith.addi %k, %c1 : index
      %v23 = memref.load %A[%tx, %k23] : memref<4x17xi32>
      %k24 = arith.addi %k, %c1 : index
      %v24 = memref.load %A[%tx, %k24] : memref<4x17xi32>
      %k25 = arith.addi %k, %c1 : index
      %v25 = memref.load %A[%tx, %k25] : memref<4x17xi32>
      %k26 = arith.addi %k, %c1 : index
      %v26 = memref.load %A[%tx, %k26] : memref<4x17xi32>
      %k27 = arith.addi %k, %c1 : index
      %v27 = memref.load %A[%tx, %k27] : memref<4x17xi32>
      %k28 = arith.addi %k, %c1 : index
      %v28 = memref.load %A[%tx, %k28] : memref<4x17xi32>
      %k29 = arith.addi %k, %c1 : index
      %v29 = memref.load %A[%tx, %k29] : memref<4x17xi32>
      %k30 = arith.addi %k, %c1 : index
      %v30 = memref.load %A[%tx, %k30] : memref<4x17xi32>
      %k31 = arith.addi %k, %c1 : index
      %v31 = memref.load %A[%tx, %k31] : memref<4x17xi32>
      %k32 = arith.addi %k, %c1 : index
      %v32 = memref.load %A[%tx, %k32] : memref<4x17xi32>
      %t = arith.addi %a, %v32 : i32
      scf.yield %t : i32
    }
    memref.store %s, %Y[%tx] : memref<4xi32>
    gpu.terminator
  }
  return
}

// Not unrolled: a loop with a barrier, a loop of step 2, a loop without loads.
// CHECK-LABEL: func.func @kept(
// CHECK-NOT: arith.remsi
// CHECK: return
func.func @kept(%A: memref<16xi32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1 : i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
    scf.for %k = %c0 to %n step %c1 {
      %v = memref.load %A[%k] : memref<16xi32>
      gpu.barrier
    }
    scf.for %k = %c0 to %n step %c2 {
      %v = memref.load %A[%k] : memref<16xi32>
      %w = arith.addi %v, %one : i32
      memref.store %w, %A[%k] : memref<16xi32>
    }
    scf.for %k = %c0 to %n step %c1 {
      memref.store %one, %A[%k] : memref<16xi32>
    }
    gpu.terminator
  }
  return
}

// A[i][j] = 16 i + j; the row sums for n = 16, then for n = 13 (and B's row 3), then
// for n = -3 (no iteration: neither loop runs).
// OUT: 120
// OUT-NEXT: 376
// OUT-NEXT: 888
// OUT-NEXT: 78
// OUT-NEXT: 702
// OUT-NEXT: 55
// OUT-NEXT: 0
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c7 = arith.constant 7 : index
    %c13 = arith.constant 13 : index
    %c16 = arith.constant 16 : index
    %h = memref.alloc() : memref<4x16xi32>
    %hy = memref.alloc() : memref<4xi32>
    %A = gpu.alloc () : memref<4x16xi32>
    %B = gpu.alloc () : memref<4x16xi32>
    %Y = gpu.alloc () : memref<4xi32>
    scf.for %i = %c0 to %c4 step %c1 {
      scf.for %j = %c0 to %c16 step %c1 {
        %r = arith.muli %i, %c16 : index
        %v = arith.addi %r, %j : index
        %vi = arith.index_cast %v : index to i32
        memref.store %vi, %h[%i, %j] : memref<4x16xi32>
      }
    }
    gpu.memcpy %A, %h : memref<4x16xi32>, memref<4x16xi32>
    call @rows(%A, %B, %Y, %c16) : (memref<4x16xi32>, memref<4x16xi32>, memref<4xi32>, index) -> ()
    gpu.memcpy %hy, %Y : memref<4xi32>, memref<4xi32>
    %y0 = memref.load %hy[%c0] : memref<4xi32>
    %y1 = memref.load %hy[%c1] : memref<4xi32>
    %y3 = memref.load %hy[%c3] : memref<4xi32>
    func.call @tessel_print_i32(%y0) : (i32) -> ()
    func.call @tessel_print_i32(%y1) : (i32) -> ()
    func.call @tessel_print_i32(%y3) : (i32) -> ()
    call @rows(%A, %B, %Y, %c13) : (memref<4x16xi32>, memref<4x16xi32>, memref<4xi32>, index) -> ()
    gpu.memcpy %hy, %Y : memref<4xi32>, memref<4xi32>
    %z0 = memref.load %hy[%c0] : memref<4xi32>
    %z3 = memref.load %hy[%c3] : memref<4xi32>
    func.call @tessel_print_i32(%z0) : (i32) -> ()
    func.call @tessel_print_i32(%z3) : (i32) -> ()
    gpu.memcpy %h, %B : memref<4x16xi32>, memref<4x16xi32>
    %b = memref.load %h[%c3, %c7] : memref<4x16xi32>
    func.call @tessel_print_i32(%b) : (i32) -> ()
    %cm3 = arith.constant -3 : index
    call @rows(%A, %B, %Y, %cm3) : (memref<4x16xi32>, memref<4x16xi32>, memref<4xi32>, index) -> ()
    gpu.memcpy %hy, %Y : memref<4xi32>, memref<4xi32>
    %e0 = memref.load %hy[%c0] : memref<4xi32>
    func.call @tessel_print_i32(%e0) : (i32) -> ()
    return
  }
  func.func private @tessel_print_i32(i32)
}
