// RUN: tessel-opt %s --tessel-lower-shared | FileCheck %s
// RUN: tessel-run %s --device=sim | FileCheck %s --check-prefix=OUT
// Each block of a 2x2 grid copies a 5x4 tile of A (10x7 i32, A[i][j] = 100 i + j) into
// shared memory and back out to B; the tiles of the last column reach past A's 7
// columns, and those elements are skipped. 8 threads move the 20 elements of a tile.

// The buffer becomes the launch's workgroup attribution.
// CHECK-LABEL: func.func @main(
// CHECK: gpu.launch
// CHECK-SAME: workgroup(%[[S:.*]] : memref<5x5xi32, #gpu.address_space<workgroup>>)
// CHECK-NOT: tgpu.
// Copy-in: the block's linear thread id.
// CHECK: %[[TX:.*]] = gpu.thread_id x
// CHECK: %[[TY:.*]] = gpu.thread_id y
// CHECK: %[[TZ:.*]] = gpu.thread_id z
// CHECK: %[[BX:.*]] = gpu.block_dim x
// CHECK: %[[BY:.*]] = gpu.block_dim y
// CHECK: %[[BZ:.*]] = gpu.block_dim z
// CHECK: %[[THREADS:.*]] = arith.muli %{{.*}}, %[[BZ]] : index
// Each thread takes 3 elements per step (20 elements, 8 threads). The block's 8
// threads are a multiple of the tile's rows of 4: each thread keeps one column and
// steps over rows, 8 / 4 = 2 rows apart, no division per element. The block's 4
// threads along x are the row's length: the column is thread x, the first row thread
// y (+ z times the block's y size), the rows apart the block's y and z sizes.
// CHECK: %[[C3:.*]] = arith.constant 3 : index
// CHECK: %[[COL:.*]] = arith.addi %[[TX]], %{{.*}} : index
// CHECK-NEXT: %[[WZ:.*]] = arith.muli %[[TZ]], %[[BY]] : index
// CHECK-NEXT: %[[WY:.*]] = arith.addi %[[WZ]], %[[TY]] : index
// CHECK: %[[TXQ:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK-NEXT: %[[ROW:.*]] = arith.addi %{{.*}}, %[[TXQ]] : index
// CHECK-NEXT: %[[YZ:.*]] = arith.muli %[[BY]], %[[BZ]] : index
// CHECK-NEXT: %[[APART:.*]] = arith.muli %[[YZ]], %{{.*}} : index
// CHECK-NEXT: %[[ROWS:.*]] = arith.constant 5 : index
// CHECK-NEXT: %[[STEP:.*]] = arith.muli %[[APART]], %[[C3]] : index
// A tile whose box lies inside A (the first column of tiles) takes the fast path: no
// guard on any element.
// CHECK: arith.cmpi sge, %{{.*}}, %{{.*}} : index
// CHECK: arith.cmpi sle, %{{.*}}, %{{.*}} : index
// CHECK: scf.if %{{[0-9]+}} {
// Steps of 3 rows while all 3 are in the tile: the loads, then the stores.
// CHECK: scf.for %[[F:.*]] = %[[ROW]] to %{{.*}} step %[[STEP]] {
// CHECK-NEXT: %[[G1:.*]] = arith.addi %{{.*}}, %[[COL]] : index
// CHECK-NEXT: %[[G0:.*]] = arith.addi %{{.*}}, %[[F]] : index
// CHECK-NEXT: %[[V0:.*]] = memref.load %{{.*}}[%[[G0]], %[[G1]]] : memref<10x7xi32>
// CHECK-NOT: scf.if
// CHECK: %[[D1:.*]] = arith.muli %[[APART]], %{{.*}} : index
// CHECK-NEXT: %[[F1:.*]] = arith.addi %[[F]], %[[D1]] : index
// CHECK-NOT: scf.if
// CHECK: memref.load
// CHECK-NOT: scf.if
// CHECK: memref.load
// CHECK-NEXT: memref.store %[[V0]], %[[S]][%[[F]], %[[COL]]]
// CHECK-NEXT: memref.store %{{.*}}, %[[S]][%[[F1]], %[[COL]]]
// CHECK-NEXT: memref.store
// CHECK-NEXT: }
// Then the rest one row per step.
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[ROWS]] step %[[APART]] {
// CHECK-NOT: scf.if
// CHECK: memref.store
// CHECK-NEXT: }
// A boundary tile guards each element: its column and row inside A, its row in the tile.
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.for %[[E:.*]] = %[[ROW]] to %[[ROWS]] step %[[STEP]] {
// CHECK: %[[V:.*]] = scf.if %{{.*}} -> (i32) {
// CHECK: memref.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<10x7xi32>
// CHECK: %[[E1:.*]] = arith.addi %[[E]], %{{.*}} : index
// CHECK-NEXT: %[[IN1:.*]] = arith.cmpi ult, %[[E1]], %[[ROWS]] : index
// CHECK: scf.if %{{.*}} -> (i32) {
// CHECK: scf.if %{{.*}} -> (i32) {
// ...then the stores, each where its row is in the tile (the first always is), not
// only where it is inside A: a slot outside A gets zero, so that the warp's request
// stays whole.
// CHECK: memref.store %[[V]], %[[S]][%[[E]], %[[COL]]] : memref<5x5xi32, #gpu.address_space<workgroup>>
// CHECK-NEXT: scf.if %[[IN1]] {
// CHECK-NEXT: memref.store
// CHECK-NEXT: }
// CHECK-NEXT: scf.if
// CHECK-NEXT: memref.store
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK: gpu.barrier
// Copy-out: from the shared side.
// CHECK: scf.for
// CHECK: memref.load %[[S]]
// CHECK: memref.store %{{.*}} : memref<10x7xi32>
// CHECK: gpu.terminator

// The second launch copies tiles of 5x3 with the same 8 threads: 8 is not a multiple
// of 3, so a thread's elements move along the rows, and each finds its row and column
// by division.
// CHECK: gpu.launch
// CHECK-SAME: workgroup(%[[S2:.*]] : memref<5x3xi32, #gpu.address_space<workgroup>>)
// CHECK: %[[FIRST2:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK: %[[THREADS2:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK-NOT: arith.divui %[[FIRST2]]
// CHECK: scf.if %{{[0-9]+}} {
// CHECK: scf.for %[[F2:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT: %[[C2:.*]] = arith.remui %[[F2]], %[[W2:.*]] : index
// CHECK-NEXT: %[[R2:.*]] = arith.divui %[[F2]], %[[W2]] : index
// CHECK: memref.load
// CHECK: memref.store %{{.*}}, %[[S2]][%[[R2]], %[[C2]]]
// CHECK: gpu.terminator

// OUT: 0
// OUT-NEXT: 906
// OUT-NEXT: 504
// OUT-NEXT: 31710
// OUT-NEXT: 31710

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
    %c9 = arith.constant 9 : index
    %c10 = arith.constant 10 : index
    %c100 = arith.constant 100 : index
    %h = memref.alloc() : memref<10x7xi32>
    scf.for %i = %c0 to %c10 step %c1 {
      scf.for %j = %c0 to %c7 step %c1 {
        %a = arith.muli %i, %c100 : index
        %b = arith.addi %a, %j : index
        %v = arith.index_cast %b : index to i32
        memref.store %v, %h[%i, %j] : memref<10x7xi32>
      }
    }
    %z0 = arith.constant 0 : i32
    %A = gpu.alloc () : memref<10x7xi32>
    %B = gpu.alloc () : memref<10x7xi32>
    gpu.memcpy %A, %h : memref<10x7xi32>, memref<10x7xi32>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c2, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c2, %sz = %c1) {
      %s = tgpu.alloc_shared [5, 4] padding [0, 1] : memref<5x5xi32, #gpu.address_space<workgroup>>
      %i0 = arith.muli %bx, %c5 : index
      %j0 = arith.muli %by, %c4 : index
      tgpu.tile_copy %A to %s offsets [%i0, %j0] tile [5, 4]
          : memref<10x7xi32> to memref<5x5xi32, #gpu.address_space<workgroup>>
      gpu.barrier
      tgpu.tile_copy %s to %B offsets [%i0, %j0] tile [5, 4]
          : memref<5x5xi32, #gpu.address_space<workgroup>> to memref<10x7xi32>
      gpu.terminator
    }
    %C = gpu.alloc () : memref<10x7xi32>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c3, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c2, %sz = %c1) {
      %s = tgpu.alloc_shared [5, 3] padding [0, 0] : memref<5x3xi32, #gpu.address_space<workgroup>>
      %i0 = arith.muli %bx, %c5 : index
      %j0 = arith.muli %by, %c3 : index
      tgpu.tile_copy %A to %s offsets [%i0, %j0] tile [5, 3]
          : memref<10x7xi32> to memref<5x3xi32, #gpu.address_space<workgroup>>
      gpu.barrier
      tgpu.tile_copy %s to %C offsets [%i0, %j0] tile [5, 3]
          : memref<5x3xi32, #gpu.address_space<workgroup>> to memref<10x7xi32>
      gpu.terminator
    }
    %hc = memref.alloc() : memref<10x7xi32>
    gpu.memcpy %hc, %C : memref<10x7xi32>, memref<10x7xi32>
    %sumc = scf.for %i = %c0 to %c10 step %c1 iter_args(%acc = %z0) -> i32 {
      %row = scf.for %j = %c0 to %c7 step %c1 iter_args(%a2 = %acc) -> i32 {
        %v = memref.load %hc[%i, %j] : memref<10x7xi32>
        %n = arith.addi %a2, %v : i32
        scf.yield %n : i32
      }
      scf.yield %row : i32
    }
    gpu.memcpy %h, %B : memref<10x7xi32>, memref<10x7xi32>
    %r0 = memref.load %h[%c0, %c0] : memref<10x7xi32>
    %r1 = memref.load %h[%c9, %c6] : memref<10x7xi32>
    %r2 = memref.load %h[%c5, %c4] : memref<10x7xi32>
    func.call @tessel_print_i32(%r0) : (i32) -> ()
    func.call @tessel_print_i32(%r1) : (i32) -> ()
    func.call @tessel_print_i32(%r2) : (i32) -> ()
    %z = arith.constant 0 : i32
    %sum = scf.for %i = %c0 to %c10 step %c1 iter_args(%acc = %z) -> i32 {
      %row = scf.for %j = %c0 to %c7 step %c1 iter_args(%a2 = %acc) -> i32 {
        %v = memref.load %h[%i, %j] : memref<10x7xi32>
        %n = arith.addi %a2, %v : i32
        scf.yield %n : i32
      }
      scf.yield %row : i32
    }
    func.call @tessel_print_i32(%sum) : (i32) -> ()
    func.call @tessel_print_i32(%sumc) : (i32) -> ()
    return
  }
  func.func private @tessel_print_i32(i32)
}
