// RUN: tessel-opt %s | tessel-opt | FileCheck %s

// A SCoP with no hints: the terminator is implicit and not printed.

// CHECK-LABEL: func.func @scop_plain
// CHECK:         tpoly.scop {
// CHECK-NEXT:      affine.for
// CHECK-NOT:     tpoly.yield
// CHECK:         return
func.func @scop_plain(%A: memref<64x64xf32>, %B: memref<64x64xf32>) {
  tpoly.scop {
    affine.for %i = 0 to 64 {
      affine.for %j = 0 to 64 {
        %v = affine.load %A[%i, %j] : memref<64x64xf32>
        affine.store %v, %B[%j, %i] : memref<64x64xf32>
      }
    }
  }
  return
}

// gemm with the paper's pragma (paper 000, Fig. 2(a)):
//   #pragma acc share(A[TBY][*]:coalesce, B[*][TBX])

// CHECK-LABEL: func.func @gemm_share
// CHECK:         tpoly.scop share [#tpoly.share<"A"[TBY][*], coalesce>, #tpoly.share<"B"[*][TBX]>] {
// CHECK:           affine.for
func.func @gemm_share(%A: memref<1024x1024xf32>, %B: memref<1024x1024xf32>,
                      %C: memref<1024x1024xf32>) {
  tpoly.scop share [#tpoly.share<"A"[TBY][*], coalesce>, #tpoly.share<"B"[*][TBX]>] {
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

// Extent expressions print in a canonical form (constants on the right,
// minimal parentheses); a bare array name has no extents.

// CHECK-LABEL: func.func @share_extents
// CHECK-SAME:    tpoly.c = #tpoly.share<"C"[32][TBX * 2 + 1]>
// CHECK-SAME:    tpoly.d = #tpoly.share<"D">
// CHECK-SAME:    tpoly.e = #tpoly.share<"E"[TBX * TBY / 2][(TBX + 1) * 4]>
// CHECK-SAME:    tpoly.f = #tpoly.share<"F"[TBX - TBY][TBZ - 1][TBX * -2 + TBY]>
// CHECK-SAME:    tpoly.g = #tpoly.share<"G"[TBX ceildiv 2][TBY mod 3 + 1], coalesce>
// CHECK-SAME:    tpoly.h = #tpoly.share<"my array"[*][*][*]>
func.func @share_extents() attributes {
    tpoly.c = #tpoly.share<"C"[32][2 * TBX + 1]>,
    tpoly.d = #tpoly.share<"D">,
    tpoly.e = #tpoly.share<"E"[TBX * TBY / 2][4 * (TBX + 1)]>,
    tpoly.f = #tpoly.share<"F"[TBX - TBY][TBZ - 1][-2 * TBX + TBY]>,
    tpoly.g = #tpoly.share<"G"[TBX ceildiv 2][(TBY mod 3) + 1], coalesce>,
    tpoly.h = #tpoly.share<"my array"[*][*][*]>} {
  return
}

// Tile sizes and the block/thread mapping the mapping pass fills in.

// CHECK-LABEL: func.func @tiled_mapped
// CHECK:         tpoly.scop share [#tpoly.share<"A"[TBY][*], coalesce>] tile_sizes [32, 16] mapping <[block_y, block_x], [thread_y, thread_x]> {
func.func @tiled_mapped(%A: memref<128x128xf32>) {
  tpoly.scop share [#tpoly.share<"A"[TBY][*], coalesce>] tile_sizes [32, 16] mapping <[block_y, block_x], [thread_y, thread_x]> {
    affine.for %i = 0 to 128 {
      affine.for %j = 0 to 128 {
        %v = affine.load %A[%i, %j] : memref<128x128xf32>
        %w = arith.addf %v, %v : f32
        affine.store %w, %A[%i, %j] : memref<128x128xf32>
      }
    }
  }
  return
}

// `sequential` may repeat; empty lists are allowed; the mapping can be given
// without tile sizes or share hints.

// CHECK-LABEL: func.func @mapping_forms
// CHECK-SAME:    tpoly.p = #tpoly.processor<thread_z>
// CHECK:         tpoly.scop tile_sizes [64, 8, 1] mapping <[block_x, sequential, sequential], [thread_x, thread_y, sequential]> {
// CHECK:         tpoly.scop mapping <[], []> {
func.func @mapping_forms() attributes {tpoly.p = #tpoly.processor<thread_z>} {
  tpoly.scop tile_sizes [64, 8, 1] mapping <[block_x, sequential, sequential], [thread_x, thread_y, sequential]> {
  }
  tpoly.scop mapping <[], []> {
  }
  return
}

// A scop with results yields them explicitly.

// CHECK-LABEL: func.func @scop_results
// CHECK:         %[[R:.*]]:2 = tpoly.scop tile_sizes [4] -> f32, index {
// CHECK:           tpoly.yield %{{.*}}, %{{.*}} : f32, index
// CHECK:         return %[[R]]#0, %[[R]]#1 : f32, index
func.func @scop_results(%A: memref<16xf32>) -> (f32, index) {
  %r:2 = tpoly.scop tile_sizes [4] -> f32, index {
    %c0 = arith.constant 0 : index
    %v = affine.load %A[0] : memref<16xf32>
    tpoly.yield %v, %c0 : f32, index
  }
  return %r#0, %r#1 : f32, index
}

// Extra attributes go after `attributes`.

// CHECK-LABEL: func.func @scop_extra_attrs
// CHECK:         tpoly.scop attributes {tpoly.origin = "gemm.c:12"} {
func.func @scop_extra_attrs() {
  tpoly.scop attributes {tpoly.origin = "gemm.c:12"} {
  }
  return
}

// The scop is an affine scope: a value defined at its top level is a valid
// symbol for the loop bounds inside it.

// CHECK-LABEL: func.func @scop_affine_scope
// CHECK:         tpoly.scop {
// CHECK:           %[[N:.*]] = memref.dim
// CHECK:           affine.for %{{.*}} = 0 to %[[N]] {
func.func @scop_affine_scope(%A: memref<?xf32>) {
  tpoly.scop {
    %c0 = arith.constant 0 : index
    %n = memref.dim %A, %c0 : memref<?xf32>
    affine.for %i = 0 to %n {
      %v = affine.load %A[%i] : memref<?xf32>
      affine.store %v, %A[%i] : memref<?xf32>
    }
  }
  return
}
