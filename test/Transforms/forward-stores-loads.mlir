// tessel-forward-stores on loads: a load of an element the thread loaded or stored
// before, with nothing between them that may write it, reuses the value. The C
// conditional `A[t][j] > m ? A[t][j] : m` loads its chosen operand again in the
// branch; that load goes (in a kernel, a branch's load of divergent lanes is a
// partial request of its own). Loads are looked for backwards through the scf.if
// around the load, not across a loop, a store that may write the element or a
// barrier.
// RUN: tessel-opt %s --tessel-forward-stores 2>/dev/null | FileCheck %s
// RUN: tessel-run %s --device=sim | FileCheck %s --check-prefix=OUT
// RUN: tessel-opt %s --tessel-forward-stores -o %t.mlir 2>/dev/null
// RUN: tessel-run %t.mlir --device=sim | FileCheck %s --check-prefix=OUT

module attributes {gpu.container_module} {

// Each thread's row maximum, m = A[t][j] > m ? A[t][j] : m along j: the branch yields
// the comparison's load.
// CHECK-LABEL: func.func @rowmax(
// CHECK-SAME: %[[A:[^:]*]]: memref<4x8xi32>
// CHECK: scf.for
// CHECK: %[[X:.*]] = memref.load %[[A]][
// CHECK: scf.if %{{.*}} -> (i32) {
// CHECK-NOT: memref.load
// CHECK: scf.yield %[[X]] : i32
// CHECK-NEXT: } else {
func.func @rowmax(%A: memref<4x8xi32>, %M: memref<4xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
    %lo = arith.constant -1000 : i32
    %m = scf.for %j = %c0 to %c8 step %c1 iter_args(%acc = %lo) -> (i32) {
      %x = memref.load %A[%tx, %j] : memref<4x8xi32>
      %gt = arith.cmpi sgt, %x, %acc : i32
      %r = scf.if %gt -> (i32) {
        %j0 = arith.addi %j, %c0 : index
        %y = memref.load %A[%tx, %j0] : memref<4x8xi32>
        scf.yield %y : i32
      } else {
        scf.yield %acc : i32
      }
      scf.yield %r : i32
    }
    memref.store %m, %M[%tx] : memref<4xi32>
    gpu.terminator
  }
  return
}

// The quotient stored into P[t][t] is stored again into Q[t][0] with no load of it.
// CHECK-LABEL: func.func @stored(
// CHECK-SAME: %[[P:[^:]*]]: memref<4x4xf64>, %[[Q:[^:]*]]: memref<4x4xf64>
// CHECK: %[[X:.*]] = memref.load %[[P]]
// CHECK: %[[D:.*]] = arith.divf %[[X]], %{{.*}} : f64
// CHECK-NEXT: memref.store %[[D]], %[[P]]
// CHECK-NOT: memref.load
// CHECK: memref.store %[[D]], %[[Q]]
// And the scalar register it is also stored in, read in a branch (a 0-d memref).
// CHECK: scf.if %{{.*}} -> (f64) {
// CHECK-NEXT: scf.yield %[[D]] : f64
func.func @stored(%P: memref<4x4xf64>, %Q: memref<4x4xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
    %x = memref.load %P[%tx, %tx] : memref<4x4xf64>
    %two = arith.constant 2.0 : f64
    %d = arith.divf %x, %two : f64
    memref.store %d, %P[%tx, %tx] : memref<4x4xf64>
    %y = memref.load %P[%tx, %tx] : memref<4x4xf64>
    memref.store %y, %Q[%tx, %c0] : memref<4x4xf64>
    %r = memref.alloca() : memref<f64>
    memref.store %d, %r[] : memref<f64>
    %gt = arith.cmpf ogt, %d, %two : f64
    %w = scf.if %gt -> (f64) {
      %l = memref.load %r[] : memref<f64>
      scf.yield %l : f64
    } else {
      scf.yield %two : f64
    }
    memref.store %w, %Q[%tx, %c1] : memref<4x4xf64>
    gpu.terminator
  }
  return
}

// A 0-d memref's element, loaded before a branch and again in it.
// CHECK-LABEL: func.func @scalar(
// CHECK: %[[S:.*]] = memref.load
// CHECK: scf.if %{{.*}} -> (f64) {
// CHECK-NEXT: scf.yield %[[S]] : f64
func.func @scalar(%S: memref<f64>, %Q: memref<4xf64>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
    %s = memref.load %S[] : memref<f64>
    %z = arith.constant 0.0 : f64
    %gt = arith.cmpf ogt, %s, %z : f64
    %w = scf.if %gt -> (f64) {
      %l = memref.load %S[] : memref<f64>
      scf.yield %l : f64
    } else {
      scf.yield %z : f64
    }
    memref.store %w, %Q[%tx] : memref<4xf64>
    gpu.terminator
  }
  return
}

// Kept: a store that may be to the element between the loads (A[0][t], for t = 0), a
// store through another argument (which may be the same array), a barrier, a loop
// between them, and a load of a neighbouring element.
// CHECK-LABEL: func.func @kept(
// CHECK-COUNT-8: memref.load
// CHECK-NOT: memref.load
// CHECK: return
func.func @kept(%A: memref<4x8xi32>, %B: memref<4x8xi32>, %c: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant 0 : i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
    %a = memref.load %A[%tx, %c0] : memref<4x8xi32>
    memref.store %z, %A[%c0, %tx] : memref<4x8xi32>
    %b = memref.load %A[%tx, %c0] : memref<4x8xi32>
    %d = memref.load %A[%tx, %c1] : memref<4x8xi32>
    memref.store %z, %B[%tx, %c1] : memref<4x8xi32>
    %e = memref.load %A[%tx, %c1] : memref<4x8xi32>
    gpu.barrier
    %f = memref.load %A[%tx, %c1] : memref<4x8xi32>
    scf.for %k = %c0 to %c4 step %c1 {
      %g = memref.load %A[%tx, %c1] : memref<4x8xi32>
      memref.store %g, %B[%k, %tx] : memref<4x8xi32>
    }
    %h = memref.load %A[%tx, %c1] : memref<4x8xi32>
    %t1 = arith.addi %tx, %c1 : index
    %i = memref.load %A[%t1, %c0] : memref<4x8xi32>
    %s0 = arith.addi %a, %b : i32
    %s1 = arith.addi %s0, %d : i32
    %s2 = arith.addi %s1, %e : i32
    %s3 = arith.addi %s2, %f : i32
    %s4 = arith.addi %s3, %h : i32
    %s5 = arith.addi %s4, %i : i32
    memref.store %s5, %B[%tx, %c0] : memref<4x8xi32>
    gpu.terminator
  }
  return
}

// A[i][j] = (5 i + 3 j) mod 8 + 2 i: the row maxima 7, 9, 11 and 13.
// OUT: 7
// OUT-NEXT: 9
// OUT-NEXT: 11
// OUT-NEXT: 13
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c5 = arith.constant 5 : index
    %c8 = arith.constant 8 : index
    %ha = memref.alloc() : memref<4x8xi32>
    scf.for %i = %c0 to %c4 step %c1 {
      scf.for %j = %c0 to %c8 step %c1 {
        %a = arith.muli %i, %c5 : index
        %b = arith.muli %j, %c3 : index
        %s = arith.addi %a, %b : index
        %r = arith.remui %s, %c8 : index
        %i2 = arith.muli %i, %c2 : index
        %v = arith.addi %r, %i2 : index
        %vi = arith.index_cast %v : index to i32
        memref.store %vi, %ha[%i, %j] : memref<4x8xi32>
      }
    }
    %A = gpu.alloc () : memref<4x8xi32>
    %M = gpu.alloc () : memref<4xi32>
    gpu.memcpy %A, %ha : memref<4x8xi32>, memref<4x8xi32>
    call @rowmax(%A, %M) : (memref<4x8xi32>, memref<4xi32>) -> ()
    %hm = memref.alloc() : memref<4xi32>
    gpu.memcpy %hm, %M : memref<4xi32>, memref<4xi32>
    %m0 = memref.load %hm[%c0] : memref<4xi32>
    %m1 = memref.load %hm[%c1] : memref<4xi32>
    %m2 = memref.load %hm[%c2] : memref<4xi32>
    %m3 = memref.load %hm[%c3] : memref<4xi32>
    func.call @tessel_print_i32(%m0) : (i32) -> ()
    func.call @tessel_print_i32(%m1) : (i32) -> ()
    func.call @tessel_print_i32(%m2) : (i32) -> ()
    func.call @tessel_print_i32(%m3) : (i32) -> ()
    return
  }
  func.func private @tessel_print_i32(i32)
}
