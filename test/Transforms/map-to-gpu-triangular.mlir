// tessel-map-to-gpu on a triangular tile space (the tile loop of j, j <= i, has bounds
// that use the tile loop of i): both tile loops become grid dimensions, the grid a box
// around the tiles (j's tiles 0 .. ceil(n / 32)), each block running only where its
// tile is within the loop's own bounds (a guard on the block ids, the same for all of
// its threads); thread x on j, the contiguous subscript of C, so that stores are
// coalesced. Before, the j tile loop stayed a loop in each block of i and thread x took
// i: a warp's 32 stores fell in 32 rows.
// RUN: tessel-opt %s --tessel-schedule --tessel-tile --tessel-map-to-gpu | FileCheck %s
// RUN: tessel-run %s --device=sim | FileCheck %s --check-prefix=OUT
// RUN: tessel-opt %s --tessel-optimize -o %t.mlir
// RUN: tessel-run %t.mlir --device=sim --profile=%t.json | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --input-file=%t.json --check-prefix=PROFILE

// CHECK-LABEL: func.func @lower(
// The box: as many j tiles as i tiles (the last i tile's).
// CHECK: gpu.launch blocks(%[[BX:.*]], %[[BY:.*]], %{{.*}}) in (%{{.*}} = %[[GX:.*]], %{{.*}} = %[[GY:.*]], %{{.*}} = %{{.*}}) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c32
// CHECK: scf.if
// The block's j tile against its own bounds, 0 <= tj < ti + 1.
// CHECK-NEXT: %[[UB:.*]] = arith.addi %[[BY]], %c1 : index
// CHECK-NEXT: %[[GE:.*]] = arith.cmpi sge, %[[BX]], %c0 : index
// CHECK-NEXT: %[[LT:.*]] = arith.cmpi slt, %[[BX]], %[[UB]] : index
// CHECK-NEXT: %[[IN:.*]] = arith.andi %[[GE]], %[[LT]] : i1
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<?x?xf32>
func.func @lower(%n: index, %C: memref<?x?xf32>) {
  tpoly.scop {
    affine.for %i = 0 to %n {
      affine.for %j = 0 to affine_map<(d0) -> (d0 + 1)>(%i) {
        %v = affine.load %C[%i, %j] : memref<?x?xf32>
        %two = arith.constant 2.0 : f32
        %w = arith.mulf %v, %two : f32
        affine.store %w, %C[%i, %j] : memref<?x?xf32>
      }
    }
  }
  return
}

// C[i][j] = i + j / 8 doubled on and below the diagonal: row 99's sum, C[99][99],
// C[5][6] (above: untouched) and C[70][3].
// OUT: 21037.5
// OUT-NEXT: 222.75
// OUT-NEXT: 5.75
// OUT-NEXT: 140.75
// A grid of 4x4 blocks (10 of them in the triangle); each request stores up to 32
// consecutive floats of a row, 3.6 sectors on average (4 for a whole row of the tile).
// PROFILE: "kernel": "lower_k0", {{.*}} "grid": [4, 4, 1], "block": [32, 32, 1], {{.*}} "global_store_requests": 208, "global_store_sectors": 754,
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c70 = arith.constant 70 : index
  %c99 = arith.constant 99 : index
  %n = arith.constant 100 : index
  %C = memref.alloc(%n, %n) : memref<?x?xf32>
  %eighth = arith.constant 0.125 : f32
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %n step %c1 {
      %ii = arith.index_cast %i : index to i32
      %jj = arith.index_cast %j : index to i32
      %fi = arith.sitofp %ii : i32 to f32
      %fj = arith.sitofp %jj : i32 to f32
      %q = arith.mulf %fj, %eighth : f32
      %v = arith.addf %fi, %q : f32
      memref.store %v, %C[%i, %j] : memref<?x?xf32>
    }
  }
  func.call @lower(%n, %C) : (index, memref<?x?xf32>) -> ()
  %z = arith.constant 0.0 : f32
  %sum = scf.for %j = %c0 to %n step %c1 iter_args(%a = %z) -> f32 {
    %v = memref.load %C[%c99, %j] : memref<?x?xf32>
    %s = arith.addf %a, %v : f32
    scf.yield %s : f32
  }
  func.call @tessel_print_f32(%sum) : (f32) -> ()
  %d = memref.load %C[%c99, %c99] : memref<?x?xf32>
  func.call @tessel_print_f32(%d) : (f32) -> ()
  %u = memref.load %C[%c5, %c6] : memref<?x?xf32>
  func.call @tessel_print_f32(%u) : (f32) -> ()
  %l = memref.load %C[%c70, %c3] : memref<?x?xf32>
  func.call @tessel_print_f32(%l) : (f32) -> ()
  return
}
func.func private @tessel_print_f32(f32)
