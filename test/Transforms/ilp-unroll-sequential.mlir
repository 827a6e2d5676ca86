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
