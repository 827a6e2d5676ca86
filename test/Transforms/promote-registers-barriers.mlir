// tessel-promote-registers across loops with barriers or conditions: an element that a
// thread alone uses in a loop (every access to its array in the launch is in the loop,
// at subscripts the loop does not change) stays in a register for the whole loop, even
// where the loop holds barriers (a tile loop that stages data through shared memory,
// as matrix-vector's row reduction) and the accesses stand under conditions. The
// register is loaded where the loop first loads the element (a flag says whether it
// has), and stored once after the loop if the loop stored to it.
// RUN: tessel-opt %s --tessel-promote-registers 2>/dev/null | FileCheck %s
// RUN: tessel-opt %s --tessel-promote-registers -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: tessel-run %s --device=sim | FileCheck %s --check-prefix=OUT
// RUN: tessel-opt %s --tessel-promote-registers -o %t.mlir 2>/dev/null
// RUN: tessel-run %t.mlir --device=sim --profile=%t.json | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --input-file=%t.json --check-prefix=PROFILE

module attributes {gpu.container_module} {

// Not promoted: with a barrier in the loop, thread t's Y[t + 1] is thread t + 1's Y[t]
// (the elements of two threads overlap).
// CHECK-LABEL: func.func @overlapping(
// CHECK-NOT: memref.alloca
// CHECK: return
func.func @overlapping(%Y: memref<8xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1 : i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
    scf.for %k = %c0 to %c4 step %c1 {
      %n = arith.addi %tx, %c1 : index
      %a = memref.load %Y[%tx] : memref<8xi32>
      %b = memref.load %Y[%n] : memref<8xi32>
      %s = arith.addi %a, %b : i32
      memref.store %s, %Y[%tx] : memref<8xi32>
      gpu.barrier
    }
    gpu.terminator
  }
  return
}

// Not promoted: Y is also read after the loop (by thread 0, every thread's element),
// and in @divided its subscript is not a linear form of the thread ids.
// CHECK-LABEL: func.func @read_after(
// CHECK-NOT: memref.alloca
// CHECK: return
func.func @read_after(%Y: memref<8xi32>, %Z: memref<8xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1 : i32
  %D = gpu.alloc () : memref<8xi32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
    scf.for %k = %c0 to %c4 step %c1 {
      %a = memref.load %D[%tx] : memref<8xi32>
      %s = arith.addi %a, %one : i32
      memref.store %s, %D[%tx] : memref<8xi32>
      gpu.barrier
    }
    %f = memref.load %D[%c1] : memref<8xi32>
    memref.store %f, %D[%c0] : memref<8xi32>
    gpu.terminator
  }
  return
}

// CHECK-LABEL: func.func @divided(
// CHECK-NOT: memref.alloca
// CHECK: return
func.func @divided() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1 : i32
  %D = gpu.alloc () : memref<8xi32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
    %h = arith.divui %tx, %c2 : index
    scf.for %k = %c0 to %c4 step %c1 {
      %a = memref.load %D[%h] : memref<8xi32>
      %s = arith.addi %a, %one : i32
      memref.store %s, %D[%h] : memref<8xi32>
      gpu.barrier
    }
    gpu.terminator
  }
  return
}

// Y[i] += sum over k of S[k][i] (S staged through shared memory a row at a time, as
// the row reduction of matrix-vector), for two rows per thread (tx and tx + 4), in
// tiles of k where k < 6; and X[tx], only read, under the same condition.
// CHECK-LABEL: func.func @main(
// CHECK: gpu.launch
// CHECK-NEXT: %[[R1:.*]] = memref.alloca() : memref<i32>
// CHECK-NEXT: %[[F1:.*]] = memref.alloca() : memref<i32>
// CHECK-NEXT: %[[R0:.*]] = memref.alloca() : memref<i32>
// CHECK-NEXT: %[[F0:.*]] = memref.alloca() : memref<i32>
// CHECK-NEXT: %[[RX:.*]] = memref.alloca() : memref<i32>
// CHECK-NEXT: %[[FX:.*]] = memref.alloca() : memref<i32>
// The flags are cleared before the loop, and the second row's subscript, computed in
// the loop, now stands before it.
// CHECK: memref.store %{{.*}}, %[[FX]][] : memref<i32>
// CHECK-NEXT: %[[ROW:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK: memref.store %{{.*}}, %[[F1]][] : memref<i32>
// CHECK: memref.store %{{.*}}, %[[F0]][] : memref<i32>
// CHECK-NEXT: scf.for
// CHECK: gpu.barrier
// CHECK: scf.if
// X[tx], loaded the first time the loop reads it.
// CHECK: memref.load %[[FX]][] : memref<i32>
// CHECK: memref.load %[[X:.*]][%[[TX:.*]]] : memref<4xi32>
// CHECK: %[[S0:.*]] = memref.load %[[F0]][] : memref<i32>
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: %[[NEW:.*]] = arith.cmpi eq, %[[S0]], %{{.*}} : i32
// CHECK-NEXT: scf.if %[[NEW]] {
// CHECK-NEXT: %[[L:.*]] = memref.load %[[Y:.*]][%[[TX]]] : memref<8xi32>
// CHECK-NEXT: memref.store %[[L]], %[[R0]][] : memref<i32>
// CHECK-NEXT: memref.store %{{.*}}, %[[F0]][] : memref<i32>
// CHECK-NEXT: }
// CHECK-NEXT: memref.load %[[R0]][] : memref<i32>
// CHECK: memref.store %{{.*}}, %[[R0]][] : memref<i32>
// CHECK-NEXT: memref.store %{{.*}}, %[[F0]][] : memref<i32>
// CHECK: memref.load %[[Y]][%[[ROW]]] : memref<8xi32>
// CHECK: gpu.barrier
// CHECK-NEXT: }
// Stored once after the loop, where the loop stored.
// CHECK: memref.store %{{.*}}, %[[Y]][%[[ROW]]] : memref<8xi32>
// CHECK: %[[D0:.*]] = memref.load %[[F0]][] : memref<i32>
// CHECK-NEXT: %[[TWO:.*]] = arith.constant 2 : i32
// CHECK-NEXT: %[[DIRTY:.*]] = arith.cmpi eq, %[[D0]], %[[TWO]] : i32
// CHECK-NEXT: scf.if %[[DIRTY]] {
// CHECK-NEXT: %[[V:.*]] = memref.load %[[R0]][] : memref<i32>
// CHECK-NEXT: memref.store %[[V]], %[[Y]][%[[TX]]] : memref<8xi32>
// CHECK-NEXT: }
// CHECK-NEXT: gpu.terminator
// REMARK: promote-registers-barriers.mlir:[[#X:]]:{{[0-9]+}}: remark: kept in a register across the loop, which has barriers or conditions (loaded where the loop first loads it)
// REMARK: promote-registers-barriers.mlir:[[#X+9]]:{{[0-9]+}}: remark: kept in a register across the loop, which has barriers or conditions (loaded where the loop first loads it, stored after it)
// REMARK: promote-registers-barriers.mlir:[[#X+4]]:{{[0-9]+}}: remark: kept in a register across the loop, which has barriers or conditions (loaded where the loop first loads it, stored after it)
// REMARK-NOT: remark
// Y[i] = 10 i + the sum over k < 6 of (8 k + i mod 4), plus 6 X[i mod 4] for i >= 4,
// with X[t] = 100 t.
// OUT: 136
// OUT-NEXT: 1392
// OUT-NEXT: 160
// One global load of each element (X[tx], Y[tx], Y[tx + 4]) and one store of each row,
// beside the copies' 9 loads (tessel-lower-shared prefetches them: the 8 iterations'
// and one past the last); no local memory (the registers are values after mem2reg).
// PROFILE: "kernel": "main_kernel"
// PROFILE: "global_load_requests": 12,
// PROFILE: "global_store_requests": 2,
// PROFILE: "barriers": 16,
// PROFILE: "local": 0,
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c6 = arith.constant 6 : index
    %c8 = arith.constant 8 : index
    %c10 = arith.constant 10 : index
    %c100 = arith.constant 100 : index
    %h = memref.alloc() : memref<8xi32>
    %hs = memref.alloc() : memref<8x4xi32>
    %Y = gpu.alloc () : memref<8xi32>
    %X = gpu.alloc () : memref<4xi32>
    %S = gpu.alloc () : memref<8x4xi32>
    scf.for %i = %c0 to %c8 step %c1 {
      %v = arith.muli %i, %c10 : index
      %vi = arith.index_cast %v : index to i32
      memref.store %vi, %h[%i] : memref<8xi32>
      scf.for %j = %c0 to %c4 step %c1 {
        %w0 = arith.muli %i, %c8 : index
        %w = arith.addi %w0, %j : index
        %wi = arith.index_cast %w : index to i32
        memref.store %wi, %hs[%i, %j] : memref<8x4xi32>
      }
    }
    gpu.memcpy %Y, %h : memref<8xi32>, memref<8xi32>
    gpu.memcpy %S, %hs : memref<8x4xi32>, memref<8x4xi32>
    %hx = memref.subview %h[0] [4] [1] : memref<8xi32> to memref<4xi32, strided<[1]>>
    scf.for %i = %c0 to %c4 step %c1 {
      %v = arith.muli %i, %c100 : index
      %vi = arith.index_cast %v : index to i32
      memref.store %vi, %hx[%i] : memref<4xi32, strided<[1]>>
    }
    %hx2 = memref.alloc() : memref<4xi32>
    memref.copy %hx, %hx2 : memref<4xi32, strided<[1]>> to memref<4xi32>
    gpu.memcpy %X, %hx2 : memref<4xi32>, memref<4xi32>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
      scf.for %k = %c0 to %c8 step %c1 {
        %sh = tgpu.alloc_shared [1, 4] padding [0, 0] : memref<1x4xi32, #gpu.address_space<workgroup>>
        tgpu.tile_copy %S to %sh offsets [%k, %c0] tile [1, 4] : memref<8x4xi32> to memref<1x4xi32, #gpu.address_space<workgroup>>
        gpu.barrier
        %p = arith.cmpi ult, %k, %c6 : index
        scf.if %p {
          %x = memref.load %X[%tx] : memref<4xi32>
          %e = memref.load %sh[%c0, %tx] : memref<1x4xi32, #gpu.address_space<workgroup>>
          %y0 = memref.load %Y[%tx] : memref<8xi32>
          %s0 = arith.addi %y0, %e : i32
          memref.store %s0, %Y[%tx] : memref<8xi32>
          %r = arith.addi %tx, %c4 : index
          %y1 = memref.load %Y[%r] : memref<8xi32>
          %s1 = arith.addi %y1, %e : i32
          %s2 = arith.addi %s1, %x : i32
          memref.store %s2, %Y[%r] : memref<8xi32>
        }
        gpu.barrier
      }
      gpu.terminator
    }
    gpu.memcpy %h, %Y : memref<8xi32>, memref<8xi32>
    %r0 = memref.load %h[%c1] : memref<8xi32>
    %r1 = memref.load %h[%c6] : memref<8xi32>
    %r2 = memref.load %h[%c4] : memref<8xi32>
    func.call @tessel_print_i32(%r0) : (i32) -> ()
    func.call @tessel_print_i32(%r1) : (i32) -> ()
    func.call @tessel_print_i32(%r2) : (i32) -> ()
    return
  }
  func.func private @tessel_print_i32(i32)
}
