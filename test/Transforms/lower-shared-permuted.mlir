// tessel-lower-shared on copies with a `permutation` (tessel-pad-banks' transposition):
// the global side keeps its row-major order and consecutive threads; the shared side
// is indexed with the tile's dimensions reordered. Run on sim: a tile copied in
// transposed and out again with the same permutation gives A back; copied out without
// it, into a global of the transposed shape, gives A's transpose.
// RUN: tessel-opt %s --tessel-lower-shared | FileCheck %s
// RUN: tessel-run %s --device=sim | FileCheck %s --check-prefix=OUT

// The copy-in's stores: shared index (column, row) of the tile's (row, column).
// CHECK-LABEL: func.func @main(
// CHECK: gpu.launch
// The thread's column of the tile (thread x: the block has 4 threads along x, the
// rows 4 elements), and the loop over its rows.
// CHECK: %[[TX:.*]] = gpu.thread_id x
// CHECK: %[[L1:.*]] = arith.addi %[[TX]], %{{.*}} : index
// CHECK: scf.for %[[L0:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[L1]], %[[L0]]] : memref<4x6xi32, #gpu.address_space<workgroup>>

// OUT: 0
// OUT-NEXT: 906
// OUT-NEXT: 504
// OUT-NEXT: 31710
// OUT-NEXT: 0
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
    %T = gpu.alloc () : memref<7x10xi32>
    gpu.memcpy %A, %h : memref<10x7xi32>, memref<10x7xi32>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c2, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c2, %sz = %c1) {
      %s = tgpu.alloc_shared [4, 5] padding [0, 1] : memref<4x6xi32, #gpu.address_space<workgroup>>
      %i0 = arith.muli %bx, %c5 : index
      %j0 = arith.muli %by, %c4 : index
      tgpu.tile_copy %A to %s offsets [%i0, %j0] tile [5, 4] {permutation = array<i64: 1, 0>}
          : memref<10x7xi32> to memref<4x6xi32, #gpu.address_space<workgroup>>
      gpu.barrier
      tgpu.tile_copy %s to %B offsets [%i0, %j0] tile [5, 4] {permutation = array<i64: 1, 0>}
          : memref<4x6xi32, #gpu.address_space<workgroup>> to memref<10x7xi32>
      tgpu.tile_copy %s to %T offsets [%j0, %i0] tile [4, 5]
          : memref<4x6xi32, #gpu.address_space<workgroup>> to memref<7x10xi32>
      gpu.terminator
    }
    gpu.memcpy %h, %B : memref<10x7xi32>, memref<10x7xi32>
    func.call @report(%h) : (memref<10x7xi32>) -> ()
    %t = memref.alloc() : memref<10x7xi32>
    %th = memref.alloc() : memref<7x10xi32>
    gpu.memcpy %th, %T : memref<7x10xi32>, memref<7x10xi32>
    scf.for %i = %c0 to %c10 step %c1 {
      scf.for %j = %c0 to %c7 step %c1 {
        %v = memref.load %th[%j, %i] : memref<7x10xi32>
        memref.store %v, %t[%i, %j] : memref<10x7xi32>
      }
    }
    func.call @report(%t) : (memref<10x7xi32>) -> ()
    return
  }
  // Prints h[0][0], h[9][6], h[5][4] and the sum of h.
  func.func @report(%h: memref<10x7xi32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c5 = arith.constant 5 : index
    %c6 = arith.constant 6 : index
    %c7 = arith.constant 7 : index
    %c9 = arith.constant 9 : index
    %c10 = arith.constant 10 : index
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
