// tessel-ilp-unroll on the sequential loops of kernels (a reduction over a tile's
// points, a row copied element by element): where the trip count is a multiple of the
// factor (8 for a small body), the loop takes 8 iterations per step, their loads in one
// block (in flight together); otherwise it runs as it was. The iterations keep their
// order, each with the values the one before yields.
// RUN: tessel-opt %s --tessel-ilp-unroll 2>/dev/null | FileCheck %s
// RUN: tessel-run %s --device=sim | FileCheck %s --check-prefix=OUT
// RUN: tessel-opt %s --tessel-ilp-unroll -o %t.mlir 2>/dev/null
// RUN: tessel-run %t.mlir --device=sim --profile=%t.json | FileCheck %s --check-prefix=OUT

module attributes {gpu.container_module} {

// The sum of row tx of A over columns [0, n), and row tx copied to B (no values
// carried), for n = 16 (unrolled) and n = 13 (the loop as it was).
// CHECK-LABEL: func.func @rows(
// CHECK: gpu.launch
// CHECK: %[[TC:.*]] = arith.subi %[[N:.*]], %[[LO:.*]] : index
// CHECK-NEXT: %[[REM:.*]] = arith.remsi %[[TC]], %[[U:.*]] : index
// CHECK-NEXT: %[[FULL:.*]] = arith.cmpi eq, %[[REM]], %{{.*}} : index
// CHECK-NEXT: %[[S:.*]] = scf.if %[[FULL]] -> (i32) {
// CHECK-NEXT: %[[X:.*]] = scf.for %[[K:.*]] = %[[LO]] to %[[N]] step %[[U]] iter_args(%[[A:.*]] = %{{.*}}) -> (i32) {
// CHECK-NEXT: %[[V0:.*]] = memref.load %{{.*}}[%{{.*}}, %[[K]]] : memref<4x16xi32>
// CHECK-NEXT: %[[S0:.*]] = arith.addi %[[A]], %[[V0]] : i32
// CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[K1:.*]] = arith.addi %[[K]], %[[C1]] : index
// CHECK-NEXT: %[[V1:.*]] = memref.load %{{.*}}[%{{.*}}, %[[K1]]] : memref<4x16xi32>
// CHECK-NEXT: %[[S1:.*]] = arith.addi %[[S0]], %[[V1]] : i32
// CHECK-COUNT-6: memref.load
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: scf.yield %[[X]] : i32
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[Y:.*]] = scf.for %{{.*}} = %[[LO]] to %[[N]] step %{{.*}} iter_args
// CHECK: scf.yield %[[Y]] : i32
// CHECK: memref.store %[[S]]
// The copy: no values carried.
// CHECK: arith.remsi
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: scf.for %{{.*}} step %[[U2:.*]] {
// CHECK-COUNT-8: memref.store
// CHECK: } else {
// CHECK-NEXT: scf.for
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

// A[i][j] = 16 i + j; the row sums for n = 16, then for n = 13 (and B's row 3).
// OUT: 120
// OUT-NEXT: 376
// OUT-NEXT: 888
// OUT-NEXT: 78
// OUT-NEXT: 702
// OUT-NEXT: 55
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
    return
  }
  func.func private @tessel_print_i32(i32)
}
