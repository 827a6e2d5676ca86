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
// Copy-in: the block's linear thread id, then a loop over the tile's 20 elements.
// CHECK: %[[TX:.*]] = gpu.thread_id x
// CHECK: %[[TY:.*]] = gpu.thread_id y
// CHECK: %[[TZ:.*]] = gpu.thread_id z
// CHECK: %[[BX:.*]] = gpu.block_dim x
// CHECK: %[[BY:.*]] = gpu.block_dim y
// CHECK: %[[BZ:.*]] = gpu.block_dim z
// Each thread takes 3 elements per step (20 elements, 8 threads): the loop steps by 3
// blocks' worth of threads.
// CHECK: %[[THREADS:.*]] = arith.muli %{{.*}}, %[[BZ]] : index
// CHECK: %[[C3:.*]] = arith.constant 3 : index
// CHECK: %[[STEP:.*]] = arith.muli %[[THREADS]], %[[C3]] : index
// A tile whose box lies inside A (the first column of tiles) takes the fast path: no
// guard on any element.
// CHECK: arith.cmpi sge, %{{.*}}, %{{.*}} : index
// CHECK: arith.cmpi sle, %{{.*}}, %{{.*}} : index
// CHECK: scf.if %{{[0-9]+}} {
// Steps of 3 elements while all 3 are in the tile: the loads, then the stores.
// CHECK: scf.for %[[F:.*]] = %{{.*}} to %{{.*}} step %[[STEP]] {
// CHECK-NOT: scf.if
// CHECK: memref.load
// CHECK-NOT: scf.if
// CHECK: memref.load
// CHECK-NOT: scf.if
// CHECK: memref.load
// CHECK-NEXT: memref.store
// CHECK-NEXT: memref.store
// CHECK-NEXT: memref.store
// CHECK-NEXT: }
// Then the rest one element per step.
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[THREADS]] {
// CHECK-NEXT: arith.remui
// CHECK-NOT: scf.if
// CHECK: memref.store
// CHECK-NEXT: }
// A boundary tile guards each element.
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.for %[[E:.*]] = %{{.*}} to %{{.*}} step %[[STEP]] {
// Consecutive threads on consecutive elements of a row: the column is the remainder.
// CHECK: %[[C:.*]] = arith.remui %[[E]], %{{.*}} : index
// CHECK: %[[Q:.*]] = arith.divui %[[E]], %{{.*}} : index
// CHECK: %[[R:.*]] = arith.remui %[[Q]], %{{.*}} : index
// The loads of the step come first, each guarded (an element outside A, or past the
// tile's end, yields 0 and is not stored)...
// CHECK: %[[V:.*]] = scf.if %{{.*}} -> (i32) {
// CHECK: memref.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<10x7xi32>
// The second element is `threads` further.
// CHECK: %[[D1:.*]] = arith.muli %[[THREADS]], %{{.*}} : index
// CHECK: %[[E1:.*]] = arith.addi %[[E]], %[[D1]] : index
// CHECK: arith.cmpi ult, %[[E1]], %{{.*}} : index
// CHECK: scf.if %{{.*}} -> (i32) {
// CHECK: scf.if %{{.*}} -> (i32) {
// ...then the stores.
// CHECK: scf.if
// CHECK-NEXT: memref.store %[[V]], %[[S]][%[[R]], %[[C]]] : memref<5x5xi32, #gpu.address_space<workgroup>>
// CHECK: scf.if
// CHECK-NEXT: memref.store
// CHECK: scf.if
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

// OUT: 0
// OUT-NEXT: 906
// OUT-NEXT: 504
// OUT-NEXT: 31710

module attributes {gpu.container_module} {
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
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
    return
  }
  func.func private @tessel_print_i32(i32)
}
