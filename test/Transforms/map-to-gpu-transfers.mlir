// RUN: tessel-opt %s --tessel-map-to-gpu | FileCheck %s
// RUN: tessel-opt %s --tessel-schedule --tessel-map-to-gpu -o %t.mlir
// RUN: tessel-run %t.mlir --device=sim | FileCheck %s --check-prefix=OUT
// RUN: tessel-run %s --device=sim | FileCheck %s --check-prefix=OUT
// Data movement computed by isl (PPCG sec. 7.1, analysis/transfers.rs): an array is
// copied to the device before the scop only where a read may find its value from before
// the scop, or an element may stay unwritten (the copy back is of the whole array).

// Every element written before any read: no copy in; the copy back stays.
// CHECK-LABEL: func.func @full(
// CHECK-SAME: %[[A:[^:]*]]: memref<64xi64>
// CHECK: %[[D:.*]] = gpu.alloc () : memref<64xi64>
// CHECK-NOT: gpu.memcpy %[[D]], %[[A]]
// CHECK: gpu.launch
// CHECK: gpu.memcpy %[[A]], %[[D]]
func.func @full(%A: memref<64xi64>) {
  tpoly.scop {
    affine.for %i = 0 to 64 {
      %v = arith.index_cast %i : index to i64
      affine.store %v, %A[%i] : memref<64xi64>
    }
    affine.for %i = 0 to 64 {
      %v = affine.load %A[%i] : memref<64xi64>
      %w = arith.addi %v, %v : i64
      affine.store %w, %A[%i] : memref<64xi64>
    }
  }
  return
}

// Written up to %n only: copied in when n < 64, the condition the host tests (n <= 63).
// Both copies move the first n elements only, those the scop touches (when n >= 1; none
// otherwise), at most the 64 of the type: a caller may pass a shorter array.
// CHECK-LABEL: func.func @partial(
// CHECK-SAME: %[[A:[^:]*]]: memref<64xi64>, %[[N:[^:]*]]: index
// CHECK: %[[L:.*]] = arith.addi %[[N]], %c-1 : index
// CHECK: %[[S:.*]] = arith.cmpi sge, %[[L]], %c0 : index
// CHECK: %[[P:.*]] = arith.maxsi %[[N]], %c0 : index
// CHECK: %[[Q:.*]] = arith.minsi %[[P]], %c64 : index
// CHECK: %[[LEN:.*]] = arith.select %[[S]], %[[Q]], %c0 : index
// CHECK: %[[D:.*]] = gpu.alloc () : memref<64xi64>
// CHECK: %[[R:.*]] = arith.subi %c63, %[[N]] : index
// CHECK: %[[C:.*]] = arith.cmpi sge, %[[R]], %c0 : index
// CHECK: scf.if %[[C]] {
// CHECK-NEXT: %[[FD:.*]] = memref.reinterpret_cast %[[D]] to offset: [0], sizes: [%[[LEN]]], strides: [1] : memref<64xi64> to memref<?xi64>
// CHECK-NEXT: %[[FA:.*]] = memref.reinterpret_cast %[[A]] to offset: [0], sizes: [%[[LEN]]], strides: [1] : memref<64xi64> to memref<?xi64>
// CHECK-NEXT: gpu.memcpy %[[FD]], %[[FA]] : memref<?xi64>, memref<?xi64>
// CHECK-NEXT: }
// CHECK: gpu.launch
// CHECK: %[[GA:.*]] = memref.reinterpret_cast %[[A]] to offset: [0], sizes: [%[[LEN]]]
// CHECK-NEXT: %[[GD:.*]] = memref.reinterpret_cast %[[D]] to offset: [0], sizes: [%[[LEN]]]
// CHECK-NEXT: gpu.memcpy %[[GA]], %[[GD]]
func.func @partial(%A: memref<64xi64>, %n: index) {
  tpoly.scop {
    affine.for %i = 0 to %n {
      %v = arith.index_cast %i : index to i64
      affine.store %v, %A[%i] : memref<64xi64>
    }
  }
  return
}

// Read before written: always copied in.
// CHECK-LABEL: func.func @update(
// CHECK-SAME: %[[A:[^:]*]]: memref<64xi64>
// CHECK: %[[D:.*]] = gpu.alloc () : memref<64xi64>
// CHECK-NEXT: gpu.memcpy %[[D]], %[[A]]
func.func @update(%A: memref<64xi64>) {
  tpoly.scop {
    affine.for %i = 0 to 64 {
      %v = affine.load %A[%i] : memref<64xi64>
      %c = arith.constant 1 : i64
      %w = arith.addi %v, %c : i64
      affine.store %w, %A[%i] : memref<64xi64>
    }
  }
  return
}

// A write under a condition on data is a may-write: always copied in.
// CHECK-LABEL: func.func @maybe(
// CHECK: %[[D:.*]] = gpu.alloc () : memref<64xi64>
// CHECK-NEXT: gpu.memcpy %[[D]], %{{.*}}
func.func @maybe(%A: memref<64xi64>, %B: memref<64xi64>) {
  tpoly.scop {
    affine.for %i = 0 to 64 {
      %b = affine.load %B[%i] : memref<64xi64>
      %z = arith.constant 0 : i64
      %p = arith.cmpi sgt, %b, %z : i64
      scf.if %p {
        affine.store %b, %A[%i] : memref<64xi64>
      }
    }
  }
  return
}

// The host's values survive where the scop does not write: 7 beyond n = 32 in @partial,
// and @update's 8 where @maybe skips an element (B negative at odd i); the same values
// as the scops run on the host.
// OUT: 7
// OUT-NEXT: 31
// OUT-NEXT: 126
// OUT-NEXT: 40
// OUT-NEXT: 8
func.func @main() {
  %A = memref.alloc() : memref<64xi64>
  %B = memref.alloc() : memref<64xi64>
  %seven = arith.constant 7 : i64
  affine.for %i = 0 to 64 {
    affine.store %seven, %A[%i] : memref<64xi64>
    %v = arith.index_cast %i : index to i64
    %two = arith.constant 2 : i64
    %r = arith.remsi %v, %two : i64
    %z = arith.constant 0 : i64
    %odd = arith.cmpi ne, %r, %z : i64
    %m = arith.constant -1 : i64
    %b = arith.select %odd, %m, %v : i64
    affine.store %b, %B[%i] : memref<64xi64>
  }
  %c32 = arith.constant 32 : index
  func.call @partial(%A, %c32) : (memref<64xi64>, index) -> ()
  %a40 = affine.load %A[40] : memref<64xi64>
  func.call @tessel_print_i64(%a40) : (i64) -> ()
  %a31 = affine.load %A[31] : memref<64xi64>
  func.call @tessel_print_i64(%a31) : (i64) -> ()
  func.call @full(%A) : (memref<64xi64>) -> ()
  %a63 = affine.load %A[63] : memref<64xi64>
  func.call @tessel_print_i64(%a63) : (i64) -> ()
  affine.for %i = 0 to 64 {
    affine.store %seven, %A[%i] : memref<64xi64>
  }
  func.call @update(%A) : (memref<64xi64>) -> ()
  func.call @maybe(%A, %B) : (memref<64xi64>, memref<64xi64>) -> ()
  %a2 = affine.load %A[40] : memref<64xi64>
  func.call @tessel_print_i64(%a2) : (i64) -> ()
  %a3 = affine.load %A[3] : memref<64xi64>
  func.call @tessel_print_i64(%a3) : (i64) -> ()
  return
}
func.func private @tessel_print_i64(i64)
