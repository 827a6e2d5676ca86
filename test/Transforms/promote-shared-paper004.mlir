// RUN: tessel-opt %s --tessel-schedule --tessel-tile --tessel-promote-shared --tessel-pad-banks 2>%t.remarks | FileCheck %s
// RUN: FileCheck %s --input-file=%t.remarks --check-prefix=REMARK
// RUN: tessel-opt %s --tessel-schedule=fuse=max --tessel-tile 2>&1 >/dev/null | FileCheck %s --check-prefix=FUSED
// Paper 004 Fig. 4's row reduction: y = A x with a thread per row. Thread x walks down
// a column of A (A[i][j] with i on thread x): every load of a warp touches 32 rows.
// Fused, the scop is one band (i, j) with `y[i] = 0` between its members, which
// tessel-tile can tile in i only (the FUSED remark): the j loop stays whole and A is
// read uncoalesced. With fuse=auto (the default) the scop is scheduled again without
// fusion: the initialization is a nest of its own, and the product's band (i, j) tiles
// whole. Each iteration of the j tile loop then copies a 256x16 box of A with
// consecutive threads on consecutive elements of its rows (coalesced, the
// "Coalesced Loads" of Fig. 4), the threads read their rows from shared memory, and a
// barrier ends the iteration. tessel-pad-banks stores the box transposed (paper 000
// Fig. 4: lanes one row apart, stride == row width), 16 rows of 256 + 1 floats, so that
// the threads read along its rows and the copy's writes down its columns fall in
// different banks.

// REMARK: remark: scop scheduled without fusing its strongly connected components: fused, a band's members were not perfectly nested
// REMARK: remark: promoted to shared memory: a 256x16 box of f32 per tile (16384 bytes), read uncoalesced by thread x, copied by rows
// REMARK: remark: shared buffer transposed (paper 000 Fig. 4: read down a column, stride == row width), padded by 1 element per row
// FUSED: remark: band tiled in its first member only: the next member is not the only operation in the loop above it

// CHECK-LABEL: func.func @matvec(
// CHECK: tpoly.scop
// The initialization, a band of its own.
// CHECK: affine.for
// CHECK: affine.for
// CHECK: affine.store %{{.*}}, %[[Y:.*]][%{{.*}}] : memref<?xf32>
// CHECK: } {tpoly.band = 0 : i64, tpoly.coincident, tpoly.member = 0 : i64, tpoly.permutable, tpoly.point}
// CHECK: } {tpoly.band = 0 : i64, tpoly.coincident, tpoly.member = 0 : i64, tpoly.permutable, tpoly.tile = 256 : i64}
// The product: tiles of 256 rows (blocks), then the j tiles in sequence.
// CHECK: affine.for %[[TI:.*]] = 0 to
// CHECK: affine.for %[[TJ:.*]] = 0 to
// CHECK: %[[S:.*]] = tgpu.alloc_shared [16, 256] padding [0, 1] : memref<16x257xf32, #gpu.address_space<workgroup>>
// CHECK: %[[O0:.*]] = affine.apply #{{.*}}(%[[TI]], %[[TJ]], %{{.*}})
// CHECK: %[[O1:.*]] = affine.apply #{{.*}}(%[[TI]], %[[TJ]], %{{.*}})
// CHECK: tgpu.tile_copy %[[A:.*]] to %[[S]] offsets [%[[O0]], %[[O1]]] tile [256, 16] {permutation = array<i64: 1, 0>} : memref<?x?xf32> to memref<16x257xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: affine.for %[[I:.*]] = #{{.*}}(%[[TI]]) to
// CHECK: affine.for %[[J:.*]] = #{{.*}}(%[[TJ]]) to
// CHECK: affine.load %[[S]][%[[J]] - %[[O1]], %[[I]] - %[[O0]]] : memref<16x257xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: affine.load %[[A]]
// CHECK: } {tpoly.band = 1 : i64, tpoly.member = 1 : i64, tpoly.permutable, tpoly.point}
// CHECK: } {tpoly.band = 1 : i64, tpoly.coincident, tpoly.member = 0 : i64, tpoly.permutable, tpoly.point}
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: } {tpoly.band = 1 : i64, tpoly.member = 1 : i64, tpoly.permutable, tpoly.tile = 16 : i64}

module {
  func.func @matvec(%n: index, %A: memref<?x?xf32>, %x: memref<?xf32>, %y: memref<?xf32>) {
    tpoly.scop {
      affine.for %i = 0 to %n {
        %zero = arith.constant 0.000000e+00 : f32
        affine.store %zero, %y[%i] : memref<?xf32>
        affine.for %j = 0 to %n {
          %acc = affine.load %y[%i] : memref<?xf32>
          %a = affine.load %A[%i, %j] : memref<?x?xf32>
          %b = affine.load %x[%j] : memref<?xf32>
          %p = arith.mulf %a, %b : f32
          %s = arith.addf %acc, %p : f32
          affine.store %s, %y[%i] : memref<?xf32>
        }
      }
    }
    return
  }
}
