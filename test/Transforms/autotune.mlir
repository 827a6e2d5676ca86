// RUN: tessel-opt %s --split-input-file --tessel-schedule '--tessel-autotune=gpu=gtx690 cache=none sample=64' 2>/dev/null | FileCheck %s
// RUN: rm -f %t.cache
// RUN: tessel-opt %s --split-input-file --tessel-schedule '--tessel-autotune=gpu=gtx690 cache=%t.cache sample=64' 2>&1 >/dev/null | FileCheck %s --check-prefix=DIAG
// RUN: FileCheck %s --input-file=%t.cache --check-prefix=CACHE
// RUN: tessel-opt %s --split-input-file --tessel-schedule '--tessel-autotune=gpu=gtx690 cache=%t.cache sample=64' 2>&1 >/dev/null | FileCheck %s --check-prefix=CACHED
// RUN: not tessel-opt %s --tessel-autotune=gpu=gtx9000 2>&1 | FileCheck %s --check-prefix=BADGPU
// RUN: not tessel-opt %s --tessel-autotune=size=0 2>&1 | FileCheck %s --check-prefix=BADSIZE
// RUN: not tessel-opt %s --tessel-autotune=sample=many 2>&1 | FileCheck %s --check-prefix=BADSAMPLE
// BADGPU: error: 'tessel-autotune' option gpu=gtx9000: not a modelled GPU (one of: h100, h200, a100,
// BADSIZE: error: 'tessel-autotune' option size=0: expected auto or a positive integer
// BADSAMPLE: error: 'tessel-autotune' option sample=many: expected a positive integer

// A 5-point stencil of one band: 13 candidates (the untuned build; the rule's 32x32
// tiles, 16x32, 64x32 and 32x64, each with and without shared memory; the untiled
// mapping; the rule's tiles with 1, 2 and 4 points per thread instead of the count
// chosen at launch), estimated
// with n = 256 (the arrays' extent). On gtx690, whose global loads go to L2, the shared
// copies of this small grid cost more than the rereads they save.
// DIAG: remark: autotune (model, gtx690, parameters 256): tile sizes 16x32, no shared memory: {{[0-9.]+}} us estimated (untuned: {{[0-9.]+}} us; 13 candidates)
// CHECK-LABEL: func.func @stencil(
// CHECK-NEXT: tpoly.scop tile_sizes [16, 32] attributes {tessel.shared = false} {
// CACHE: {{^[0-9a-f]+}}	16,32/global/auto	autotune (model, gtx690, parameters 256)
// CACHED: remark: autotune (model, gtx690, parameters 256): tile sizes 16x32, no shared memory: {{.*}} (cached)
func.func @stencil(%n: index, %A: memref<256x256xf32>, %B: memref<256x256xf32>) {
  tpoly.scop {
    affine.for %i = 1 to affine_map<()[s0] -> (s0 - 1)>()[%n] {
      affine.for %j = 1 to affine_map<()[s0] -> (s0 - 1)>()[%n] {
        %c = affine.load %A[%i, %j] : memref<256x256xf32>
        %u = affine.load %A[%i - 1, %j] : memref<256x256xf32>
        %d = affine.load %A[%i + 1, %j] : memref<256x256xf32>
        %l = affine.load %A[%i, %j - 1] : memref<256x256xf32>
        %r = affine.load %A[%i, %j + 1] : memref<256x256xf32>
        %s0 = arith.addf %c, %u : f32
        %s1 = arith.addf %s0, %d : f32
        %s2 = arith.addf %s1, %l : f32
        %s3 = arith.addf %s2, %r : f32
        affine.store %s3, %B[%i, %j] : memref<256x256xf32>
      }
    }
  }
  return
}

// -----

// Two statements scheduled apart, two bands of 32x32 points: the rule's tiles are 8x32
// (32x32 halved along y for a grid this small: 4 blocks), and the candidates vary those
// sizes; the untiled mapping's 4 blocks of 32x8 threads are estimated fastest.
// DIAG: remark: autotune (model, gtx690, parameters 32): not tiled, no shared memory: {{.*}} (untuned: {{[0-9.]+}} us; 13 candidates)
// CHECK-LABEL: func.func @two_bands(
// CHECK-NEXT: tpoly.scop attributes {tessel.shared = false, tessel.tile = false} {
// CACHED: remark: autotune (model, gtx690, parameters 32): {{.*}} (cached)
func.func @two_bands(%A: memref<32x32xf32>, %B: memref<32x32xf32>) {
  tpoly.scop {
    affine.for %i = 0 to 32 {
      affine.for %j = 0 to 32 {
        %a = affine.load %A[%j, %i] : memref<32x32xf32>
        affine.store %a, %B[%i, %j] : memref<32x32xf32>
      }
    }
    affine.for %i = 0 to 32 {
      affine.for %j = 1 to 31 {
        %a = affine.load %B[%i, %j - 1] : memref<32x32xf32>
        %b = affine.load %B[%i, %j + 1] : memref<32x32xf32>
        %c = arith.addf %a, %b : f32
        affine.store %c, %A[%i, %j] : memref<32x32xf32>
      }
    }
  }
  return
}

// -----

// Arrays of 4096 elements: estimated with n = 1024, where another candidate must be
// estimated 1.25x faster than the rule's to be chosen (the real size may rank them
// otherwise).
// DIAG: remark: autotune (model, gtx690, parameters 1024): {{.*}}; below the arrays' size, others must be 1.25x faster)
// CHECK-LABEL: func.func @large(
func.func @large(%n: index, %A: memref<4096xf32>) {
  tpoly.scop {
    affine.for %i = 0 to affine_map<()[s0] -> (s0)>()[%n] {
      %a = affine.load %A[%i] : memref<4096xf32>
      %b = arith.addf %a, %a : f32
      affine.store %b, %A[%i] : memref<4096xf32>
    }
  }
  return
}

// -----

// A function without scops is left alone, without a remark.
// DIAG-NOT: remark
// CHECK-LABEL: func.func @host(
func.func @host(%A: memref<8xf32>, %x: f32) {
  %c0 = arith.constant 0 : index
  memref.store %x, %A[%c0] : memref<8xf32>
  return
}

// -----

// A chosen number of points per thread reaches tessel-map-to-gpu: 4 points of each
// thread along the block's outer dimension (y), the launch's block fixed at 32x8.
// RUN: tessel-opt %s --split-input-file --tessel-schedule --tessel-tile=min-blocks=1 --tessel-map-to-gpu 2>/dev/null | FileCheck %s --check-prefix=COARSEN
// DIAG: remark: autotune (model, gtx690, parameters 64)
// COARSEN-LABEL: func.func @coarsened(
// COARSEN: gpu.launch blocks({{.*}}) threads({{.*}}) in (%{{.*}} = %c32{{.*}}, %{{.*}} = %c8{{.*}}, %{{.*}} = %c1{{.*}})
func.func @coarsened(%A: memref<64x64xf32>, %x: f32) {
  tpoly.scop attributes {tessel.coarsen = 4 : i64} {
    affine.for %i = 0 to 64 {
      affine.for %j = 0 to 64 {
        affine.store %x, %A[%i, %j] : memref<64x64xf32>
      }
    }
  }
  return
}

// -----

// A matrix product of 1024^3: a block of 32x128 runs about 320K warp instructions, so a
// launch's sample stops after 2 blocks, the first and the middle one (not the 64 asked), and
// candidates other than the first fit in the estimate's budget (with whole waves the
// first alone did, and took 28 s).
// DIAG: remark: autotune (model, gtx690, parameters 1024): {{[^:]+}}: {{[0-9.]+}} us estimated (untuned: {{[0-9.]+}} us; {{[2-9]|1[0-3]}} candidates
// CHECK-LABEL: func.func @matmul(
// CACHED: remark: autotune (model, gtx690, parameters 1024): {{.*}} (cached)
func.func @matmul(%A: memref<1024x1024xf32>, %B: memref<1024x1024xf32>, %C: memref<1024x1024xf32>) {
  tpoly.scop {
    affine.for %i = 0 to 1024 {
      affine.for %j = 0 to 1024 {
        affine.for %k = 0 to 1024 {
          %a = affine.load %A[%i, %k] : memref<1024x1024xf32>
          %b = affine.load %B[%k, %j] : memref<1024x1024xf32>
          %c = affine.load %C[%i, %j] : memref<1024x1024xf32>
          %p = arith.mulf %a, %b : f32
          %s = arith.addf %c, %p : f32
          affine.store %s, %C[%i, %j] : memref<1024x1024xf32>
        }
      }
    }
  }
  return
}
