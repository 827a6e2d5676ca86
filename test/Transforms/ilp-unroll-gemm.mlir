// RUN: tessel-opt %s --pass-pipeline='builtin.module(tessel-detect-scops, tessel-schedule, tessel-share, tessel-tile{min-blocks=1}, tessel-promote-shared{min-reuse=2.5}, tessel-pad-banks, tessel-map-to-gpu, tessel-promote-registers, tessel-ilp-unroll)' --cse 2>/dev/null | FileCheck %s
// RUN: tessel-run %s --device=sim | FileCheck %s --check-prefix=OUT
// RUN: tessel-opt %s --pass-pipeline='builtin.module(tessel-detect-scops, tessel-schedule, tessel-share, tessel-tile{min-blocks=1}, tessel-promote-shared{min-reuse=2.5}, tessel-pad-banks, tessel-map-to-gpu, tessel-promote-registers, tessel-ilp-unroll)' -o %t.mlir 2>/dev/null
// RUN: tessel-run %t.mlir --device=sim | FileCheck %s --check-prefix=OUT
// A matrix product through the default pipeline with promotion for any reuse of 2.5
// reads per element or more (`min-reuse=2.5`; the default, 64, leaves gemm's 32 reads
// per element to the L1 cache), as paper 000 Fig. 2(b) optimizes gemm:
// a block per 32x32 tile of C; per k tile, the 32x32 boxes of A and B the block reads
// are copied to shared memory (A read down its columns by thread x, B reused by every
// row of threads), then each thread accumulates in registers. With the thread extent
// chosen at launch at 8 rows (4 points per thread), tessel-ilp-unroll gives each thread
// 4 consecutive rows of C: one loop over k carries the 4 sums, and each step reads 4
// elements of A's box and one element of B's, shared by the 4 rows (cse keeps one load).
// Not reproduced: the share pragma's partition of whole rows of A (A[TBY][*]); the k
// tiles keep the boxes within 8 KiB.

// CHECK-LABEL: func.func @gemm(
// CHECK: gpu.launch
// CHECK: scf.for %[[KT:.*]] = %c0 to %c4 step %c1 {
// CHECK: %[[SA:.*]] = tgpu.alloc_shared [32, 32] padding [0, 0] : memref<32x32xf32, #gpu.address_space<workgroup>>
// CHECK: tgpu.tile_copy %{{.*}} to %[[SA]]
// CHECK: %[[SB:.*]] = tgpu.alloc_shared [32, 32] padding [0, 0] : memref<32x32xf32, #gpu.address_space<workgroup>>
// CHECK: tgpu.tile_copy %{{.*}} to %[[SB]]
// CHECK: gpu.barrier
// A full tile with 4 rows per thread:
// CHECK: arith.cmpi eq
// CHECK-NEXT: scf.if
// C's 4 elements into registers...
// CHECK: %[[C:.*]]:4 = scf.if %{{.*}} -> (f32, f32, f32, f32) {
// CHECK-COUNT-4: memref.load %{{.*}} : memref<128x128xf32>
// ...one loop over k carrying the 4 sums, 4 steps of k at a time over the largest
// multiple of 4 steps of the k tile (the loads of 4 steps in flight together)...
// CHECK: %[[TC:.*]] = arith.subi %[[HI:.*]], %{{.*}} : index
// CHECK-NEXT: %[[KN:.*]] = arith.remsi %[[TC]], %c4 : index
// CHECK-NEXT: %[[MID:.*]] = arith.subi %[[HI]], %[[KN]] : index
// CHECK-NEXT: %[[X:.*]]:4 = scf.for %{{.*}} to %[[MID]] step %c4 iter_args(%[[S0:.*]] = %[[C]]#0, %[[S1:.*]] = %[[C]]#1, %[[S2:.*]] = %[[C]]#2, %[[S3:.*]] = %[[C]]#3) -> (f32, f32, f32, f32) {
// ...each step 4 elements of A's box, one of B's for all 4 rows; the 4 steps' loads
// first, in their order, then the arithmetic.
// CHECK-COUNT-4: memref.load %[[SA]]
// CHECK-NOT: memref.load %[[SA]]
// CHECK: %[[BV:.*]] = memref.load %[[SB]]
// CHECK-COUNT-4: memref.load %[[SA]]
// CHECK: memref.load %[[SB]]
// CHECK-COUNT-8: memref.load %[[SA]]
// CHECK: memref.load %[[SB]]
// CHECK-NOT: memref.load
// CHECK: arith.mulf %{{.*}}, %[[BV]] : f32
// CHECK-NEXT: arith.mulf %{{.*}}, %[[BV]] : f32
// CHECK-NEXT: arith.mulf %{{.*}}, %[[BV]] : f32
// CHECK-NEXT: arith.mulf %{{.*}}, %[[BV]] : f32
// CHECK-NEXT: %[[T0:.*]] = arith.addf %[[S0]]
// CHECK-NEXT: %[[T1:.*]] = arith.addf %[[S1]]
// CHECK-NEXT: %[[T2:.*]] = arith.addf %[[S2]]
// CHECK-NEXT: %[[T3:.*]] = arith.addf %[[S3]]
// The next step of k adds to these sums.
// CHECK: arith.addf %[[T0]]
// CHECK: scf.yield
// CHECK-NEXT: }
// The rest of the k tile (fewer than 4 steps): one step at a time.
// CHECK-NEXT: %[[R:.*]]:4 = scf.for %{{.*}} = %[[MID]] to %{{.*}} step %c1 iter_args(%{{.*}} = %[[X]]#0, %{{.*}} = %[[X]]#1, %{{.*}} = %[[X]]#2, %{{.*}} = %[[X]]#3)
// CHECK: scf.if
// CHECK-NEXT: memref.store %[[R]]#0
// CHECK-NEXT: memref.store %[[R]]#1
// CHECK-NEXT: memref.store %[[R]]#2
// CHECK-NEXT: memref.store %[[R]]#3
// Other tiles: 2 rows per thread, or the loop.
// CHECK: } else {

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
