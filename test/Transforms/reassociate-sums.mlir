// RUN: tessel-opt %s --tessel-reassociate-sums | FileCheck %s
// RUN: tessel-opt %s --tessel-reassociate-sums --cse | FileCheck %s --check-prefix=CSE
// RUN: tessel-opt %s -o %t.before.mlir
// RUN: tessel-opt %s --tessel-reassociate-sums --cse -o %t.after.mlir
// RUN: tessel-run %t.before.mlir --device=sim > %t.before.txt
// RUN: tessel-run %t.after.mlir --device=sim > %t.after.txt
// RUN: diff %t.before.txt %t.after.txt
// RUN: FileCheck %s --input-file=%t.after.txt --check-prefix=OUT
// Two points of a thread (rows %r1 and %r2 of a 3x2 box filter on unsigned char, as
// tessel-ilp-unroll leaves them side by side, each point with its own loads): each sums
// its 3 rows of 2 elements in the C order. The 4 elements of rows %r1 and %r2 are in
// both sums: the pair of them that both sums add, the earliest first, becomes one add,
// then the next pair, then the sum of the two pairs, each once, before the first point's
// root; each sum then adds its own elements and the shared part (7 adds for the 2 points,
// instead of 2 x 5).

// CHECK-LABEL: func.func @box(
// CHECK: gpu.launch
// CHECK: arith.extui %{{.*}} : i8 to i32
// CHECK-NEXT: arith.extui
// CHECK-NEXT: %[[A10:.*]] = arith.extui
// CHECK-NEXT: %[[A11:.*]] = arith.extui
// CHECK-NEXT: %[[A20:.*]] = arith.extui
// CHECK-NEXT: %[[A21:.*]] = arith.extui
// CHECK-NEXT: %[[R1:.*]] = arith.addi %[[A10]], %[[A11]] : i32
// CHECK-NEXT: %[[R2:.*]] = arith.addi %[[A20]], %[[A21]] : i32
// CHECK-NEXT: %[[R12:.*]] = arith.addi %[[R1]], %[[R2]] : i32
// CHECK-NEXT: %[[R0:.*]] = arith.addi %{{.*}}, %{{.*}} : i32
// The root stays, without its overflow flags.
// CHECK-NEXT: %[[S0:.*]] = arith.addi %[[R0]], %[[R12]] : i32
// CHECK-NOT: overflow
// CHECK: arith.divui %[[S0]]
// The second point adds its own row %r3 to the shared part.
// CHECK: %[[T:.*]] = arith.addi %[[R12]], %{{.*}} : i32
// CHECK-NEXT: %[[S1:.*]] = arith.addi %[[T]], %{{.*}} : i32
// CHECK-NEXT: arith.divui %[[S1]]

// After cse (which now only merges the second point's loads with the first's):
// CSE-LABEL: func.func @box(
// CSE-COUNT-7: arith.addi %{{.*}}, %{{.*}} : i32
// CSE-NOT: arith.addi %{{.*}}, %{{.*}} : i32
// CSE-LABEL: func.func @pair(

// Two sums of different rows that add the same two elements share that pair; sums that
// share no pair are left as they are; so are floating-point sums.
// CHECK-LABEL: func.func @pair(
// CHECK: %[[B:.*]] = memref.load %{{.*}}[%arg2, %arg1]
// CHECK-NEXT: %[[C:.*]] = memref.load %{{.*}}[%arg1, %arg1]
// CHECK-NEXT: %[[BC:.*]] = arith.addi %[[B]], %[[C]] : i32
// CHECK-NEXT: arith.addi %{{.*}}, %[[BC]] : i32
// CHECK: arith.addi %{{.*}}, %[[BC]] : i32
// CHECK-LABEL: func.func @apart(
// CHECK: %[[X:.*]] = arith.addi %{{.*}}, %{{.*}} overflow<nsw> : i32
// CHECK-NEXT: arith.addi %[[X]], %{{.*}} overflow<nsw> : i32
// A store between two loads of one element: they are two leaves (the second may read
// what the store wrote), so the sums share no pair.
// CHECK-LABEL: func.func @stored(
// CHECK: %[[X2:.*]] = arith.addi %{{.*}}, %{{.*}} overflow<nsw> : i32
// CHECK-NEXT: arith.addi %[[X2]], %{{.*}} overflow<nsw> : i32
// CHECK: memref.store
// CHECK: %[[Z2:.*]] = arith.addi %{{.*}}, %{{.*}} overflow<nsw> : i32
// CHECK-NEXT: arith.addi %[[Z2]], %{{.*}} overflow<nsw> : i32
// CHECK-LABEL: func.func @floats(
// CHECK: %[[F:.*]] = arith.addf
// CHECK-NEXT: arith.addf %[[F]]

// OUT: 81
// OUT-NEXT: 118
// OUT-NEXT: 112
// OUT-NEXT: 0
// OUT-NEXT: 143
// OUT-NEXT: 138
// OUT-NEXT: 89
// OUT-NEXT: 0

module {
  func.func @box(%in: memref<4x4xi8>, %out: memref<2x4xi32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c6 = arith.constant 6 : i32
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c3, %sy = %c1, %sz = %c1) {
      %r0 = arith.addi %c0, %c0 : index
      %r1 = arith.addi %c0, %c1 : index
      %r2 = arith.addi %c0, %c2 : index
      %r3 = arith.addi %c0, %c3 : index
      %j0 = arith.addi %tx, %c0 : index
      %j1 = arith.addi %tx, %c1 : index
      // Point 0: rows 0, 1, 2.
      %a00 = memref.load %in[%r0, %j0] : memref<4x4xi8>
      %a01 = memref.load %in[%r0, %j1] : memref<4x4xi8>
      %a10 = memref.load %in[%r1, %j0] : memref<4x4xi8>
      %a11 = memref.load %in[%r1, %j1] : memref<4x4xi8>
      %a20 = memref.load %in[%r2, %j0] : memref<4x4xi8>
      %a21 = memref.load %in[%r2, %j1] : memref<4x4xi8>
      %e00 = arith.extui %a00 : i8 to i32
      %e01 = arith.extui %a01 : i8 to i32
      %e10 = arith.extui %a10 : i8 to i32
      %e11 = arith.extui %a11 : i8 to i32
      %e20 = arith.extui %a20 : i8 to i32
      %e21 = arith.extui %a21 : i8 to i32
      %p1 = arith.addi %e00, %e01 overflow<nsw> : i32
      %p2 = arith.addi %p1, %e10 overflow<nsw> : i32
      %p3 = arith.addi %p2, %e11 overflow<nsw> : i32
      %p4 = arith.addi %p3, %e20 overflow<nsw> : i32
      %p5 = arith.addi %p4, %e21 overflow<nsw> : i32
      %q0 = arith.divui %p5, %c6 : i32
      // Point 1: rows 1, 2, 3 (its own loads of the same elements).
      %b10 = memref.load %in[%r1, %j0] : memref<4x4xi8>
      %b11 = memref.load %in[%r1, %j1] : memref<4x4xi8>
      %b20 = memref.load %in[%r2, %j0] : memref<4x4xi8>
      %b21 = memref.load %in[%r2, %j1] : memref<4x4xi8>
      %b30 = memref.load %in[%r3, %j0] : memref<4x4xi8>
      %b31 = memref.load %in[%r3, %j1] : memref<4x4xi8>
      %f10 = arith.extui %b10 : i8 to i32
      %f11 = arith.extui %b11 : i8 to i32
      %f20 = arith.extui %b20 : i8 to i32
      %f21 = arith.extui %b21 : i8 to i32
      %f30 = arith.extui %b30 : i8 to i32
      %f31 = arith.extui %b31 : i8 to i32
      %s1 = arith.addi %f10, %f11 overflow<nsw> : i32
      %s2 = arith.addi %s1, %f20 overflow<nsw> : i32
      %s3 = arith.addi %s2, %f21 overflow<nsw> : i32
      %s4 = arith.addi %s3, %f30 overflow<nsw> : i32
      %s5 = arith.addi %s4, %f31 overflow<nsw> : i32
      %q1 = arith.divui %s5, %c6 : i32
      memref.store %q0, %out[%c0, %tx] : memref<2x4xi32>
      memref.store %q1, %out[%c1, %tx] : memref<2x4xi32>
      gpu.terminator
    }
    return
  }

  func.func @pair(%in: memref<4x4xi32>, %i: index, %j: index) -> (i32, i32) {
    %c1 = arith.constant 1 : index
    %r = arith.constant 0 : i32
    %o = memref.alloc() : memref<2xi32>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
      %a = memref.load %in[%i, %j] : memref<4x4xi32>
      %b = memref.load %in[%j, %i] : memref<4x4xi32>
      %c = memref.load %in[%i, %i] : memref<4x4xi32>
      %x = arith.addi %a, %b overflow<nsw> : i32
      %y = arith.addi %x, %c overflow<nsw> : i32
      %d = memref.load %in[%j, %j] : memref<4x4xi32>
      %z = arith.addi %d, %b : i32
      %w = arith.addi %z, %c : i32
      memref.store %y, %o[%c1] : memref<2xi32>
      memref.store %w, %o[%c1] : memref<2xi32>
      gpu.terminator
    }
    return %r, %r : i32, i32
  }

  func.func @apart(%in: memref<4x4xi32>, %i: index, %j: index) -> (i32, i32) {
    %c1 = arith.constant 1 : index
    %r = arith.constant 0 : i32
    %o = memref.alloc() : memref<2xi32>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
      %a = memref.load %in[%i, %j] : memref<4x4xi32>
      %b = memref.load %in[%j, %i] : memref<4x4xi32>
      %c = memref.load %in[%i, %i] : memref<4x4xi32>
      %x = arith.addi %a, %b overflow<nsw> : i32
      %y = arith.addi %x, %c overflow<nsw> : i32
      %d = memref.load %in[%j, %j] : memref<4x4xi32>
      %h = memref.load %in[%c1, %i] : memref<4x4xi32>
      %z = arith.addi %d, %b : i32
      %w = arith.addi %z, %h : i32
      memref.store %y, %o[%c1] : memref<2xi32>
      memref.store %w, %o[%c1] : memref<2xi32>
      gpu.terminator
    }
    return %r, %r : i32, i32
  }

  func.func @stored(%in: memref<4x4xi32>, %i: index, %j: index) {
    %c1 = arith.constant 1 : index
    %o = memref.alloc() : memref<2xi32>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
      %a = memref.load %in[%i, %j] : memref<4x4xi32>
      %b = memref.load %in[%j, %i] : memref<4x4xi32>
      %c = memref.load %in[%i, %i] : memref<4x4xi32>
      %x = arith.addi %a, %b overflow<nsw> : i32
      %y = arith.addi %x, %c overflow<nsw> : i32
      memref.store %y, %in[%i, %j] : memref<4x4xi32>
      %a2 = memref.load %in[%i, %j] : memref<4x4xi32>
      %b2 = memref.load %in[%j, %i] : memref<4x4xi32>
      %d = memref.load %in[%j, %j] : memref<4x4xi32>
      %z = arith.addi %a2, %b2 overflow<nsw> : i32
      %w = arith.addi %z, %d overflow<nsw> : i32
      memref.store %w, %o[%c1] : memref<2xi32>
      gpu.terminator
    }
    return
  }

  func.func @floats(%in: memref<4x4xf32>, %i: index, %j: index) {
    %c1 = arith.constant 1 : index
    %o = memref.alloc() : memref<2xf32>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
      %a = memref.load %in[%i, %j] : memref<4x4xf32>
      %b = memref.load %in[%i, %i] : memref<4x4xf32>
      %c = memref.load %in[%j, %i] : memref<4x4xf32>
      %x = arith.addf %a, %b : f32
      %y = arith.addf %x, %c : f32
      memref.store %y, %o[%c1] : memref<2xf32>
      gpu.terminator
    }
    return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c37 = arith.constant 37 : index
    %z = arith.constant 0 : i32
    %h = memref.alloc() : memref<4x4xi8>
    %ho = memref.alloc() : memref<2x4xi32>
    scf.for %i = %c0 to %c4 step %c1 {
      scf.for %j = %c0 to %c4 step %c1 {
        %a = arith.muli %i, %c4 : index
        %b = arith.addi %a, %j : index
        %m = arith.muli %b, %c37 : index
        %n = arith.index_cast %m : index to i32
        %v = arith.trunci %n : i32 to i8
        memref.store %v, %h[%i, %j] : memref<4x4xi8>
      }
    }
    scf.for %i = %c0 to %c2 step %c1 {
      scf.for %j = %c0 to %c4 step %c1 {
        memref.store %z, %ho[%i, %j] : memref<2x4xi32>
      }
    }
    %A = gpu.alloc () : memref<4x4xi8>
    %B = gpu.alloc () : memref<2x4xi32>
    gpu.memcpy %A, %h : memref<4x4xi8>, memref<4x4xi8>
    gpu.memcpy %B, %ho : memref<2x4xi32>, memref<2x4xi32>
    func.call @box(%A, %B) : (memref<4x4xi8>, memref<2x4xi32>) -> ()
    gpu.memcpy %ho, %B : memref<2x4xi32>, memref<2x4xi32>
    scf.for %i = %c0 to %c2 step %c1 {
      scf.for %j = %c0 to %c4 step %c1 {
        %v = memref.load %ho[%i, %j] : memref<2x4xi32>
        func.call @tessel_print_i32(%v) : (i32) -> ()
      }
    }
    return
  }
  func.func private @tessel_print_i32(i32)
}
