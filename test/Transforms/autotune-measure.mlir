// tessel-autotune{measure=true} (tesselc --autotune=measure) times the candidates on the
// CUDA GPU present. Without a driver it is an error that says so; a run on an H100 is in
// bench/results/calibration-h100/README.md.
// UNSUPPORTED: cuda-driver
// RUN: not tessel-opt %s --tessel-optimize=autotune=measure 2>&1 | FileCheck %s
// CHECK: error: 'tessel-autotune' option measure=true needs a CUDA GPU: libcuda.so.1 not found (no NVIDIA driver)
// RUN: not tessel-opt %s '--tessel-autotune=measure=yes' 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: 'tessel-autotune' option measure=yes: expected true or false

func.func @scale(%A: memref<64x64xf32>) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 64 {
      %v = affine.load %A[%i, %j] : memref<64x64xf32>
      %w = arith.addf %v, %v : f32
      affine.store %w, %A[%i, %j] : memref<64x64xf32>
    }
  }
  return
}
