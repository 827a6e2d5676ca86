// RUN: tessel-opt %s --tessel-schedule 2>%t.remarks | FileCheck %s
// RUN: FileCheck %s --input-file=%t.remarks --check-prefix=REMARK
// RUN: tessel-run %s --device=sim | FileCheck %s --check-prefix=OUT
// RUN: tessel-opt %s --tessel-optimize -o %t.mlir 2>/dev/null
// RUN: tessel-run %t.mlir --device=sim | FileCheck %s --check-prefix=OUT
// Statements at C's granularity (PPCG's): bicg's two products share one loop body,
// s[j] += r[i] * A[i][j] (a reduction along i) and q[i] += A[i][j] * p[j] (along j).
// As one statement, the body carries dependences along both loops, and the only
// parallel loop isl finds is a wavefront under a sequential one (a launch per step).
// Each store ends a statement of its own where nothing after it in the body uses a
// value from before it: apart, the two products are scheduled in two nests, each with
// a parallel outer loop (s's over j, q's over i). tessel-schedule tries the finer
// statements on a copy of the scop and keeps them where they give more parallelism
// (a remark says so). Threshold-like bodies of independent stores (every loop
// parallel either way) keep their one statement, and one kernel.

// REMARK: remark: scop scheduled with C's statements: with its loop bodies whole, it had fewer parallel loops

// CHECK-LABEL: func.func @bicg(
// CHECK: tpoly.scop {
// CHECK: affine.for %[[J:.*]] = 0 to
// CHECK: affine.for %[[I:.*]] = 0 to
// CHECK: affine.store %{{.*}}, %[[S:.*]][%[[J]]] : memref<?xf64>
// CHECK-NOT: affine.store
// CHECK: } {tpoly.band = [[B:[0-9]+]] : i64, tpoly.member = 1 : i64, tpoly.permutable}
// CHECK-NEXT: } {tpoly.band = [[B]] : i64, tpoly.coincident, tpoly.member = 0 : i64, tpoly.permutable}
// CHECK: affine.for %[[I2:.*]] = 0 to
// CHECK: affine.for %[[J2:.*]] = 0 to
// CHECK: affine.store %{{.*}}, %[[Q:.*]][%[[I2]]] : memref<?xf64>
// CHECK: } {tpoly.band = [[C:[0-9]+]] : i64, tpoly.member = 1 : i64, tpoly.permutable}
// CHECK-NEXT: } {tpoly.band = [[C]] : i64, tpoly.coincident, tpoly.member = 0 : i64, tpoly.permutable}

// CHECK-LABEL: func.func @threshold(
// CHECK: affine.for
// CHECK: affine.for
// CHECK: affine.store
// CHECK: affine.store
// CHECK: } {tpoly.band = 0 : i64, tpoly.coincident, tpoly.member = 1 : i64, tpoly.permutable}
// CHECK-NEXT: } {tpoly.band = 0 : i64, tpoly.coincident, tpoly.member = 0 : i64, tpoly.permutable}
// CHECK-NEXT: }
// CHECK-NEXT: return

// s = A^T r and q = A p for A[i][j] = i + 2j on 30x20, r[i] = 1, p[j] = j: s[19]
// = sum over i of (i + 38) = 1575, q[29] = sum over j of (29 + 2j) j = 10450; then the
// sums of the threshold's two outputs for x[i][j] = i + j on 7x7.
// OUT: 1575
// OUT-NEXT: 10450
// OUT-NEXT: 637
// OUT-NEXT: -294

module {
  func.func @bicg(%n: index, %m: index, %A: memref<?x?xf64>, %s: memref<?xf64>, %q: memref<?xf64>, %p: memref<?xf64>, %r: memref<?xf64>) {
    tpoly.scop {
      affine.for %j = 0 to %m {
        %z = arith.constant 0.0 : f64
        affine.store %z, %s[%j] : memref<?xf64>
      }
      affine.for %i = 0 to %n {
        %z = arith.constant 0.0 : f64
        affine.store %z, %q[%i] : memref<?xf64>
        affine.for %j = 0 to %m {
          %s0 = affine.load %s[%j] : memref<?xf64>
          %ri = affine.load %r[%i] : memref<?xf64>
          %a = affine.load %A[%i, %j] : memref<?x?xf64>
          %t = arith.mulf %ri, %a : f64
          %s1 = arith.addf %s0, %t : f64
          affine.store %s1, %s[%j] : memref<?xf64>
          %q0 = affine.load %q[%i] : memref<?xf64>
          %a2 = affine.load %A[%i, %j] : memref<?x?xf64>
          %pj = affine.load %p[%j] : memref<?xf64>
          %u = arith.mulf %a2, %pj : f64
          %q1 = arith.addf %q0, %u : f64
          affine.store %q1, %q[%i] : memref<?xf64>
        }
      }
    }
    return
  }
  func.func @threshold(%n: index, %x: memref<?x?xi32>, %y: memref<?x?xi32>, %w: memref<?x?xi32>) {
    tpoly.scop {
      affine.for %i = 0 to %n {
        affine.for %j = 0 to %n {
          %v = affine.load %x[%i, %j] : memref<?x?xi32>
          %c = arith.constant 7 : i32
          %a = arith.addi %v, %c : i32
          affine.store %a, %y[%i, %j] : memref<?x?xi32>
          %v2 = affine.load %x[%i, %j] : memref<?x?xi32>
          %c2 = arith.constant 0 : i32
          %b = arith.subi %c2, %v2 : i32
          affine.store %b, %w[%i, %j] : memref<?x?xi32>
        }
      }
    }
    return
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c7 = arith.constant 7 : index
    %c19 = arith.constant 19 : index
    %c20 = arith.constant 20 : index
    %c29 = arith.constant 29 : index
    %c30 = arith.constant 30 : index
    %one = arith.constant 1.0 : f64
    %A = memref.alloc(%c30, %c20) : memref<?x?xf64>
    %s = memref.alloc(%c20) : memref<?xf64>
    %q = memref.alloc(%c30) : memref<?xf64>
    %p = memref.alloc(%c20) : memref<?xf64>
    %r = memref.alloc(%c30) : memref<?xf64>
    scf.for %i = %c0 to %c30 step %c1 {
      memref.store %one, %r[%i] : memref<?xf64>
      scf.for %j = %c0 to %c20 step %c1 {
        %t = arith.muli %j, %c2 : index
        %u = arith.addi %i, %t : index
        %ui = arith.index_cast %u : index to i64
        %v = arith.sitofp %ui : i64 to f64
        memref.store %v, %A[%i, %j] : memref<?x?xf64>
      }
    }
    scf.for %j = %c0 to %c20 step %c1 {
      %ji = arith.index_cast %j : index to i64
      %v = arith.sitofp %ji : i64 to f64
      memref.store %v, %p[%j] : memref<?xf64>
    }
    func.call @bicg(%c30, %c20, %A, %s, %q, %p, %r) : (index, index, memref<?x?xf64>, memref<?xf64>, memref<?xf64>, memref<?xf64>, memref<?xf64>) -> ()
    %s19 = memref.load %s[%c19] : memref<?xf64>
    %q29 = memref.load %q[%c29] : memref<?xf64>
    %si = arith.fptosi %s19 : f64 to i64
    %qi = arith.fptosi %q29 : f64 to i64
    func.call @tessel_print_i64(%si) : (i64) -> ()
    func.call @tessel_print_i64(%qi) : (i64) -> ()
    %x = memref.alloc(%c7, %c7) : memref<?x?xi32>
    %y = memref.alloc(%c7, %c7) : memref<?x?xi32>
    %w = memref.alloc(%c7, %c7) : memref<?x?xi32>
    scf.for %i = %c0 to %c7 step %c1 {
      scf.for %j = %c0 to %c7 step %c1 {
        %u = arith.addi %i, %j : index
        %ui = arith.index_cast %u : index to i32
        memref.store %ui, %x[%i, %j] : memref<?x?xi32>
      }
    }
    func.call @threshold(%c7, %x, %y, %w) : (index, memref<?x?xi32>, memref<?x?xi32>, memref<?x?xi32>) -> ()
    %z = arith.constant 0 : i32
    %sy = scf.for %i = %c0 to %c7 step %c1 iter_args(%acc = %z) -> i32 {
      %row = scf.for %j = %c0 to %c7 step %c1 iter_args(%a = %acc) -> i32 {
        %v = memref.load %y[%i, %j] : memref<?x?xi32>
        %n = arith.addi %a, %v : i32
        scf.yield %n : i32
      }
      scf.yield %row : i32
    }
    %sw = scf.for %i = %c0 to %c7 step %c1 iter_args(%acc = %z) -> i32 {
      %row = scf.for %j = %c0 to %c7 step %c1 iter_args(%a = %acc) -> i32 {
        %v = memref.load %w[%i, %j] : memref<?x?xi32>
        %n = arith.addi %a, %v : i32
        scf.yield %n : i32
      }
      scf.yield %row : i32
    }
    func.call @tessel_print_i32(%sy) : (i32) -> ()
    func.call @tessel_print_i32(%sw) : (i32) -> ()
    return
  }
  func.func private @tessel_print_i64(i64)
  func.func private @tessel_print_i32(i32)
}
