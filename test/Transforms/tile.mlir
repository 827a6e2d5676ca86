// RUN: tessel-opt %s --split-input-file --tessel-tile=sizes=32,16 2>/dev/null | FileCheck %s
// RUN: tessel-opt %s --split-input-file --tessel-tile=sizes=32,16 2>&1 >/dev/null | FileCheck %s --check-prefix=DIAG
// RUN: tessel-opt %s --split-input-file --tessel-tile 2>/dev/null | FileCheck %s --check-prefix=DEFAULT
// RUN: not tessel-opt %s --tessel-tile=sizes=8,0 2>&1 | FileCheck %s --check-prefix=BADOPT
// BADOPT: error: 'tessel-tile' option sizes=8,0: expected positive integers separated by commas

// A rectangular band of two members: tile loops over 4 x 7 tiles outside, point loops
// inside, the last tile of each member cut by a min bound. Both keep the members'
// attributes; the sizes are recorded on the scop.
// CHECK-DAG: #[[$LB32:.*]] = affine_map<(d0) -> (d0 * 32)>
// CHECK-DAG: #[[$UB:.*]] = affine_map<(d0) -> (100, d0 * 32 + 32)>
// CHECK-DAG: #[[$LB16:.*]] = affine_map<(d0) -> (d0 * 16)>
// CHECK-LABEL: func.func @rect(
// CHECK: tpoly.scop tile_sizes [32, 16] {
// CHECK-NEXT: affine.for %[[TI:.*]] = 0 to 4 {
// CHECK-NEXT: affine.for %[[TJ:.*]] = 0 to 7 {
// CHECK-NEXT: affine.for %[[I:.*]] = #[[$LB32]](%[[TI]]) to min #[[$UB]](%[[TI]]) {
// CHECK-NEXT: affine.for %[[J:.*]] = #[[$LB16]](%[[TJ]]) to min #{{.*}}(%[[TJ]]) {
// CHECK-NEXT: affine.store %{{.*}}, %{{.*}}[%[[I]], %[[J]]]
// CHECK-NEXT: } {tpoly.band = 0 : i64, tpoly.member = 1 : i64, tpoly.permutable, tpoly.point}
// CHECK-NEXT: } {tpoly.band = 0 : i64, tpoly.coincident, tpoly.member = 0 : i64, tpoly.permutable, tpoly.point}
// CHECK-NEXT: } {tpoly.band = 0 : i64, tpoly.member = 1 : i64, tpoly.permutable, tpoly.tile = 16 : i64}
// CHECK-NEXT: } {tpoly.band = 0 : i64, tpoly.coincident, tpoly.member = 0 : i64, tpoly.permutable, tpoly.tile = 32 : i64}
// Without sizes: 64 for i, the one coincident member (tessel-map-to-gpu maps its
// points to a block's threads: 256 of them, halved down to 64 while the grid would
// have fewer than 64 blocks, here 100 rows), 16 for j (run in sequence by each thread:
// a row reduction's staged steps of 16 columns).
// DEFAULT-LABEL: func.func @rect(
// DEFAULT: tpoly.scop tile_sizes [64, 16] {
func.func @rect(%A: memref<100x100xf32>, %x: f32) {
  tpoly.scop {
    affine.for %i = 0 to 100 {
      affine.for %j = 0 to 100 {
        affine.store %x, %A[%i, %j] : memref<100x100xf32>
      } {tpoly.band = 0 : i64, tpoly.member = 1 : i64, tpoly.permutable}
    } {tpoly.band = 0 : i64, tpoly.coincident, tpoly.member = 0 : i64, tpoly.permutable}
  }
  return
}

// -----

// The one member mapped to threads over many rows: tiles of 256 where that leaves at
// least 64 blocks (20000 rows: 79), 128 where halving does (10000 rows: 40 tiles of 256,
// 79 of 128), 64 at most (4000 rows: 63). A parametric bound takes the extent of the
// arrays the counter indexes (y[i] and A[i][j] of 4096 rows: 64 tiles of 64).
// DEFAULT-LABEL: func.func @rows(
// DEFAULT: tpoly.scop tile_sizes [256] {
// DEFAULT: tpoly.scop tile_sizes [128] {
// DEFAULT: tpoly.scop tile_sizes [64] {
// DEFAULT: tpoly.scop tile_sizes [64, 16] {
func.func @rows(%A: memref<20000xf32>, %M: memref<4096x64xf32>, %y: memref<4096xf32>, %n: index) {
  tpoly.scop {
    affine.for %i = 0 to 20000 {
      %v = affine.load %A[%i] : memref<20000xf32>
      affine.store %v, %A[%i] : memref<20000xf32>
    } {tpoly.band = 0 : i64, tpoly.coincident, tpoly.member = 0 : i64, tpoly.permutable}
  }
  tpoly.scop {
    affine.for %i = 0 to 10000 {
      %v = affine.load %A[%i] : memref<20000xf32>
      affine.store %v, %A[%i] : memref<20000xf32>
    } {tpoly.band = 0 : i64, tpoly.coincident, tpoly.member = 0 : i64, tpoly.permutable}
  }
  tpoly.scop {
    affine.for %i = 0 to 4000 {
      %v = affine.load %A[%i] : memref<20000xf32>
      affine.store %v, %A[%i] : memref<20000xf32>
    } {tpoly.band = 0 : i64, tpoly.coincident, tpoly.member = 0 : i64, tpoly.permutable}
  }
  tpoly.scop {
    affine.for %i = 0 to %n {
      affine.for %j = 0 to 64 {
        %a = affine.load %M[%i, %j] : memref<4096x64xf32>
        %b = affine.load %y[%i] : memref<4096xf32>
        %c = arith.addf %a, %b : f32
        affine.store %c, %y[%i] : memref<4096xf32>
      } {tpoly.band = 0 : i64, tpoly.member = 1 : i64, tpoly.permutable}
    } {tpoly.band = 0 : i64, tpoly.coincident, tpoly.member = 0 : i64, tpoly.permutable}
  }
  return
}

// -----

// Two or three members mapped to threads over a small grid: the tiles of the outermost
// thread dimension are halved while the grid would have fewer than 64 blocks (the
// min-blocks option): 120x120 points take 8x32 tiles (15 x 4 = 60 blocks; 32x32 made
// 16), 512x512 keep 32x32 (256 blocks); of three members (z, y, x = i, j, k), z's tile
// of 4 goes down to 2 first (12 x 2 x 1 = 24 blocks), then y's of 8 down to 4 (48: both
// at their least). A
// triangular band keeps its tiles (different sizes would bound its tile loops with
// floordiv), and with min-blocks=1 every band keeps the rule's full sizes.
// RUN: tessel-opt %s --split-input-file --tessel-tile=min-blocks=1 2>/dev/null | FileCheck %s --check-prefix=FULL
// RUN: not tessel-opt %s --tessel-tile=min-blocks=0 2>&1 | FileCheck %s --check-prefix=BADBLOCKS
// BADBLOCKS: error: 'tessel-tile' option min-blocks=0: expected a positive integer
// DEFAULT-LABEL: func.func @small_grid(
// DEFAULT: tpoly.scop tile_sizes [8, 32] {
// DEFAULT: tpoly.scop tile_sizes [32, 32] {
// DEFAULT: tpoly.scop tile_sizes [2, 4, 32] {
// DEFAULT: tpoly.scop tile_sizes [32, 32] {
// FULL-LABEL: func.func @small_grid(
// FULL: tpoly.scop tile_sizes [32, 32] {
// FULL: tpoly.scop tile_sizes [32, 32] {
// FULL: tpoly.scop tile_sizes [4, 8, 32] {
// FULL: tpoly.scop tile_sizes [32, 32] {
func.func @small_grid(%A: memref<120x120xf32>, %B: memref<512x512xf32>, %C: memref<24x16x32xf32>) {
  tpoly.scop {
    affine.for %i = 0 to 120 {
      affine.for %j = 0 to 120 {
        %v = affine.load %A[%i, %j] : memref<120x120xf32>
        affine.store %v, %A[%i, %j] : memref<120x120xf32>
      } {tpoly.band = 0 : i64, tpoly.coincident, tpoly.member = 1 : i64, tpoly.permutable}
    } {tpoly.band = 0 : i64, tpoly.coincident, tpoly.member = 0 : i64, tpoly.permutable}
  }
  tpoly.scop {
    affine.for %i = 0 to 512 {
      affine.for %j = 0 to 512 {
        %v = affine.load %B[%i, %j] : memref<512x512xf32>
        affine.store %v, %B[%i, %j] : memref<512x512xf32>
      } {tpoly.band = 0 : i64, tpoly.coincident, tpoly.member = 1 : i64, tpoly.permutable}
    } {tpoly.band = 0 : i64, tpoly.coincident, tpoly.member = 0 : i64, tpoly.permutable}
  }
  tpoly.scop {
    affine.for %i = 0 to 24 {
      affine.for %j = 0 to 16 {
        affine.for %k = 0 to 32 {
          %v = affine.load %C[%i, %j, %k] : memref<24x16x32xf32>
          affine.store %v, %C[%i, %j, %k] : memref<24x16x32xf32>
        } {tpoly.band = 0 : i64, tpoly.coincident, tpoly.member = 2 : i64, tpoly.permutable}
      } {tpoly.band = 0 : i64, tpoly.coincident, tpoly.member = 1 : i64, tpoly.permutable}
    } {tpoly.band = 0 : i64, tpoly.coincident, tpoly.member = 0 : i64, tpoly.permutable}
  }
  tpoly.scop {
    affine.for %i = 0 to 120 {
      affine.for %j = 0 to affine_map<(d0) -> (d0 + 1)>(%i) {
        %v = affine.load %A[%i, %j] : memref<120x120xf32>
        affine.store %v, %A[%i, %j] : memref<120x120xf32>
      } {tpoly.band = 0 : i64, tpoly.coincident, tpoly.member = 1 : i64, tpoly.permutable}
    } {tpoly.band = 0 : i64, tpoly.coincident, tpoly.member = 0 : i64, tpoly.permutable}
  }
  return
}

// -----

// Two members mapped to threads beside one run in sequence (a matrix product's i, j
// and k): thread x's tile (j, which its accesses to B and C run along) widens from 32
// to 128 while the grid keeps 256 blocks (4 x 64, whatever min-blocks says: 1024x1024
// points), else to 64 while it keeps 128 (512x512), else stays 32 (256x256: 64
// blocks); each thread then takes 4 or 2 columns of its tile, which tessel-ilp-unroll
// runs side by side.
// DEFAULT-LABEL: func.func @register_rows(
// DEFAULT: tpoly.scop tile_sizes [32, 128, 32] {
// DEFAULT: tpoly.scop tile_sizes [32, 64, 32] {
// DEFAULT: tpoly.scop tile_sizes [32, 32, 32] {
// A triangular band (syrk's j <= i) keeps its tiles square, as small grids do.
// DEFAULT: tpoly.scop tile_sizes [32, 32, 32] {
func.func @register_rows(%A: memref<1024x1024xf32>, %B: memref<512x512xf32>, %C: memref<256x256xf32>) {
  tpoly.scop {
    affine.for %i = 0 to 1024 {
      affine.for %j = 0 to 1024 {
        affine.for %k = 0 to 1024 {
          %a = affine.load %A[%i, %k] : memref<1024x1024xf32>
          %b = affine.load %A[%k, %j] : memref<1024x1024xf32>
          %p = arith.mulf %a, %b : f32
          affine.store %p, %A[%i, %j] : memref<1024x1024xf32>
        } {tpoly.band = 0 : i64, tpoly.member = 2 : i64, tpoly.permutable}
      } {tpoly.band = 0 : i64, tpoly.coincident, tpoly.member = 1 : i64, tpoly.permutable}
    } {tpoly.band = 0 : i64, tpoly.coincident, tpoly.member = 0 : i64, tpoly.permutable}
  }
  tpoly.scop {
    affine.for %i = 0 to 512 {
      affine.for %j = 0 to 512 {
        affine.for %k = 0 to 512 {
          %a = affine.load %B[%i, %k] : memref<512x512xf32>
          %b = affine.load %B[%k, %j] : memref<512x512xf32>
          %p = arith.mulf %a, %b : f32
          affine.store %p, %B[%i, %j] : memref<512x512xf32>
        } {tpoly.band = 0 : i64, tpoly.member = 2 : i64, tpoly.permutable}
      } {tpoly.band = 0 : i64, tpoly.coincident, tpoly.member = 1 : i64, tpoly.permutable}
    } {tpoly.band = 0 : i64, tpoly.coincident, tpoly.member = 0 : i64, tpoly.permutable}
  }
  tpoly.scop {
    affine.for %i = 0 to 256 {
      affine.for %j = 0 to 256 {
        affine.for %k = 0 to 256 {
          %a = affine.load %C[%i, %k] : memref<256x256xf32>
          %b = affine.load %C[%k, %j] : memref<256x256xf32>
          %p = arith.mulf %a, %b : f32
          affine.store %p, %C[%i, %j] : memref<256x256xf32>
        } {tpoly.band = 0 : i64, tpoly.member = 2 : i64, tpoly.permutable}
      } {tpoly.band = 0 : i64, tpoly.coincident, tpoly.member = 1 : i64, tpoly.permutable}
    } {tpoly.band = 0 : i64, tpoly.coincident, tpoly.member = 0 : i64, tpoly.permutable}
  }
  tpoly.scop {
    affine.for %i = 0 to 1024 {
      affine.for %j = 0 to affine_map<(d0) -> (d0 + 1)>(%i) {
        affine.for %k = 0 to 1024 {
          %a = affine.load %A[%i, %k] : memref<1024x1024xf32>
          %b = affine.load %A[%j, %k] : memref<1024x1024xf32>
          %p = arith.mulf %a, %b : f32
          affine.store %p, %A[%i, %j] : memref<1024x1024xf32>
        } {tpoly.band = 0 : i64, tpoly.member = 2 : i64, tpoly.permutable}
      } {tpoly.band = 0 : i64, tpoly.coincident, tpoly.member = 1 : i64, tpoly.permutable}
    } {tpoly.band = 0 : i64, tpoly.coincident, tpoly.member = 0 : i64, tpoly.permutable}
  }
  return
}

// -----

// A triangular band with a parameter: isl scans the tiles that hold points (the
// tile loop of j starts at the tile of i) and guards each point loop by the
// triangle and the tile. The scop's own tile_sizes are kept when no size is given.
// CHECK-LABEL: func.func @tri(
// CHECK: affine.for %[[TI:.*]] = 0 to #{{.*}}()[%[[N:.*]]] {
// CHECK-NEXT: affine.for %[[TJ:.*]] = #{{.*}}(%[[TI]]) to #{{.*}}()[%[[N]]] {
// CHECK-NEXT: affine.for %[[I:.*]] = #{{.*}}(%[[TI]]) to min #{{.*}}(%[[TI]], %[[TJ]])[%[[N]]] {
// CHECK-NEXT: affine.for %[[J:.*]] = max #{{.*}}(%[[TJ]], %[[I]]) to min #{{.*}}(%[[TJ]])[%[[N]]] {
// CHECK-NEXT: affine.load %{{.*}}[%[[J]], %[[I]]]
// DEFAULT: #[[$M8:.*]] = affine_map<(d0) -> (d0 * 8)>
// DEFAULT-LABEL: func.func @tri(
// DEFAULT: tpoly.scop tile_sizes [8, 4] {
// DEFAULT-NEXT: affine.for
// DEFAULT-NEXT: affine.for
// DEFAULT-NEXT: affine.for %{{.*}} = #[[$M8]](
func.func @tri(%A: memref<?x?xf32>, %n: index) {
  tpoly.scop tile_sizes [8, 4] {
    affine.for %i = 0 to %n {
      affine.for %j = affine_map<(d0) -> (d0)>(%i) to %n {
        %v = affine.load %A[%j, %i] : memref<?x?xf32>
        affine.store %v, %A[%i, %j] : memref<?x?xf32>
      } {tpoly.band = 0 : i64, tpoly.member = 1 : i64, tpoly.permutable}
    } {tpoly.band = 0 : i64, tpoly.member = 0 : i64, tpoly.permutable}
  }
  return
}

// -----

// A band that is not permutable is not tiled; a band whose second member is not the
// only operation of the first is tiled in its first member only, with a remark.
// CHECK-LABEL: func.func @partial(
// CHECK: affine.for %{{.*}} = 0 to 10 {
// CHECK-NEXT: affine.for %{{.*}} = 1 to 100 {
// CHECK: } {tpoly.band = 0 : i64, tpoly.member = 0 : i64}
// CHECK: affine.for %[[T:.*]] = 0 to 4 {
// CHECK-NEXT: affine.for %[[I:.*]] = #{{.*}}(%[[T]]) to min #{{.*}}(%[[T]]) {
// CHECK-NEXT: affine.store
// CHECK-NEXT: affine.for %{{.*}} = 0 to 100 {
// CHECK: } {tpoly.band = 1 : i64, tpoly.member = 1 : i64, tpoly.permutable}
// CHECK: } {tpoly.band = 1 : i64, tpoly.member = 0 : i64, tpoly.permutable, tpoly.point}
// CHECK-NEXT: } {tpoly.band = 1 : i64, tpoly.member = 0 : i64, tpoly.permutable, tpoly.tile = 32 : i64}
// DIAG: tile.mlir:[[# @LINE + 9]]:5: remark: band tiled in its first member only
func.func @partial(%A: memref<100x100xf32>, %B: memref<100xf32>, %x: f32) {
  tpoly.scop {
    affine.for %t = 0 to 10 {
      affine.for %i = 1 to 100 {
        %v = affine.load %B[%i - 1] : memref<100xf32>
        affine.store %v, %B[%i] : memref<100xf32>
      } {tpoly.band = 0 : i64, tpoly.member = 1 : i64}
    } {tpoly.band = 0 : i64, tpoly.member = 0 : i64}
    affine.for %i = 0 to 100 {
      affine.store %x, %B[%i] : memref<100xf32>
      affine.for %j = 0 to 100 {
        affine.store %x, %A[%i, %j] : memref<100x100xf32>
      } {tpoly.band = 1 : i64, tpoly.member = 1 : i64, tpoly.permutable}
    } {tpoly.band = 1 : i64, tpoly.member = 0 : i64, tpoly.permutable}
  }
  return
}
