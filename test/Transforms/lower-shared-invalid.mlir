// RUN: tessel-opt %s --split-input-file --verify-diagnostics --tessel-lower-shared

// Shared memory belongs to a block: host code has none.
func.func @host_alloc() {
  // expected-error @+1 {{tgpu.alloc_shared outside a gpu.launch: shared memory belongs to the threads of a block}}
  %s = tgpu.alloc_shared [4] padding [0] : memref<4xf32, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @host_copy(%A: memref<8xf32>, %s: memref<4xf32, #gpu.address_space<workgroup>>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{tgpu.tile_copy outside a gpu.launch: the threads of a block copy a tile together}}
  tgpu.tile_copy %A to %s offsets [%c0] tile [4] : memref<8xf32> to memref<4xf32, #gpu.address_space<workgroup>>
  return
}
