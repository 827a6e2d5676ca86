// RUN: tessel-opt %s --split-input-file --verify-diagnostics --tessel-map-to-gpu
// RUN: not tessel-opt %s --tessel-map-to-gpu=coarsen=0 2>&1 | FileCheck %s --check-prefix=COARSEN
// RUN: not tessel-opt %s --tessel-map-to-gpu=coarsen=some 2>&1 | FileCheck %s --check-prefix=COARSEN
// COARSEN: error: 'tessel-map-to-gpu' option coarsen={{.*}}: expected auto or a positive number
// Scops tessel-map-to-gpu leaves on the host, as they were, with a remark saying why.

// A call's callee is host code: it cannot run in a kernel.
func.func @call(%A: memref<10xf32>) {
  // expected-remark @+1 {{scop not mapped to the GPU: 'func.call' cannot run in a kernel}}
  tpoly.scop {
    affine.for %i = 0 to 10 {
      %v = func.call @f() : () -> f32
      affine.store %v, %A[%i] : memref<10xf32>
    }
  }
  return
}
func.func private @f() -> f32

// -----

func.func @results(%A: memref<10xf32>) -> index {
  // expected-remark @+1 {{scop not mapped to the GPU: the scop has results}}
  %r = tpoly.scop -> index {
    affine.for %i = 0 to 10 {
      %v = affine.load %A[%i] : memref<10xf32>
      affine.store %v, %A[%i] : memref<10xf32>
    }
    %c = arith.constant 3 : index
    tpoly.yield %c : index
  }
  return %r : index
}

// -----

// The device copy of an array is a plain one: a strided layout (or a memory space) is
// not reproduced.
func.func @layout(%A: memref<10xf32, strided<[2]>>) {
  // expected-remark @+1 {{scop not mapped to the GPU: an array of type memref<10xf32, strided<[2]>> (a layout or memory space)}}
  tpoly.scop {
    affine.for %i = 0 to 10 {
      %v = affine.load %A[%i] : memref<10xf32, strided<[2]>>
      %w = arith.addf %v, %v : f32
      affine.store %w, %A[%i] : memref<10xf32, strided<[2]>>
    }
  }
  return
}

// -----

// A loop bound read from memory: the load runs on the device, where the data is, but the
// host needs its value.
func.func @bound(%A: memref<10xf32>, %B: memref<10xindex>) {
  // expected-remark @+1 {{scop not mapped to the GPU: a value computed by 'affine.load' on the device is used outside its kernel}}
  tpoly.scop {
    %n = affine.load %B[0] : memref<10xindex>
    affine.for %i = 0 to %n {
      %v = affine.load %A[%i] : memref<10xf32>
      affine.store %v, %A[%i] : memref<10xf32>
    } {tpoly.band = 0 : i64, tpoly.member = 0 : i64, tpoly.coincident, tpoly.permutable}
  }
  return
}

// -----

// Copies to shared memory in a loop run one thread per iteration: the threads of a
// block would not copy together, and shared memory has no host side. An error.
func.func @shared_per_thread(%A: memref<64xf32>, %B: memref<64xf32>) {
  // expected-error @+1 {{'tgpu.alloc_shared' is not at the level of a block of a tiled kernel (its threads would not run it together)}}
  tpoly.scop {
    affine.for %i = 0 to 64 {
      %s = tgpu.alloc_shared [4] padding [0] : memref<4xf32, #gpu.address_space<workgroup>>
      tgpu.tile_copy %A to %s offsets [%i] tile [4] : memref<64xf32> to memref<4xf32, #gpu.address_space<workgroup>>
      %v = affine.load %s[0] : memref<4xf32, #gpu.address_space<workgroup>>
      affine.store %v, %B[%i] : memref<64xf32>
    } {tpoly.coincident}
  }
  return
}
