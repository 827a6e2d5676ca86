// tessel-promote-shared on hand-written affine code, after the scheduling and the tiling
// it builds on; the promoted module runs on sim as the module does on the host.
// RUN: tessel-opt %s --tessel-detect-scops --tessel-schedule --tessel-tile=min-blocks=1 --tessel-promote-shared=min-reuse=2.5 2>/dev/null | FileCheck %s
// RUN: tessel-opt %s --tessel-detect-scops --tessel-schedule --tessel-tile=min-blocks=1 --tessel-promote-shared=min-reuse=2.5 -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: tessel-run %s --device=sim | FileCheck %s --check-prefix=OUT
// RUN: tessel-opt %s --tessel-optimize -o %t.mlir
// RUN: tessel-run %t.mlir --device=sim | FileCheck %s --check-prefix=OUT

// A 5-point stencil on 32x32 tiles: each tile reads a 34x34 box of A (its halo too),
// each element by up to five threads. B is written: it stays in global memory.
// CHECK-LABEL: func.func @stencil(
// CHECK: affine.for %[[TI:.*]] = 0 to 2 {
// CHECK-NEXT: affine.for %[[TJ:.*]] = 0 to 2 {
// CHECK-NEXT: %[[S:.*]] = tgpu.alloc_shared [34, 34] padding [0, 0] : memref<34x34xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: %[[O0:.*]] = affine.apply #[[$MINUS1:.*]](%[[TI]], %[[TJ]])
// CHECK-NEXT: %[[O1:.*]] = affine.apply #[[$MINUS1J:.*]](%[[TI]], %[[TJ]])
// CHECK-NEXT: tgpu.tile_copy %arg0 to %[[S]] offsets [%[[O0]], %[[O1]]] tile [34, 34] : memref<64x64xf32> to memref<34x34xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: affine.for %[[I:.*]] =
// CHECK-NEXT: affine.for %[[J:.*]] =
// CHECK-NEXT: affine.load %[[S]][%[[I]] - %[[O0]] - 1, %[[J]] - %[[O1]]]
// CHECK-NEXT: affine.load %[[S]][%[[I]] - %[[O0]] + 1, %[[J]] - %[[O1]]]
// CHECK: affine.load %[[S]][%[[I]] - %[[O0]], %[[J]] - %[[O1]]]
// CHECK: affine.store %{{.*}}, %arg1[%[[I]], %[[J]]]
// No barrier after the tile: its block runs it once.
// CHECK-NOT: gpu.barrier
func.func @stencil(%A: memref<64x64xf32>, %B: memref<64x64xf32>) {
  affine.for %i = 1 to 63 {
    affine.for %j = 1 to 63 {
      %n = affine.load %A[%i - 1, %j] : memref<64x64xf32>
      %s = affine.load %A[%i + 1, %j] : memref<64x64xf32>
      %w = affine.load %A[%i, %j - 1] : memref<64x64xf32>
      %e = affine.load %A[%i, %j + 1] : memref<64x64xf32>
      %c = affine.load %A[%i, %j] : memref<64x64xf32>
      %a = arith.addf %n, %s : f32
      %b = arith.addf %w, %e : f32
      %d = arith.addf %a, %b : f32
      %r = arith.addf %d, %c : f32
      affine.store %r, %B[%i, %j] : memref<64x64xf32>
    }
  }
  return
}

// A matrix product tiled 32x32x32 (PPCG Fig. 2's gemm): the blocks take the i and j
// tiles, and for each k tile copy a 32x32 box of A (read by every j) and of B (read by
// every i); a barrier ends the k tile, whose next copies overwrite them. The last k tile
// is partial (k < 48): its copies skip what lies outside A and B. C is written: not
// promoted.
// CHECK-LABEL: func.func @matmul(
// CHECK: affine.for %{{.*}} = 0 to 2 {
// CHECK-NEXT: affine.for %{{.*}} = 0 to 2 {
// CHECK-NEXT: affine.for %[[K:.*]] = 0 to 2 {
// CHECK-NEXT: %[[SA:.*]] = tgpu.alloc_shared [32, 32] padding [0, 0] : memref<32x32xf32, #gpu.address_space<workgroup>>
// CHECK: tgpu.tile_copy %arg0 to %[[SA]] offsets [%{{.*}}, %{{.*}}] tile [32, 32]
// CHECK-NEXT: %[[SB:.*]] = tgpu.alloc_shared [32, 32] padding [0, 0] : memref<32x32xf32, #gpu.address_space<workgroup>>
// CHECK: tgpu.tile_copy %arg1 to %[[SB]] offsets [%{{.*}}, %{{.*}}] tile [32, 32]
// CHECK-NEXT: gpu.barrier
// CHECK: affine.load %[[SA]]
// CHECK-NEXT: affine.load %[[SB]]
// CHECK-NEXT: affine.load %arg2
// CHECK: } {tpoly.band = 0 : i64, tpoly.coincident, tpoly.member = 0 : i64, tpoly.permutable, tpoly.point}
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: } {tpoly.band = 0 : i64, tpoly.member = 2 : i64, tpoly.permutable, tpoly.tile = 32 : i64}
func.func @matmul(%A: memref<64x48xf32>, %B: memref<48x64xf32>, %C: memref<64x64xf32>) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 64 {
      affine.for %k = 0 to 48 {
        %a = affine.load %A[%i, %k] : memref<64x48xf32>
        %b = affine.load %B[%k, %j] : memref<48x64xf32>
        %c = affine.load %C[%i, %j] : memref<64x64xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %c, %p : f32
        affine.store %s, %C[%i, %j] : memref<64x64xf32>
      }
    }
  }
  return
}

// Nothing to share: each element of A is read by one thread.
// CHECK-LABEL: func.func @copy(
// CHECK-NOT: tgpu.
// CHECK: return
func.func @copy(%A: memref<64x64xf32>, %B: memref<64x64xf32>) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 64 {
      %v = affine.load %A[%i, %j] : memref<64x64xf32>
      affine.store %v, %B[%i, %j] : memref<64x64xf32>
    }
  }
  return
}

// x is read by every thread, but a tile's 20000 floats of it (80000 bytes, with the
// tile sizes the scop asks for) do not fit in a block's 48 KiB, nor do y's.
// CHECK-LABEL: func.func @too_large(
// CHECK-NOT: tgpu.
// CHECK: return
func.func @too_large(%x: memref<20000xf32>, %y: memref<?xf32>, %n: index, %z: memref<256xf32>) {
  tpoly.scop tile_sizes [256, 20000] {
    affine.for %i = 0 to 256 {
      affine.for %j = 0 to 20000 {
        %v = affine.load %x[%j] : memref<20000xf32>
        %w = affine.load %z[%i] : memref<256xf32>
        %s = arith.addf %v, %w : f32
        affine.store %s, %z[%i] : memref<256xf32>
      }
      affine.for %j = 0 to %n {
        %v = affine.load %y[%j] : memref<?xf32>
        %w = affine.load %z[%i] : memref<256xf32>
        %s = arith.addf %v, %w : f32
        affine.store %s, %z[%i] : memref<256xf32>
      }
    }
  }
  return
}

// A transpose: no element is read twice, but thread x (on j, for the coalesced store)
// reads A down a column; the copy reads A's rows with consecutive threads (paper 004).
// CHECK-LABEL: func.func @transpose(
// CHECK: %[[T:.*]] = tgpu.alloc_shared [32, 32] padding [0, 0] : memref<32x32xf32, #gpu.address_space<workgroup>>
// CHECK: tgpu.tile_copy %arg0 to %[[T]]
// CHECK: affine.load %[[T]]
// CHECK: affine.store %{{.*}}, %arg1
func.func @transpose(%A: memref<64x64xf32>, %B: memref<64x64xf32>) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 64 {
      %v = affine.load %A[%j, %i] : memref<64x64xf32>
      affine.store %v, %B[%i, %j] : memref<64x64xf32>
    }
  }
  return
}

// REMARK: promote-shared.mlir:30:12: remark: promoted to shared memory: a 34x34 box of f32 per tile (4624 bytes), read by several threads of the block
// REMARK: promote-shared.mlir:69:14: remark: promoted to shared memory: a 32x32 box of f32 per tile (4096 bytes), read by several threads
// REMARK: promote-shared.mlir:70:14: remark: promoted to shared memory: a 32x32 box of f32 per tile (4096 bytes), read by several threads
// REMARK: remark: promoted to shared memory: a 32x32 box of f32 per tile (4096 bytes), read uncoalesced by thread x, copied by rows
// REMARK-NOT: promoted

// OUT: 443340
// OUT-NEXT: 110071260
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c48 = arith.constant 48 : index
  %c64 = arith.constant 64 : index
  %A = memref.alloc() : memref<64x64xf32>
  %B = memref.alloc() : memref<64x64xf32>
  %M = memref.alloc() : memref<64x48xf32>
  %N = memref.alloc() : memref<48x64xf32>
  %z = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c64 step %c1 {
    scf.for %j = %c0 to %c64 step %c1 {
      %s = arith.addi %i, %j : index
      %m = arith.remui %s, %c48 : index
      %w = arith.index_cast %m : index to i32
      %f = arith.sitofp %w : i32 to f32
      memref.store %f, %A[%i, %j] : memref<64x64xf32>
      memref.store %z, %B[%i, %j] : memref<64x64xf32>
    }
  }
  scf.for %i = %c0 to %c48 step %c1 {
    scf.for %j = %c0 to %c64 step %c1 {
      %f = memref.load %A[%j, %i] : memref<64x64xf32>
      memref.store %f, %M[%j, %i] : memref<64x48xf32>
      %g = memref.load %A[%i, %j] : memref<64x64xf32>
      memref.store %g, %N[%i, %j] : memref<48x64xf32>
    }
  }
  func.call @stencil(%A, %B) : (memref<64x64xf32>, memref<64x64xf32>) -> ()
  %s1 = func.call @sum(%B) : (memref<64x64xf32>) -> f32
  func.call @tessel_print_f32(%s1) : (f32) -> ()
  func.call @matmul(%M, %N, %B) : (memref<64x48xf32>, memref<48x64xf32>, memref<64x64xf32>) -> ()
  %s2 = func.call @sum(%B) : (memref<64x64xf32>) -> f32
  func.call @tessel_print_f32(%s2) : (f32) -> ()
  return
}
func.func @sum(%B: memref<64x64xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %z = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %c64 step %c1 iter_args(%a = %z) -> f32 {
    %q = scf.for %j = %c0 to %c64 step %c1 iter_args(%b = %a) -> f32 {
      %v = memref.load %B[%i, %j] : memref<64x64xf32>
      %n = arith.addf %b, %v : f32
      scf.yield %n : f32
    }
    scf.yield %q : f32
  }
  return %r : f32
}
func.func private @tessel_print_f32(f32)
