// tessel-hoist-offsets: the constant terms of a kernel's index sums move outward, so
// that sums that differ only by a constant (an unrolled loop's copies) share their
// variable part under cse. Run on sim, before and after, the stored sums are the same.
// RUN: tessel-opt %s --tessel-hoist-offsets | FileCheck %s
// RUN: tessel-opt %s --tessel-hoist-offsets --cse | FileCheck %s --check-prefix=CSE
// RUN: tessel-run %s --device=sim | FileCheck %s --check-prefix=OUT
// RUN: tessel-opt %s --tessel-hoist-offsets -o %t.mlir
// RUN: tessel-run %t.mlir --device=sim | FileCheck %s --check-prefix=OUT

// k = 10 + tx and o = 4 + bx are sums with a constant term too, so the constants of
// (k + 1) - o, (k + 2) - o, o - (k + 3) and (k + 1) + (o + 2) all end on top, over
// tx - bx, tx - bx, bx - tx and tx + bx.
// CHECK-LABEL: func.func @main(
// CHECK: gpu.launch blocks(%[[BX:[^,]*]], {{.*}} threads(%[[TX:[^,]*]],
// CHECK: %[[T1:.*]] = arith.subi %[[TX]], %[[BX]] : index
// CHECK: arith.addi %[[T1]], %{{.*}} : index
// CHECK: %[[T2:.*]] = arith.subi %[[TX]], %[[BX]] : index
// CHECK: arith.addi %[[T2]], %{{.*}} : index
// CHECK: %[[T3:.*]] = arith.subi %[[BX]], %[[TX]] : index
// CHECK: arith.addi %[[T3]], %{{.*}} : index
// CHECK: %[[T4:.*]] = arith.addi %[[TX]], %[[BX]] : index
// CHECK: arith.addi %[[T4]], %{{.*}} : index
// With cse, the first two share tx - bx and its constants; they differ in the last.
// CSE: %[[T:.*]] = arith.subi %[[TX:.*]], %[[BX:.*]] : index
// CSE-NOT: arith.subi %[[TX]], %[[BX]]
// CSE: %[[S:.*]] = arith.addi %{{.*}}, %c10 : index
// CSE-NEXT: arith.addi %[[S]], %c1 : index
// CSE-NEXT: arith.addi %[[S]], %c2 : index

// For thread t (k = 10 + t, o = 4): 7 + t, 8 + t, -9 - t, 17 + t.
// OUT: 7
// OUT-NEXT: 8
// OUT-NEXT: -9
// OUT-NEXT: 17
// OUT-NEXT: 8
// OUT-NEXT: 9
// OUT-NEXT: -10
// OUT-NEXT: 18

module attributes {gpu.container_module} {
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c5 = arith.constant 5 : index
    %c6 = arith.constant 6 : index
    %c7 = arith.constant 7 : index
    %c8 = arith.constant 8 : index
    %c10 = arith.constant 10 : index
    %R = gpu.alloc () : memref<8xi64>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c2, %sy = %c1, %sz = %c1) {
      %o = arith.addi %c4, %bx : index
      %k = arith.addi %c10, %tx : index
      %base = arith.muli %tx, %c4 : index
      %k1 = arith.addi %k, %c1 : index
      %r1 = arith.subi %k1, %o : index
      %k2 = arith.addi %k, %c2 : index
      %r2 = arith.subi %k2, %o : index
      %k3 = arith.addi %k, %c3 : index
      %r3 = arith.subi %o, %k3 : index
      %o2 = arith.addi %o, %c2 : index
      %r4 = arith.addi %k1, %o2 : index
      %i1 = arith.index_cast %r1 : index to i64
      %i2 = arith.index_cast %r2 : index to i64
      %i3 = arith.index_cast %r3 : index to i64
      %i4 = arith.index_cast %r4 : index to i64
      %p1 = arith.addi %base, %c1 : index
      %p2 = arith.addi %base, %c2 : index
      %p3 = arith.addi %base, %c3 : index
      memref.store %i1, %R[%base] : memref<8xi64>
      memref.store %i2, %R[%p1] : memref<8xi64>
      memref.store %i3, %R[%p2] : memref<8xi64>
      memref.store %i4, %R[%p3] : memref<8xi64>
      gpu.terminator
    }
    %h = memref.alloc() : memref<8xi64>
    gpu.memcpy %h, %R : memref<8xi64>, memref<8xi64>
    scf.for %i = %c0 to %c8 step %c1 {
      %v = memref.load %h[%i] : memref<8xi64>
      func.call @tessel_print_i64(%v) : (i64) -> ()
    }
    return
  }
  func.func private @tessel_print_i64(i64)
}
