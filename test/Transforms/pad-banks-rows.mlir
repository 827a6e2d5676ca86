// tessel-pad-banks alone, on tiles as tessel-promote-shared leaves them: the decision
// tree of paper 000 Fig. 4, a case per leaf it reaches (array of structures, stride ==
// row width, another stride). The fourth, the cooperative copy's own conflicts
// (thread remapping of its rows), is lower-shared-rows.mlir's; access reordering is not
// built (promoted buffers' affine subscripts reach the other leaves).
// RUN: tessel-opt %s --tessel-pad-banks 2>/dev/null | FileCheck %s
// RUN: tessel-opt %s --tessel-pad-banks -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// Rows of 16 floats, thread x on the rows, each lane reading element 3 of its row: lanes
// 16 words apart, 16 to a bank (2-D, strided, stride == row width). Transposed, the
// lanes read consecutive words of row 3; the copy writes down the columns of rows of
// 32 + 1 words.
// REMARK: pad-banks-rows.mlir:{{[0-9]+}}:12: remark: shared buffer transposed (paper 000 Fig. 4: read down a column, stride == row width), padded by 1 element per row: its accesses take 1 wavefronts per warp instead of 16
// CHECK-LABEL: func.func @rows_of_16(
// CHECK: %[[S:.*]] = tgpu.alloc_shared [16, 32] padding [0, 1] : memref<16x33xf32, #gpu.address_space<workgroup>>
// CHECK: tgpu.tile_copy %{{.*}} to %[[S]] offsets [%[[O:.*]], %{{.*}}] tile [32, 16] {permutation = array<i64: 1, 0>}
// CHECK: affine.load %[[S]][3, %{{.*}} - %[[O]]] : memref<16x33xf32, #gpu.address_space<workgroup>>
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


// An array of structures of 4 floats, thread x on the structures, each lane reading its
// 4 fields: lanes 4 words apart, 4-way conflicts. Stored as a structure of arrays (the
// field dimension first), a warp reads one field of 32 consecutive structures.
// REMARK: pad-banks-rows.mlir:{{[0-9]+}}:12: remark: shared buffer stored as a structure of arrays (paper 000 Fig. 4: an array of structures), padded by 1 element per row: its accesses take 4 wavefronts per warp instead of 16
// CHECK-LABEL: func.func @structures(
// CHECK: %[[S:.*]] = tgpu.alloc_shared [4, 32] padding [0, 1] : memref<4x33xf32, #gpu.address_space<workgroup>>
// CHECK: tgpu.tile_copy %{{.*}} to %[[S]] offsets [%[[O:.*]], %{{.*}}] tile [32, 4] {permutation = array<i64: 1, 0>}
// CHECK: affine.load %[[S]][0, %{{.*}} - %[[O]]]
// CHECK: affine.load %[[S]][3, %{{.*}} - %[[O]]]
func.func @structures(%P: memref<64x4xf32>, %B: memref<64xf32>) {
  tpoly.scop {
    affine.for %t = 0 to 2 {
      %s = tgpu.alloc_shared [32, 4] padding [0, 0] : memref<32x4xf32, #gpu.address_space<workgroup>>
      %o = affine.apply affine_map<(d0) -> (d0 * 32)>(%t)
      %z = affine.apply affine_map<() -> (0)>()
      tgpu.tile_copy %P to %s offsets [%o, %z] tile [32, 4] : memref<64x4xf32> to memref<32x4xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      affine.for %i = affine_map<(d0) -> (d0 * 32)>(%t) to affine_map<(d0) -> (d0 * 32 + 32)>(%t) {
        %x = affine.load %s[%i - %o, 0] : memref<32x4xf32, #gpu.address_space<workgroup>>
        %y = affine.load %s[%i - %o, 1] : memref<32x4xf32, #gpu.address_space<workgroup>>
        %z2 = affine.load %s[%i - %o, 2] : memref<32x4xf32, #gpu.address_space<workgroup>>
        %w = affine.load %s[%i - %o, 3] : memref<32x4xf32, #gpu.address_space<workgroup>>
        %a = arith.mulf %x, %y : f32
        %b = arith.mulf %z2, %w : f32
        %r = arith.addf %a, %b : f32
        affine.store %r, %B[%i] : memref<64xf32>
      } {tpoly.band = 0 : i64, tpoly.coincident, tpoly.member = 0 : i64, tpoly.permutable, tpoly.point}
    } {tpoly.band = 0 : i64, tpoly.coincident, tpoly.member = 0 : i64, tpoly.permutable, tpoly.tile = 32 : i64}
  }
  return
}

// Every other row of 16 floats, walked along by an inner loop: lanes 32 words apart
// (2-D, strided, stride != row width: the padding leaf). Rows of 17 words leave lanes
// 34 words apart, two to a bank, the least any padding gives an even stride.
// REMARK: pad-banks-rows.mlir:{{[0-9]+}}:12: remark: shared buffer padded by 1 element per row: its accesses take 2 wavefronts per warp instead of 32
// CHECK-LABEL: func.func @every_other_row(
// CHECK: tgpu.alloc_shared [64, 16] padding [0, 1] : memref<64x17xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: permutation
func.func @every_other_row(%A: memref<128x16xf32>, %B: memref<64xf32>) {
  tpoly.scop {
    affine.for %t = 0 to 2 {
      %s = tgpu.alloc_shared [64, 16] padding [0, 0] : memref<64x16xf32, #gpu.address_space<workgroup>>
      %o = affine.apply affine_map<(d0) -> (d0 * 64)>(%t)
      %z = affine.apply affine_map<() -> (0)>()
      tgpu.tile_copy %A to %s offsets [%o, %z] tile [64, 16] : memref<128x16xf32> to memref<64x16xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      affine.for %i = affine_map<(d0) -> (d0 * 32)>(%t) to affine_map<(d0) -> (d0 * 32 + 32)>(%t) {
        affine.for %j = 0 to 16 {
          %v = affine.load %s[2 * %i - %o, %j] : memref<64x16xf32, #gpu.address_space<workgroup>>
          affine.store %v, %B[%i] : memref<64xf32>
        }
      } {tpoly.band = 0 : i64, tpoly.coincident, tpoly.member = 0 : i64, tpoly.permutable, tpoly.point}
    } {tpoly.band = 0 : i64, tpoly.coincident, tpoly.member = 0 : i64, tpoly.permutable, tpoly.tile = 32 : i64}
  }
  return
}
