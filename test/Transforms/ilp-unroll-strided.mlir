// RUN: tessel-opt %s --pass-pipeline='builtin.module(tessel-detect-scops, tessel-schedule, tessel-share, tessel-tile{sizes=32,64,32 min-blocks=1}, tessel-promote-shared{min-reuse=2.5}, tessel-pad-banks, tessel-map-to-gpu, tessel-promote-registers, tessel-ilp-unroll)' --cse 2>/dev/null | FileCheck %s
// RUN: tessel-opt %s --pass-pipeline='builtin.module(tessel-detect-scops, tessel-schedule, tessel-share, tessel-tile{sizes=32,64,32 min-blocks=1}, tessel-promote-shared{min-reuse=2.5}, tessel-pad-banks, tessel-map-to-gpu, tessel-promote-registers, tessel-ilp-unroll)' -o %t.mlir 2>/dev/null
// RUN: tessel-run %t.mlir --device=sim | FileCheck %s --check-prefix=OUT
// RUN: tessel-run %s --device=sim | FileCheck %s --check-prefix=OUT
// RUN: tessel-opt %s --pass-pipeline='builtin.module(tessel-detect-scops, tessel-schedule, tessel-share, tessel-tile{sizes=32,96,32 min-blocks=1}, tessel-promote-shared{min-reuse=2.5}, tessel-pad-banks, tessel-map-to-gpu, tessel-promote-registers, tessel-ilp-unroll)' -o %t3.mlir 2>/dev/null
// RUN: tessel-run %t3.mlir --device=sim | FileCheck %s --check-prefix=OUT
// A matrix product whose tiles are 64 columns wide (`sizes=32,64,32`) with 32 threads
// along x: map-to-gpu gives thread x the columns x and x + 32 of its tile (a strided
// point loop, `tessel.strided = 2`), and tessel-ilp-unroll runs the two side by side
// where the thread has both, after the 8 rows per thread of the coarsened y loop (the
// runtime may now give a thread an eighth of the tile's rows: the extent call's last
// operand becomes 8): a register tile of 8 x 2 elements of C per thread (paper 001
// sec. 7.3). Each step of the loop over k then reads 8 elements of A's box and 2 of B's
// for 16 products; the two columns stay 32 apart, so a warp's loads of B and stores of
// C are still consecutive. With 4 rows per thread the same with 4 x 2. With 96 columns
// per tile (3 per thread: the RUN line at `sizes=32,96,32`), the last tile has one
// column per thread, which takes the loop; the result is the same.

// CHECK-LABEL: func.func @gemm(
// CHECK: call @tessel_block_extent(%{{.*}}, %c1024, %c32, %c8)
// CHECK: gpu.launch
// CHECK: %[[SA:.*]] = tgpu.alloc_shared [32, 32]
// CHECK: %[[SB:.*]] = tgpu.alloc_shared [32, 64]
// A full tile with 8 rows per thread...
// CHECK: arith.cmpi eq
// CHECK-NEXT: scf.if
// ...and the thread's two columns x and x + 32 (both below the tile's end, no third):
// CHECK: %[[X0:.*]] = arith.addi %{{.*}}, %arg6 : index
// CHECK: %[[X1:.*]] = arith.addi %[[X0]], %{{.*}} : index
// CHECK: %[[IN:.*]] = arith.cmpi slt, %[[X1]], %[[END:.*]] : index
// CHECK-NEXT: %[[PAST:.*]] = arith.cmpi sge, %{{.*}}, %[[END]] : index
// CHECK-NEXT: %[[BOTH:.*]] = arith.andi %[[IN]], %[[PAST]] : i1
// CHECK-NEXT: scf.if %[[BOTH]] {
// C's 16 elements into registers, row by row, the two columns of each:
// CHECK: %[[C:.*]]:16 = scf.if %{{.*}} -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32) {
// CHECK-NEXT: memref.load %{{.*}}[%[[R0:.*]], %[[X0]]] : memref<128x128xf32>
// CHECK-NEXT: memref.load %{{.*}}[%[[R0]], %[[X1]]] : memref<128x128xf32>
// CHECK-COUNT-14: memref.load %{{.*}} : memref<128x128xf32>
// One loop over k carries the 16 sums; each step 8 elements of A's box, 2 of B's:
// CHECK: %[[K:.*]]:16 = scf.for %{{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32) {
// CHECK-COUNT-8: memref.load %[[SA]]
// CHECK-NEXT: arith.muli
// CHECK-NEXT: %[[B0:.*]] = arith.addi %[[X0]]
// CHECK-NEXT: %[[B1:.*]] = arith.addi %[[X1]]
// CHECK-NEXT: memref.load %[[SB]][%{{.*}}, %[[B0]]]
// CHECK-NEXT: memref.load %[[SB]][%{{.*}}, %[[B1]]]
// CHECK: scf.yield
// The 16 elements of C back:
// CHECK: scf.if
// CHECK-COUNT-16: memref.store
// Otherwise, the columns one at a time:
// CHECK: } else {
// CHECK-NEXT: scf.for %{{.*}} = %[[X0]] to %[[END]] step %c32 {
// Then the tiles with 4 rows per thread: 8 sums.
// CHECK: scf.for %{{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32) {

// The sum of C, the same on the host (the module as written) and on sim.
// OUT: 18869528

module {
  func.func @gemm(%A: memref<128x128xf32>, %B: memref<128x128xf32>, %C: memref<128x128xf32>) {
    affine.for %i = 0 to 128 {
      affine.for %j = 0 to 128 {
        affine.for %k = 0 to 128 {
          %a = affine.load %A[%i, %k] : memref<128x128xf32>
          %b = affine.load %B[%k, %j] : memref<128x128xf32>
          %c = affine.load %C[%i, %j] : memref<128x128xf32>
          %p = arith.mulf %a, %b : f32
          %s = arith.addf %c, %p : f32
          affine.store %s, %C[%i, %j] : memref<128x128xf32>
        }
      }
    }
    return
  }
  func.func @main() {
    %A = memref.alloc() : memref<128x128xf32>
    %B = memref.alloc() : memref<128x128xf32>
    %C = memref.alloc() : memref<128x128xf32>
    affine.for %i = 0 to 128 {
      affine.for %j = 0 to 128 {
        %s = arith.addi %i, %j : index
        %c7 = arith.constant 7 : index
        %m = arith.remui %s, %c7 : index
        %n = arith.index_cast %m : index to i32
        %v = arith.sitofp %n : i32 to f32
        affine.store %v, %A[%i, %j] : memref<128x128xf32>
        affine.store %v, %B[%j, %i] : memref<128x128xf32>
        %z = arith.constant 0.0 : f32
        affine.store %z, %C[%i, %j] : memref<128x128xf32>
      }
    }
    func.call @gemm(%A, %B, %C) : (memref<128x128xf32>, memref<128x128xf32>, memref<128x128xf32>) -> ()
    %zero = arith.constant 0.0 : f32
    %sum = affine.for %i = 0 to 128 iter_args(%acc = %zero) -> f32 {
      %row = affine.for %j = 0 to 128 iter_args(%a2 = %acc) -> f32 {
        %v = affine.load %C[%i, %j] : memref<128x128xf32>
        %n = arith.addf %a2, %v : f32
        affine.yield %n : f32
      }
      affine.yield %row : f32
    }
    %si = arith.fptosi %sum : f32 to i32
    func.call @tessel_print_i32(%si) : (i32) -> ()
    return
  }
  func.func private @tessel_print_i32(i32)
}
