// tessel-forward-stores: a value a thread's loop stores in one iteration and loads
// back in the next (a recurrence along the loop) is carried in a register: the load
// goes, the loop carries the stored value, one load before the loop (where the loop
// runs at least once) reads what the first iteration read. The stores stay.
// RUN: tessel-opt %s --tessel-forward-stores 2>/dev/null | FileCheck %s
// RUN: tessel-opt %s --tessel-forward-stores 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: tessel-run %s --device=sim | FileCheck %s --check-prefix=OUT
// RUN: tessel-opt %s --tessel-forward-stores -o %t.mlir 2>/dev/null
// RUN: tessel-run %t.mlir --device=sim | FileCheck %s --check-prefix=OUT

module attributes {gpu.container_module} {

// P[tx][j] = 2 P[tx][j - 1] + A[tx][j] along j (adi's p[i][j] from p[i][j - 1]).
// CHECK-LABEL: func.func @recurrence(
// CHECK-SAME: %[[P:[^:]*]]: memref<4x16xi32>
// CHECK: gpu.launch
// CHECK: %[[NE:.*]] = arith.cmpi slt, %[[LO:.*]], %[[N:.*]] : index
// CHECK-NEXT: %[[INIT:.*]] = scf.if %[[NE]] -> (i32) {
// CHECK: %[[X:.*]] = memref.load %[[P]][
// CHECK-NEXT: scf.yield %[[X]] : i32
// CHECK-NEXT: } else {
// CHECK: %[[R:.*]] = scf.for %[[J:.*]] = %[[LO]] to %[[N]] step %{{.*}} iter_args(%[[PREV:.*]] = %[[INIT]]) -> (i32) {
// CHECK-NOT: memref.load %[[P]]
// CHECK: %[[D:.*]] = arith.muli %[[PREV]], %{{.*}} : i32
// CHECK-NEXT: %[[S:.*]] = arith.addi %[[D]], %{{.*}} : i32
// CHECK-NEXT: memref.store %[[S]], %[[P]][%{{.*}}, %[[J]]] : memref<4x16xi32>
// CHECK-NEXT: scf.yield %[[S]] : i32
// REMARK: forward-stores.mlir:[[@LINE+13]]:7: remark: forwarded to the next iteration's load in a register
func.func @recurrence(%P: memref<4x16xi32>, %A: memref<4x16xi32>, %n: index) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %two = arith.constant 2 : i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
    scf.for %j = %c1 to %n step %c1 {
      %jm = arith.subi %j, %c1 : index
      %p = memref.load %P[%tx, %jm] : memref<4x16xi32>
      %a = memref.load %A[%tx, %j] : memref<4x16xi32>
      %d = arith.muli %p, %two : i32
      %s = arith.addi %d, %a : i32
      memref.store %s, %P[%tx, %j] : memref<4x16xi32>
    }
    gpu.terminator
  }
  return
}

// A backward sweep: V[j][tx] = 3 V[j + 1][tx] + Q[j][tx] for j = top, top - 1, ..., 0,
// the loop counting up (j = top - k).
// CHECK-LABEL: func.func @backward(
// CHECK-SAME: %[[V:[^:]*]]: memref<16x4xi32>
// CHECK: memref.load %[[V]]
// CHECK: scf.for %{{.*}} iter_args(%[[PREV:.*]] = %{{.*}}) -> (i32) {
// CHECK-NOT: memref.load %[[V]]
// CHECK: arith.muli %[[PREV]]
// CHECK: memref.store %[[W:.*]], %[[V]]
// CHECK-NEXT: scf.yield %[[W]] : i32
func.func @backward(%V: memref<16x4xi32>, %Q: memref<16x4xi32>, %top: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %three = arith.constant 3 : i32
  %trip = arith.addi %top, %c1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
    scf.for %k = %c0 to %trip step %c1 {
      %j = arith.subi %top, %k : index
      %q = memref.load %Q[%j, %tx] : memref<16x4xi32>
      %jn = arith.addi %j, %c1 : index
      %v = memref.load %V[%jn, %tx] : memref<16x4xi32>
      %m = arith.muli %v, %three : i32
      %s = arith.addi %m, %q : i32
      memref.store %s, %V[%j, %tx] : memref<16x4xi32>
    }
    gpu.terminator
  }
  return
}

// The load under a condition: it still reads from memory in the first iteration (where
// it stands, so it reads only what the loop read), the register after.
// CHECK-LABEL: func.func @conditional(
// CHECK-SAME: %[[P:[^:]*]]: memref<4x16xi32>
// CHECK: scf.for %[[J:.*]] = %[[LO:[^ ]*]] to %{{.*}} iter_args(%[[PREV:.*]] = %{{.*}}) -> (i32) {
// CHECK: scf.if
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[J]], %[[LO]] : index
// CHECK-NEXT: %[[X:.*]] = scf.if %[[FIRST]] -> (i32) {
// CHECK-NEXT: %[[L:.*]] = memref.load %[[P]]
// CHECK-NEXT: scf.yield %[[L]] : i32
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %[[PREV]] : i32
// CHECK-NEXT: }
// CHECK-NEXT: scf.yield %[[X]] : i32
func.func @conditional(%P: memref<4x16xi32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
    %reads = arith.cmpi sgt, %tx, %c0 : index
    scf.for %j = %c1 to %n step %c1 {
      %x = scf.if %reads -> (i32) {
        %jm = arith.subi %j, %c1 : index
        %p = memref.load %P[%tx, %jm] : memref<4x16xi32>
        scf.yield %p : i32
      } else {
        scf.yield %zero : i32
      }
      %s = arith.addi %x, %one : i32
      memref.store %s, %P[%tx, %j] : memref<4x16xi32>
    }
    gpu.terminator
  }
  return
}

// Left alone: a second store to the array in the loop; a store to another argument
// (it may be the same array); a barrier; the same element in every iteration (the
// store's subscripts do not change with the loop: tessel-promote-registers' case).
// CHECK-LABEL: func.func @kept(
// CHECK-NOT: iter_args
// CHECK: return
func.func @kept(%P: memref<4x16xi32>, %Q: memref<4x16xi32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1 : i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
    scf.for %j = %c1 to %n step %c1 {
      %jm = arith.subi %j, %c1 : index
      %p = memref.load %P[%tx, %jm] : memref<4x16xi32>
      memref.store %p, %P[%tx, %j] : memref<4x16xi32>
      memref.store %one, %P[%tx, %c0] : memref<4x16xi32>
    }
    scf.for %j = %c1 to %n step %c1 {
      %jm = arith.subi %j, %c1 : index
      %p = memref.load %P[%tx, %jm] : memref<4x16xi32>
      memref.store %p, %P[%tx, %j] : memref<4x16xi32>
      memref.store %p, %Q[%tx, %j] : memref<4x16xi32>
    }
    scf.for %j = %c1 to %n step %c1 {
      %jm = arith.subi %j, %c1 : index
      %p = memref.load %P[%tx, %jm] : memref<4x16xi32>
      memref.store %p, %P[%tx, %j] : memref<4x16xi32>
      gpu.barrier
    }
    scf.for %j = %c1 to %n step %c1 {
      %p = memref.load %P[%tx, %c0] : memref<4x16xi32>
      %s = arith.addi %p, %one : i32
      memref.store %s, %P[%tx, %c0] : memref<4x16xi32>
    }
    gpu.terminator
  }
  return
}

// A loop that already carries a value and yields it unchanged: the new loop yields its
// own block argument, not the old loop's, which goes with the old loop (a random
// program, fuzz seed 32269, crashed in the verifier on it).
// CHECK-LABEL: func.func @carried(
// CHECK: %{{.*}}:2 = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[PREV:.*]] = %{{.*}}) -> (i32, i32) {
// CHECK-NOT: memref.load
// CHECK: %[[S:.*]] = arith.addi %[[PREV]], %[[ACC]] : i32
// CHECK-NEXT: memref.store %[[S]], %{{.*}}[
// CHECK-NEXT: scf.yield %[[ACC]], %[[S]] : i32, i32
func.func @carried(%P: memref<4x16xi32>, %n: index, %init: i32) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
    %r = scf.for %j = %c1 to %n step %c1 iter_args(%acc = %init) -> (i32) {
      %jm = arith.subi %j, %c1 : index
      %p = memref.load %P[%tx, %jm] : memref<4x16xi32>
      %s = arith.addi %p, %acc : i32
      memref.store %s, %P[%tx, %j] : memref<4x16xi32>
      scf.yield %acc : i32
    }
    gpu.terminator
  }
  return
}

// P[i][0] = i, A[i][j] = i + j: the recurrence's P[0][15], P[3][15], P[2][7]; V[15][i] =
// i + 1, Q[j][i] = j - i: the sweep's V[0][0], V[0][3], V[7][2]; then the conditional's
// P[0][9] (1: thread 0 does not read) and P[2][9] (the recurrence's P[2][0] = 2, + 9).
// OUT: 65519
// OUT-NEXT: 262124
// OUT-NEXT: 757
// OUT-NEXT: 111204030
// OUT-NEXT: 132727392
// OUT-NEXT: 57407
// OUT-NEXT: 1
// OUT-NEXT: 11
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c7 = arith.constant 7 : index
    %c9 = arith.constant 9 : index
    %c14 = arith.constant 14 : index
    %c15 = arith.constant 15 : index
    %c16 = arith.constant 16 : index
    %hp = memref.alloc() : memref<4x16xi32>
    %ha = memref.alloc() : memref<4x16xi32>
    %hv = memref.alloc() : memref<16x4xi32>
    %hq = memref.alloc() : memref<16x4xi32>
    scf.for %i = %c0 to %c4 step %c1 {
      scf.for %j = %c0 to %c16 step %c1 {
        %s = arith.addi %i, %j : index
        %si = arith.index_cast %s : index to i32
        memref.store %si, %ha[%i, %j] : memref<4x16xi32>
        %z = arith.constant 0 : i32
        memref.store %z, %hp[%i, %j] : memref<4x16xi32>
        %d = arith.subi %j, %i : index
        %di = arith.index_cast %d : index to i32
        memref.store %di, %hq[%j, %i] : memref<16x4xi32>
        memref.store %z, %hv[%j, %i] : memref<16x4xi32>
      }
      %ii = arith.index_cast %i : index to i32
      memref.store %ii, %hp[%i, %c0] : memref<4x16xi32>
      %i1 = arith.addi %i, %c1 : index
      %i1i = arith.index_cast %i1 : index to i32
      memref.store %i1i, %hv[%c15, %i] : memref<16x4xi32>
    }
    %P = gpu.alloc () : memref<4x16xi32>
    %A = gpu.alloc () : memref<4x16xi32>
    %V = gpu.alloc () : memref<16x4xi32>
    %Q = gpu.alloc () : memref<16x4xi32>
    gpu.memcpy %P, %hp : memref<4x16xi32>, memref<4x16xi32>
    gpu.memcpy %A, %ha : memref<4x16xi32>, memref<4x16xi32>
    gpu.memcpy %V, %hv : memref<16x4xi32>, memref<16x4xi32>
    gpu.memcpy %Q, %hq : memref<16x4xi32>, memref<16x4xi32>
    call @recurrence(%P, %A, %c16) : (memref<4x16xi32>, memref<4x16xi32>, index) -> ()
    call @backward(%V, %Q, %c14) : (memref<16x4xi32>, memref<16x4xi32>, index) -> ()
    gpu.memcpy %hp, %P : memref<4x16xi32>, memref<4x16xi32>
    gpu.memcpy %hv, %V : memref<16x4xi32>, memref<16x4xi32>
    %r0 = memref.load %hp[%c0, %c15] : memref<4x16xi32>
    %r1 = memref.load %hp[%c3, %c15] : memref<4x16xi32>
    %r2 = memref.load %hp[%c2, %c7] : memref<4x16xi32>
    %v0 = memref.load %hv[%c0, %c0] : memref<16x4xi32>
    %v1 = memref.load %hv[%c0, %c3] : memref<16x4xi32>
    %v2 = memref.load %hv[%c7, %c2] : memref<16x4xi32>
    func.call @tessel_print_i32(%r0) : (i32) -> ()
    func.call @tessel_print_i32(%r1) : (i32) -> ()
    func.call @tessel_print_i32(%r2) : (i32) -> ()
    func.call @tessel_print_i32(%v0) : (i32) -> ()
    func.call @tessel_print_i32(%v1) : (i32) -> ()
    func.call @tessel_print_i32(%v2) : (i32) -> ()
    call @conditional(%P, %c16) : (memref<4x16xi32>, index) -> ()
    gpu.memcpy %hp, %P : memref<4x16xi32>, memref<4x16xi32>
    %c0v = memref.load %hp[%c0, %c9] : memref<4x16xi32>
    %c2v = memref.load %hp[%c2, %c9] : memref<4x16xi32>
    func.call @tessel_print_i32(%c0v) : (i32) -> ()
    func.call @tessel_print_i32(%c2v) : (i32) -> ()
    return
  }
  func.func private @tessel_print_i32(i32)
}
