// tessel-pad-banks alone, on a tile as tessel-promote-shared leaves it.
// RUN: tessel-opt %s --tessel-pad-banks 2>&1 | FileCheck %s

// Written as tessel-promote-shared leaves it: rows of 16 floats read down a column by
// thread x are 16 words apart, 16 lanes to a bank; one more element per row: 17 apart.
// CHECK: remark: shared buffer padded by 1 element per row: its accesses take 1 wavefronts per warp instead of 16
// CHECK-LABEL: func.func @rows_of_16(
// CHECK: tgpu.alloc_shared [32, 16] padding [0, 1] : memref<32x17xf32, #gpu.address_space<workgroup>>
func.func @rows_of_16(%A: memref<64x16xf32>, %B: memref<64xf32>) {
  tpoly.scop {
    affine.for %t = 0 to 2 {
      %s = tgpu.alloc_shared [32, 16] padding [0, 0] : memref<32x16xf32, #gpu.address_space<workgroup>>
      %o = affine.apply affine_map<(d0) -> (d0 * 32)>(%t)
      %z = affine.apply affine_map<() -> (0)>()
      tgpu.tile_copy %A to %s offsets [%o, %z] tile [32, 16] : memref<64x16xf32> to memref<32x16xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      affine.for %i = affine_map<(d0) -> (d0 * 32)>(%t) to affine_map<(d0) -> (d0 * 32 + 32)>(%t) {
        %v = affine.load %s[%i - %o, 3] : memref<32x16xf32, #gpu.address_space<workgroup>>
        affine.store %v, %B[%i] : memref<64xf32>
      } {tpoly.band = 0 : i64, tpoly.coincident, tpoly.member = 0 : i64, tpoly.permutable, tpoly.point}
    } {tpoly.band = 0 : i64, tpoly.coincident, tpoly.member = 0 : i64, tpoly.permutable, tpoly.tile = 32 : i64}
  }
  return
}

