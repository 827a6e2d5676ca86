// tessel-share: a share pragma's candidates (the seeds and the arrays a dependence links
// to them) and the tile sizes of the plan of highest profit whose boxes have the
// partitions' extents (paper 000 sec. 3.2, eqs. 8-11).
// RUN: tessel-opt %s --split-input-file --tessel-schedule --tessel-share 2>/dev/null | FileCheck %s
// RUN: tessel-opt %s --split-input-file --tessel-schedule --tessel-share -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: tessel-opt %s --split-input-file --tessel-schedule --tessel-share=theta=0.125 -o /dev/null 2>&1 | FileCheck %s --check-prefix=THETA
// RUN: tessel-opt %s --split-input-file --tessel-schedule --tessel-share --tessel-tile --tessel-promote-shared=min-reuse=2.5 -o /dev/null 2>&1 | FileCheck %s --check-prefix=PROMOTE
// RUN: not tessel-opt %s --tessel-share=theta=0 2>&1 | FileCheck %s --check-prefix=BADTHETA
// RUN: not tessel-opt %s --tessel-share=theta=big 2>&1 | FileCheck %s --check-prefix=BADTHETA
// BADTHETA: error: 'tessel-share' option theta={{.*}}: expected a number greater than 0 and at most 1

// Paper 000 Fig. 2(a): gemm with A[TBY][*] and B[*][TBX]. C joins the candidates (its
// statement reads the seeds). The profit, eq. 12 on f32 with k = 256, is
// 4 * 256 * (TBY * (TBX - 1) + TBX * (TBY - 1)): at most 1024 threads with TBX >= 32,
// it is highest at 32x32 (2031616 bytes; 64x16 gives 2015232). k's tile (the `*`s)
// does not change it; 32 is the rule's size, and its boxes, 32 * 32 * 4 bytes each of A
// and B, fit within 0.25 of 48 KiB. With theta_s = 0.125 (6144 bytes) k's tile is 16.
// REMARK: share.mlir:[[@LINE+8]]:3: remark: share pragma: candidates A, B (seeds), C (by a dependence)
// REMARK: share.mlir:[[@LINE+7]]:3: remark: share pragma: tile sizes 32, 32, 32 (TBX = 32, TBY = 32): profit 2031616 bytes of global traffic per block (reuse: A, B; coalescing: none), boxes of 8192 bytes of shared memory per block (theta_s = 0.25 of 48 KiB)
// THETA: share.mlir:[[@LINE+6]]:3: remark: share pragma: tile sizes 32, 32, 16 (TBX = 32, TBY = 32): profit 2031616 bytes of global traffic per block (reuse: A, B; coalescing: none), boxes of 4096 bytes of shared memory per block (theta_s = 0.125 of 48 KiB)
// PROMOTE: remark: promoted to shared memory: a 32x32 box of f32 per tile (4096 bytes), named by the share pragma
// PROMOTE: remark: promoted to shared memory: a 32x32 box of f32 per tile (4096 bytes), named by the share pragma
// CHECK-LABEL: func.func @gemm(
// CHECK: tpoly.scop share [#tpoly.share<"A"[TBY][*]>, #tpoly.share<"B"[*][TBX]>] tile_sizes [32, 32, 32] attributes {tessel.share_candidates = ["A", "B", "C"]}
func.func @gemm(%A: memref<256x256xf32> loc("A"), %B: memref<256x256xf32> loc("B"), %C: memref<256x256xf32> loc("C")) {
  tpoly.scop share [#tpoly.share<"A"[TBY][*]>, #tpoly.share<"B"[*][TBX]>] {
    affine.for %i = 0 to 256 {
      affine.for %j = 0 to 256 {
        affine.for %k = 0 to 256 {
          %a = affine.load %A[%i, %k] : memref<256x256xf32>
          %b = affine.load %B[%k, %j] : memref<256x256xf32>
          %c = affine.load %C[%i, %j] : memref<256x256xf32>
          %p = arith.mulf %a, %b : f32
          %s = arith.addf %c, %p : f32
          affine.store %s, %C[%i, %j] : memref<256x256xf32>
        }
      }
    }
  }
  return
}

// -----

// A 5-point stencil whose partition holds the halo: the box of a TBY x TBX tile is
// (TBY + 2) x (TBX + 2). Profit per block: 4 bytes * (5 reads per point - the box),
// highest at 32x32: 4 * (5120 - 34 * 34) = 15856 (16x64: 15728).
// REMARK: share.mlir:[[@LINE+5]]:3: remark: share pragma: candidates A (seeds), B (by a dependence)
// REMARK: share.mlir:[[@LINE+4]]:3: remark: share pragma: tile sizes 32, 32 (TBX = 32, TBY = 32): profit 15856 bytes of global traffic per block (reuse: A; coalescing: none), boxes of 4624 bytes of shared memory per block (theta_s = 0.25 of 48 KiB)
// PROMOTE: remark: promoted to shared memory: a 34x34 box of f32 per tile (4624 bytes), named by the share pragma
// CHECK-LABEL: func.func @stencil(
func.func @stencil(%A: memref<1024x1024xf32> loc("A"), %B: memref<1024x1024xf32> loc("B")) {
  tpoly.scop share [#tpoly.share<"A"[TBY + 2][TBX + 2]>] {
    affine.for %i = 1 to 1023 {
      affine.for %j = 1 to 1023 {
        %a = affine.load %A[%i - 1, %j] : memref<1024x1024xf32>
        %b = affine.load %A[%i + 1, %j] : memref<1024x1024xf32>
        %c = affine.load %A[%i, %j - 1] : memref<1024x1024xf32>
        %d = affine.load %A[%i, %j + 1] : memref<1024x1024xf32>
        %e = affine.load %A[%i, %j] : memref<1024x1024xf32>
        %s1 = arith.addf %a, %b : f32
        %s2 = arith.addf %c, %d : f32
        %s3 = arith.addf %s1, %s2 : f32
        %s = arith.addf %s3, %e : f32
        affine.store %s, %B[%i, %j] : memref<1024x1024xf32>
      }
    }
  }
  return
}

// -----

// The candidates follow the dependences: B links the second nest to the seed's, so D
// and E are candidates, and D's rows (read at i - 1, i and i + 1: 3072 reads of a
// 34x32 box per tile) are promoted by the automatic rule. isl fuses the two nests into
// one band: with theta_s = 0.125, A's and D's boxes take 6144 bytes at most, so the
// tile is 16x32 (2048 + 2304 bytes).
// REMARK: share.mlir:[[@LINE+6]]:3: remark: share pragma: candidates A (seeds), B, D, E (by a dependence)
// THETA: share.mlir:[[@LINE+5]]:3: remark: share pragma: tile sizes 16, 32 (TBX = 32, TBY = 16): profit {{[0-9]+}} bytes of global traffic per block (reuse: D; coalescing: none), boxes of 4352 bytes of shared memory per block (theta_s = 0.125 of 48 KiB)
// PROMOTE: remark: promoted to shared memory: a 32x32 box of f32 per tile (4096 bytes), named by the share pragma
// PROMOTE: remark: promoted to shared memory: a 34x32 box of f32 per tile (4352 bytes), read by several threads of the block
// CHECK-LABEL: func.func @linked(
func.func @linked(%A: memref<256x256xf32> loc("A"), %B: memref<256x256xf32> loc("B"), %D: memref<256x256xf32> loc("D"), %E: memref<256x256xf32> loc("E")) {
  tpoly.scop share [#tpoly.share<"A"[TBY][TBX]>] {
    affine.for %i = 0 to 256 {
      affine.for %j = 0 to 256 {
        %a = affine.load %A[%i, %j] : memref<256x256xf32>
        affine.store %a, %B[%i, %j] : memref<256x256xf32>
      }
    }
    affine.for %i = 1 to 255 {
      affine.for %j = 0 to 256 {
        %d0 = affine.load %D[%i - 1, %j] : memref<256x256xf32>
        %d1 = affine.load %D[%i, %j] : memref<256x256xf32>
        %d2 = affine.load %D[%i + 1, %j] : memref<256x256xf32>
        %b = affine.load %B[%i, %j] : memref<256x256xf32>
        %s = arith.addf %d0, %d1 : f32
        %u = arith.addf %s, %d2 : f32
        %t = arith.addf %u, %b : f32
        affine.store %t, %E[%i, %j] : memref<256x256xf32>
      }
    }
  }
  return
}

// -----

// No dependence links the second nest to the seed's: D and E are not candidates, and
// D stays in global memory, though its rows are reread (the automatic rule alone would
// promote it).
// REMARK: share.mlir:[[@LINE+5]]:3: remark: share pragma: candidates A (seeds), B (by a dependence); D, E not linked to a seed by a dependence: left in global memory
// PROMOTE: remark: promoted to shared memory: a 32x32 box of f32 per tile (4096 bytes), named by the share pragma
// PROMOTE-NOT: read by several threads
// CHECK-LABEL: func.func @unlinked(
func.func @unlinked(%A: memref<256x256xf32> loc("A"), %B: memref<256x256xf32> loc("B"), %D: memref<256x256xf32> loc("D"), %E: memref<256x256xf32> loc("E")) {
  tpoly.scop share [#tpoly.share<"A"[TBY][TBX]>] {
    affine.for %i = 1 to 255 {
      affine.for %j = 0 to 256 {
        %a = affine.load %A[%i, %j] : memref<256x256xf32>
        affine.store %a, %B[%i, %j] : memref<256x256xf32>
      }
    }
    affine.for %i = 1 to 255 {
      affine.for %j = 0 to 256 {
        %d0 = affine.load %D[%i - 1, %j] : memref<256x256xf32>
        %d1 = affine.load %D[%i, %j] : memref<256x256xf32>
        %d2 = affine.load %D[%i + 1, %j] : memref<256x256xf32>
        %s = arith.addf %d0, %d1 : f32
        %t = arith.addf %s, %d2 : f32
        affine.store %t, %E[%i, %j] : memref<256x256xf32>
      }
    }
  }
  return
}

// -----

// Partitions that no plan holds: a box one row wider than a TBY x TBX tile's halo
// allows. The tile sizes are left to tessel-tile.
// REMARK: share.mlir:[[@LINE+5]]:3: remark: share pragma: no tile sizes give the partitions' boxes within a block's limits (at most 1024 threads, boxes within 12288 bytes of shared memory): tile sizes left to tessel-tile
// PROMOTE: share.mlir:[[@LINE+4]]:3: remark: share pragma: no tile sizes give
// CHECK-LABEL: func.func @unheld(
// CHECK: tpoly.scop share [#tpoly.share<"A"[TBY + 3][TBX + 2]>] attributes {tessel.share_candidates = ["A", "B"]}
func.func @unheld(%A: memref<1024x1024xf32> loc("A"), %B: memref<1024x1024xf32> loc("B")) {
  tpoly.scop share [#tpoly.share<"A"[TBY + 3][TBX + 2]>] {
    affine.for %i = 1 to 1023 {
      affine.for %j = 1 to 1023 {
        %a = affine.load %A[%i - 1, %j - 1] : memref<1024x1024xf32>
        %b = affine.load %A[%i + 1, %j + 1] : memref<1024x1024xf32>
        %s = arith.addf %a, %b : f32
        affine.store %s, %B[%i, %j] : memref<1024x1024xf32>
      }
    }
  }
  return
}

// -----

// Partitions this pass cannot enforce: sizes already chosen, more extents than the
// array has dimensions, and a pragma that names no array of the scop.
// REMARK: share.mlir:[[@LINE+3]]:3: remark: share pragma: the scop's tile sizes are already chosen: its partitions are not enforced
// CHECK-LABEL: func.func @chosen(
func.func @chosen(%A: memref<64x64xf32> loc("A"), %B: memref<64x64xf32> loc("B")) {
  tpoly.scop share [#tpoly.share<"A"[TBY][TBX]>] tile_sizes [16, 16] {
    affine.for %i = 0 to 64 {
      affine.for %j = 0 to 64 {
        %a = affine.load %A[%i, %j] : memref<64x64xf32>
        affine.store %a, %B[%i, %j] : memref<64x64xf32>
      }
    }
  }
  return
}

// -----

// REMARK: share.mlir:[[@LINE+2]]:3: remark: share pragma: the partition of 'A' has 3 extents, the array 2 dimensions
func.func @rank(%A: memref<64x64xf32> loc("A"), %B: memref<64x64xf32> loc("B")) {
  tpoly.scop share [#tpoly.share<"A"[TBY][TBX][4]>] {
    affine.for %i = 0 to 64 {
      affine.for %j = 0 to 64 {
        %a = affine.load %A[%i, %j] : memref<64x64xf32>
        affine.store %a, %B[%i, %j] : memref<64x64xf32>
      }
    }
  }
  return
}

// -----

// REMARK: share.mlir:[[@LINE+2]]:3: remark: share pragma: no array of the pragma is accessed in the scop
func.func @nothing(%A: memref<64x64xf32> loc("A"), %B: memref<64x64xf32> loc("B")) {
  tpoly.scop share [#tpoly.share<"Q"[TBX]>] {
    affine.for %i = 0 to 64 {
      affine.for %j = 0 to 64 {
        %a = affine.load %A[%i, %j] : memref<64x64xf32>
        affine.store %a, %B[%i, %j] : memref<64x64xf32>
      }
    }
  }
  return
}

// -----

// A transpose read down a column by thread x: A is in CoalesceSet (paper 004's test),
// its profit 32 bytes per element of the box. Every plan of 1024 threads with TBX >= 32
// has the same profit (32 bytes * 1024 elements); the rule's 32x32 is the nearest.
// REMARK: share.mlir:[[@LINE+3]]:3: remark: share pragma: tile sizes 32, 32 (TBX = 32, TBY = 32): profit 32768 bytes of global traffic per block (reuse: none; coalescing: A), boxes of 4096 bytes of shared memory per block (theta_s = 0.25 of 48 KiB)
// PROMOTE: remark: promoted to shared memory: a 32x32 box of f32 per tile (4096 bytes), named by the share pragma
func.func @transpose(%A: memref<512x512xf32> loc("A"), %B: memref<512x512xf32> loc("B")) {
  tpoly.scop share [#tpoly.share<"A"[TBX][TBY]>] {
    affine.for %i = 0 to 512 {
      affine.for %j = 0 to 512 {
        %a = affine.load %A[%j, %i] : memref<512x512xf32>
        affine.store %a, %B[%i, %j] : memref<512x512xf32>
      }
    }
  }
  return
}
