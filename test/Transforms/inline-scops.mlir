// RUN: tessel-opt %s --tessel-inline-scops | FileCheck %s
// A scop left on the host runs as written: tessel-run lowers it with the rest of the
// host code, before and after rescheduling, and prints the same values.
// RUN: tessel-run %s --device=sim | FileCheck %s --check-prefix=OUT
// RUN: tessel-opt %s --tessel-schedule -o %t.mlir
// RUN: FileCheck %s --input-file=%t.mlir --check-prefix=SCHED
// RUN: tessel-run %t.mlir --device=sim | FileCheck %s --check-prefix=OUT

// CHECK-LABEL: func.func @main(
// CHECK-NOT: tpoly.scop
// CHECK: affine.for
// CHECK: %[[R:.*]] = arith.addi %c4
// CHECK-NOT: tpoly.yield
// CHECK: arith.index_cast %[[R]]
// The producer loops are fused by the schedule, in a parallel loop; the reduction
// stays a loop of its own.
// SCHED: affine.for %{{.*}} = 0 to 8 {
// SCHED: arith.muli
// SCHED-NEXT: affine.store
// SCHED-NEXT: } {tpoly.band = 0 : i64, tpoly.coincident, tpoly.member = 0 : i64, tpoly.permutable}
// SCHED-NEXT: affine.for %{{.*}} = 0 to 8 {
// SCHED: } {tpoly.band = 1 : i64, tpoly.member = 0 : i64}
// OUT: 140
// OUT-NEXT: 280
// OUT-NEXT: 11
func.func @main() {
  %A = memref.alloc() : memref<8xi64>
  %B = memref.alloc() : memref<8xi64>
  %S = memref.alloc() : memref<1xi64>
  %S2 = memref.alloc() : memref<1xi64>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0 : i64
  memref.store %z, %S[%c0] : memref<1xi64>
  memref.store %z, %S2[%c0] : memref<1xi64>
  tpoly.scop {
    affine.for %i = 0 to 8 {
      %v = arith.index_cast %i : index to i64
      affine.store %v, %A[%i] : memref<8xi64>
    }
    affine.for %i = 0 to 8 {
      %a = affine.load %A[%i] : memref<8xi64>
      %t = arith.muli %a, %a : i64
      affine.store %t, %B[%i] : memref<8xi64>
    }
    affine.for %i = 0 to 8 {
      %b = affine.load %B[%i] : memref<8xi64>
      %s = affine.load %S[0] : memref<1xi64>
      %n = arith.addi %s, %b : i64
      affine.store %n, %S[0] : memref<1xi64>
    }
    // A value loaded outside the loop that uses it (through a buffer when rescheduled).
    affine.for %i = 0 to 8 {
      %b = affine.load %B[%i] : memref<8xi64>
      affine.for %j = 0 to 2 {
        %s = affine.load %S2[0] : memref<1xi64>
        %n = arith.addi %s, %b : i64
        affine.store %n, %S2[0] : memref<1xi64>
      }
    }
  }
  // A scop with a result: the yielded value replaces it.
  %r = tpoly.scop -> index {
    affine.for %i = 0 to 1 {
      affine.store %z, %A[%i] : memref<8xi64>
    }
    %c4 = arith.constant 4 : index
    %c7 = arith.constant 7 : index
    %q = arith.addi %c4, %c7 : index
    tpoly.yield %q : index
  }
  %s = memref.load %S[%c0] : memref<1xi64>
  func.call @tessel_print_i64(%s) : (i64) -> ()
  %s2 = memref.load %S2[%c0] : memref<1xi64>
  func.call @tessel_print_i64(%s2) : (i64) -> ()
  %ri = arith.index_cast %r : index to i64
  func.call @tessel_print_i64(%ri) : (i64) -> ()
  return
}
func.func private @tessel_print_i64(i64)
