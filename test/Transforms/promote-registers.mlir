// RUN: tessel-opt %s --tessel-promote-registers 2>/dev/null | FileCheck %s
// RUN: tessel-opt %s --tessel-promote-registers -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: tessel-run %s --device=sim | FileCheck %s --check-prefix=OUT
// RUN: tessel-opt %s --tessel-promote-registers -o %t.mlir
// RUN: tessel-run %t.mlir --device=sim | FileCheck %s --check-prefix=OUT

module attributes {gpu.container_module} {

// Not promoted: C is read at [i, j] and written at [j, i] (another thread's element).
// CHECK-LABEL: func.func @two_places(
// CHECK-NOT: iter_args
// CHECK-NOT: scf.if
// CHECK: return
func.func @two_places(%C: memref<4x4xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c4, %sz = %c1) {
    scf.for %k = %c0 to %c4 step %c1 {
      %v = memref.load %C[%ty, %tx] : memref<4x4xi32>
      memref.store %v, %C[%tx, %ty] : memref<4x4xi32>
    }
    gpu.terminator
  }
  return
}

// Not promoted: a barrier in the loop (other threads may read the element between two
// iterations), an access under an scf.if, a view of the same buffer, and two arguments
// (which may be one array).
// CHECK-LABEL: func.func @unsafe(
// CHECK-NOT: iter_args
// CHECK-NOT: scf.if %{{.*}} -> (i32)
// CHECK: return
func.func @unsafe(%C: memref<4x4xi32>, %E: memref<4x4xi32>, %p: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1 : i32
  %D = gpu.alloc () : memref<4x4xi32>
  %V = memref.cast %D : memref<4x4xi32> to memref<?x?xi32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c4, %sz = %c1) {
    scf.for %k = %c0 to %c4 step %c1 {
      %v = memref.load %D[%ty, %tx] : memref<4x4xi32>
      %w = arith.addi %v, %one : i32
      memref.store %w, %D[%ty, %tx] : memref<4x4xi32>
      gpu.barrier
    }
    scf.for %k = %c0 to %c4 step %c1 {
      %v = memref.load %D[%ty, %tx] : memref<4x4xi32>
      scf.if %p {
        memref.store %v, %D[%ty, %tx] : memref<4x4xi32>
      }
    }
    scf.for %k = %c0 to %c4 step %c1 {
      %v = memref.load %D[%ty, %tx] : memref<4x4xi32>
      %w = arith.addi %v, %one : i32
      memref.store %w, %V[%ty, %tx] : memref<?x?xi32>
    }
    scf.for %k = %c0 to %c4 step %c1 {
      %v = memref.load %C[%ty, %tx] : memref<4x4xi32>
      %w = arith.addi %v, %one : i32
      memref.store %w, %E[%ty, %tx] : memref<4x4xi32>
    }
    gpu.terminator
  }
  return
}

// Not promoted either: a loop over i32 and a loop that already carries a value (its
// element stays in memory; neither is rebuilt).
// CHECK-LABEL: func.func @kept(
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK-NEXT: memref.load
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (i32) {
// CHECK-NEXT: memref.load
// CHECK: return
func.func @kept() {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c0 = arith.constant 0 : index
  %i0 = arith.constant 0 : i32
  %i1 = arith.constant 1 : i32
  %i4 = arith.constant 4 : i32
  %D = gpu.alloc () : memref<4x4xi32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c4, %sz = %c1) {
    scf.for %k = %i0 to %i4 step %i1 : i32 {
      %v = memref.load %D[%ty, %tx] : memref<4x4xi32>
      %w = arith.addi %v, %k : i32
      memref.store %w, %D[%ty, %tx] : memref<4x4xi32>
    }
    %s = scf.for %k = %c0 to %c4 step %c1 iter_args(%a = %i0) -> (i32) {
      %v = memref.load %D[%ty, %tx] : memref<4x4xi32>
      %w = arith.addi %v, %a : i32
      memref.store %w, %D[%ty, %tx] : memref<4x4xi32>
      scf.yield %w : i32
    }
    gpu.terminator
  }
  return
}

// The product of two 4x4 matrices accumulated into C by a block of 4x4 threads, one
// element of C each (PPCG Fig. 2's register tile of C, one element per thread): C's
// element stays in a register across the k loop. A[i][0] is the same in every
// iteration of D's loop: loaded once before it.
// CHECK-LABEL: func.func @main(
// CHECK: gpu.launch
// CHECK: %[[NE:.*]] = arith.cmpi slt, %[[LB:.*]], %[[UB:.*]] : index
// CHECK-NEXT: %[[INIT:.*]] = scf.if %[[NE]] -> (i32) {
// CHECK-NEXT: %[[L:.*]] = memref.load %[[C:.*]][%[[I:.*]], %[[J:.*]]] : memref<4x4xi32>
// CHECK-NEXT: scf.yield %[[L]] : i32
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT: scf.yield %[[Z]] : i32
// CHECK-NEXT: }
// CHECK-NEXT: %[[R:.*]] = scf.for %[[K:.*]] = %[[LB]] to %[[UB]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (i32) {
// CHECK-NOT: %[[C]]
// CHECK: %[[SUM:.*]] = arith.addi %[[ACC]], %{{.*}} : i32
// CHECK-NEXT: scf.yield %[[SUM]] : i32
// CHECK-NEXT: }
// CHECK-NEXT: scf.if %[[NE]] {
// CHECK-NEXT: memref.store %[[R]], %[[C]][%[[I]], %[[J]]] : memref<4x4xi32>
// CHECK-NEXT: }
// The load-only element: hoisted, and the loop carries nothing.
// CHECK: %[[A0:.*]] = scf.if %{{.*}} -> (i32) {
// CHECK-NEXT: memref.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<4x4xi32>
// CHECK: scf.for %[[K2:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT: %[[KI:.*]] = arith.index_cast %[[K2]] : index to i32
// CHECK-NEXT: %[[V:.*]] = arith.addi %[[A0]], %[[KI]] : i32
// CHECK-NEXT: memref.store %[[V]], %{{.*}}[%{{.*}}, %[[K2]]] : memref<16x4xi32>
// The host's loops are the host compiler's business.
// CHECK: gpu.terminator
// CHECK: scf.for {{.*}} iter_args
// CHECK-NOT: scf.if


// C = C0 + A B with A[i][k] = i + k, B[k][j] = k - j, C0[i][j] = 10 i + j; then
// D[4 i + j][k] = A[i][0] + k.
// OUT: 14
// OUT-NEXT: 3
// OUT-NEXT: 28
// OUT-NEXT: 6
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c10 = arith.constant 10 : index
    %h = memref.alloc() : memref<4x4xi32>
    %A = gpu.alloc () : memref<4x4xi32>
    %B = gpu.alloc () : memref<4x4xi32>
    %C = gpu.alloc () : memref<4x4xi32>
    %D = gpu.alloc () : memref<16x4xi32>
    %hd = memref.alloc() : memref<16x4xi32>
    scf.for %i = %c0 to %c4 step %c1 {
      scf.for %j = %c0 to %c4 step %c1 {
        %a = arith.addi %i, %j : index
        %av = arith.index_cast %a : index to i32
        memref.store %av, %h[%i, %j] : memref<4x4xi32>
      }
    }
    gpu.memcpy %A, %h : memref<4x4xi32>, memref<4x4xi32>
    scf.for %i = %c0 to %c4 step %c1 {
      scf.for %j = %c0 to %c4 step %c1 {
        %b = arith.subi %i, %j : index
        %bv = arith.index_cast %b : index to i32
        memref.store %bv, %h[%i, %j] : memref<4x4xi32>
      }
    }
    gpu.memcpy %B, %h : memref<4x4xi32>, memref<4x4xi32>
    scf.for %i = %c0 to %c4 step %c1 {
      scf.for %j = %c0 to %c4 step %c1 {
        %t = arith.muli %i, %c10 : index
        %c = arith.addi %t, %j : index
        %cv = arith.index_cast %c : index to i32
        memref.store %cv, %h[%i, %j] : memref<4x4xi32>
      }
    }
    gpu.memcpy %C, %h : memref<4x4xi32>, memref<4x4xi32>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c4, %sz = %c1) {
      scf.for %k = %c0 to %c4 step %c1 {
        // REMARK: promote-registers.mlir:[[@LINE+1]]:{{[0-9]+}}: remark: kept in a register across the loop (loaded before it, stored after it)
        %c = memref.load %C[%ty, %tx] : memref<4x4xi32>
        %a = memref.load %A[%ty, %k] : memref<4x4xi32>
        %b = memref.load %B[%k, %tx] : memref<4x4xi32>
        %p = arith.muli %a, %b : i32
        %s = arith.addi %c, %p : i32
        memref.store %s, %C[%ty, %tx] : memref<4x4xi32>
      }
      %row4 = arith.muli %ty, %c4 : index
      %row = arith.addi %row4, %tx : index
      scf.for %k = %c0 to %c4 step %c1 {
        // REMARK: promote-registers.mlir:[[@LINE+2]]:{{[0-9]+}}: remark: loaded once before the loop (the same element in every iteration)
        // REMARK-NOT: remark
        %a0 = memref.load %A[%ty, %c0] : memref<4x4xi32>
        %ki = arith.index_cast %k : index to i32
        %v = arith.addi %a0, %ki : i32
        memref.store %v, %D[%row, %k] : memref<16x4xi32>
      }
      gpu.terminator
    }
    gpu.memcpy %h, %C : memref<4x4xi32>, memref<4x4xi32>
    %r0 = memref.load %h[%c0, %c0] : memref<4x4xi32>
    %r1 = memref.load %h[%c1, %c3] : memref<4x4xi32>
    %r2 = memref.load %h[%c3, %c2] : memref<4x4xi32>
    func.call @tessel_print_i32(%r0) : (i32) -> ()
    func.call @tessel_print_i32(%r1) : (i32) -> ()
    func.call @tessel_print_i32(%r2) : (i32) -> ()
    gpu.memcpy %hd, %D : memref<16x4xi32>, memref<16x4xi32>
    %c15 = arith.constant 15 : index
    %r3 = memref.load %hd[%c15, %c3] : memref<16x4xi32>
    func.call @tessel_print_i32(%r3) : (i32) -> ()
    %z = arith.constant 0 : i32
    %sum = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %z) -> i32 {
      %v = memref.load %h[%i, %c0] : memref<4x4xi32>
      %n = arith.addi %acc, %v : i32
      scf.yield %n : i32
    }
    return
  }
  func.func private @tessel_print_i32(i32)
}
