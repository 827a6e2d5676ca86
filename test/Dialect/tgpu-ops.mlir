// RUN: tessel-opt %s | tessel-opt | FileCheck %s

// CHECK-LABEL: func.func @alloc_shared
// CHECK:         tgpu.alloc_shared [32, 32] padding [0, 1] : memref<32x33xf32, #gpu.address_space<workgroup>>
// CHECK:         tgpu.alloc_shared [256] padding [0] : memref<256xf64, #gpu.address_space<workgroup>>
// CHECK:         tgpu.alloc_shared [4, 16, 16] padding [0, 0, 2] : memref<4x16x18xi32, #gpu.address_space<workgroup>>
func.func @alloc_shared() {
  %0 = tgpu.alloc_shared [32, 32] padding [0, 1] : memref<32x33xf32, #gpu.address_space<workgroup>>
  %1 = tgpu.alloc_shared [256] padding [0] : memref<256xf64, #gpu.address_space<workgroup>>
  %2 = tgpu.alloc_shared [4, 16, 16] padding [0, 0, 2] : memref<4x16x18xi32, #gpu.address_space<workgroup>>
  return
}

// Copy-in (global -> shared) and copy-out (shared -> global); the offsets
// always index the global side. Dynamic global shapes are fine.

// CHECK-LABEL: func.func @tile_copy
// CHECK-SAME:    (%[[A:.*]]: memref<1024x1024xf32>, %[[C:.*]]: memref<?x?xf32>, %[[I:.*]]: index, %[[J:.*]]: index)
// CHECK:         %[[S:.*]] = tgpu.alloc_shared [32, 32] padding [0, 1]
// CHECK:         tgpu.tile_copy %[[A]] to %[[S]] offsets [%[[I]], %[[J]]] tile [32, 32] : memref<1024x1024xf32> to memref<32x33xf32, #gpu.address_space<workgroup>>
// CHECK:         tgpu.tile_copy %[[S]] to %[[C]] offsets [%[[J]], %[[I]]] tile [16, 32] : memref<32x33xf32, #gpu.address_space<workgroup>> to memref<?x?xf32>
func.func @tile_copy(%A: memref<1024x1024xf32>, %C: memref<?x?xf32>, %i: index, %j: index) {
  %s = tgpu.alloc_shared [32, 32] padding [0, 1] : memref<32x33xf32, #gpu.address_space<workgroup>>
  tgpu.tile_copy %A to %s offsets [%i, %j] tile [32, 32] : memref<1024x1024xf32> to memref<32x33xf32, #gpu.address_space<workgroup>>
  tgpu.tile_copy %s to %C offsets [%j, %i] tile [16, 32] : memref<32x33xf32, #gpu.address_space<workgroup>> to memref<?x?xf32>
  return
}

// A tile stored with its dimensions reordered (tessel-pad-banks' transposition):
// shared dimension d holds tile dimension permutation[d].

// CHECK-LABEL: func.func @tile_copy_permuted
// CHECK:         tgpu.tile_copy %{{.*}} to %{{.*}} offsets [%{{.*}}, %{{.*}}] tile [256, 8] {permutation = array<i64: 1, 0>} : memref<4096x8xf32> to memref<8x257xf32, #gpu.address_space<workgroup>>
func.func @tile_copy_permuted(%P: memref<4096x8xf32>, %i: index, %j: index) {
  %s = tgpu.alloc_shared [8, 256] padding [0, 1] : memref<8x257xf32, #gpu.address_space<workgroup>>
  tgpu.tile_copy %P to %s offsets [%i, %j] tile [256, 8] {permutation = array<i64: 1, 0>} : memref<4096x8xf32> to memref<8x257xf32, #gpu.address_space<workgroup>>
  return
}

// A 1-D tile folded into the rows of a 2-D buffer (tessel-pad-banks' padding of a 1-D
// buffer): tile element i at shared (i floordiv 32, i mod 32), rows padded to 33.

// CHECK-LABEL: func.func @tile_copy_folded
// CHECK:         tgpu.tile_copy %{{.*}} to %{{.*}} offsets [%{{.*}}] tile [2033] {fold = 32 : i64} : memref<16384xi32> to memref<64x33xi32, #gpu.address_space<workgroup>>
// CHECK:         tgpu.tile_copy %{{.*}} to %{{.*}} offsets [%{{.*}}] tile [100] {fold = 32 : i64} : memref<64x33xi32, #gpu.address_space<workgroup>> to memref<?xi32>
func.func @tile_copy_folded(%S: memref<16384xi32>, %T: memref<?xi32>, %o: index) {
  %s = tgpu.alloc_shared [64, 32] padding [0, 1] : memref<64x33xi32, #gpu.address_space<workgroup>>
  tgpu.tile_copy %S to %s offsets [%o] tile [2033] {fold = 32 : i64} : memref<16384xi32> to memref<64x33xi32, #gpu.address_space<workgroup>>
  tgpu.tile_copy %s to %T offsets [%o] tile [100] {fold = 32 : i64} : memref<64x33xi32, #gpu.address_space<workgroup>> to memref<?xi32>
  return
}

// A copy-out of the elements on or below the diagonal, before row %n (write staging's
// condition on the global indices, its symbols the operands in brackets).

// CHECK-LABEL: func.func @tile_copy_where
// CHECK:         tgpu.tile_copy %{{.*}} to %{{.*}} offsets [%{{.*}}, %{{.*}}] where #{{.*}}[%{{.*}}] tile [32, 32] : memref<32x33xf64, #gpu.address_space<workgroup>> to memref<?x?xf64>
func.func @tile_copy_where(%C: memref<?x?xf64>, %i: index, %j: index, %n: index) {
  %s = tgpu.alloc_shared [32, 32] padding [0, 1] : memref<32x33xf64, #gpu.address_space<workgroup>>
  tgpu.tile_copy %s to %C offsets [%i, %j] where affine_set<(d0, d1)[s0] : (d0 - d1 >= 0, s0 - d0 - 1 >= 0)> [%n] tile [32, 32] : memref<32x33xf64, #gpu.address_space<workgroup>> to memref<?x?xf64>
  return
}

// The ops inside a kernel, as the shared-memory promotion emits them for one
// k-step of gemm: copy both tiles in, barrier, compute, barrier.

// CHECK-LABEL: func.func @gemm_kernel_step
// CHECK:         gpu.launch
// CHECK:           %[[SA:.*]] = tgpu.alloc_shared [16, 16] padding [0, 1] : memref<16x17xf32, #gpu.address_space<workgroup>>
// CHECK:           %[[SB:.*]] = tgpu.alloc_shared [16, 16] padding [0, 0] : memref<16x16xf32, #gpu.address_space<workgroup>>
// CHECK:           tgpu.tile_copy %{{.*}} to %[[SA]] offsets [%{{.*}}, %{{.*}}] tile [16, 16]
// CHECK:           tgpu.tile_copy %{{.*}} to %[[SB]] offsets [%{{.*}}, %{{.*}}] tile [16, 16]
// CHECK:           gpu.barrier
// CHECK:           memref.load %[[SA]]
func.func @gemm_kernel_step(%A: memref<256x256xf32>, %B: memref<256x256xf32>, %k0: index) {
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c16, %gy = %c16, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c16, %sz = %c1) {
    %row = arith.muli %by, %c16 : index
    %col = arith.muli %bx, %c16 : index
    %sA = tgpu.alloc_shared [16, 16] padding [0, 1] : memref<16x17xf32, #gpu.address_space<workgroup>>
    %sB = tgpu.alloc_shared [16, 16] padding [0, 0] : memref<16x16xf32, #gpu.address_space<workgroup>>
    tgpu.tile_copy %A to %sA offsets [%row, %k0] tile [16, 16] : memref<256x256xf32> to memref<16x17xf32, #gpu.address_space<workgroup>>
    tgpu.tile_copy %B to %sB offsets [%k0, %col] tile [16, 16] : memref<256x256xf32> to memref<16x16xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %a = memref.load %sA[%ty, %tx] : memref<16x17xf32, #gpu.address_space<workgroup>>
    %b = memref.load %sB[%ty, %tx] : memref<16x16xf32, #gpu.address_space<workgroup>>
    %p = arith.mulf %a, %b : f32
    gpu.barrier
    gpu.terminator
  }
  return
}

// Extra attributes are kept in the attribute dictionary.

// CHECK-LABEL: func.func @extra_attrs
// CHECK:         tgpu.alloc_shared [8] padding [0] {tgpu.array = "A"} : memref<8xi8, #gpu.address_space<workgroup>>
// CHECK:         tgpu.tile_copy %{{.*}} to %{{.*}} offsets [%{{.*}}] tile [8] {tgpu.array = "A"} : memref<?xi8> to memref<8xi8, #gpu.address_space<workgroup>>
func.func @extra_attrs(%g: memref<?xi8>, %o: index) {
  %s = tgpu.alloc_shared [8] padding [0] {tgpu.array = "A"} : memref<8xi8, #gpu.address_space<workgroup>>
  tgpu.tile_copy %g to %s offsets [%o] tile [8] {tgpu.array = "A"} : memref<?xi8> to memref<8xi8, #gpu.address_space<workgroup>>
  return
}
