// tessel-promote-shared's write staging: a store that thread x makes down a column of
// global memory writes a shared box instead, and the block copies the box back by rows
// `where` isl finds that its stores wrote, after a barrier (paper 004 sec. 3, for
// stores). Only where nothing in the kernel touches an element after the store wrote
// it. The staged and optimized modules run on sim as the module does on the host.
// RUN: tessel-opt %s --tessel-detect-scops --tessel-schedule --tessel-tile=min-blocks=1 --tessel-promote-shared 2>/dev/null | FileCheck %s
// RUN: tessel-opt %s --tessel-detect-scops --tessel-schedule --tessel-tile=min-blocks=1 --tessel-promote-shared -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: tessel-run %s --device=sim | FileCheck %s --check-prefix=OUT
// RUN: tessel-opt %s --tessel-optimize -o %t.mlir
// RUN: tessel-run %t.mlir --device=sim | FileCheck %s --check-prefix=OUT
// RUN: tessel-opt %s --tessel-detect-scops --tessel-schedule --tessel-tile=min-blocks=1 --tessel-promote-shared --tessel-pad-banks --tessel-map-to-gpu -o %t.mapped.mlir
// RUN: tessel-run %t.mapped.mlir --device=sim | FileCheck %s --check-prefix=OUT
// RUN: tessel-opt %t.mlir --pass-pipeline="builtin.module(tessel-inline-scops, tessel-lower-shared)" | FileCheck %s --check-prefix=LOWER

// Covariance's last statement: the upper triangle divided, and mirrored below the
// diagonal. Thread x takes j (the load and the first store along rows); the mirror
// `A[j][i]` would store down columns. Its box per 32x32 tile is the transposed tile,
// of which a diagonal tile writes the lower triangle (`d0 - d1 >= 0`), and the last
// tiles the rows before 60 (the copy skips what lies outside the array anyway); isl's
// gist is taken in the box of every tile, so a tile where the store has no instance
// (`s0 < 0`) would copy nothing back.
// CHECK: #[[$SET:set[0-9]*]] = affine_set<(d0, d1)[s0, s1] : (s0 >= 0, d0 - d1 >= 0, -d0 + 59 >= 0)>
// CHECK: #[[$TILES:set[0-9]*]] = affine_set<(d0, d1)[s0, s1] : (s0 >= 0, -s0 + 1 >= 0, s1 >= 0, -s1 + 1 >= 0)>
// CHECK: #[[$HALF:set[0-9]*]] = affine_set<(d0, d1)[s0, s1] : (s0 == 0, s1 >= 0, -s1 + 1 >= 0)>
// CHECK-LABEL: func.func @mirror(
// CHECK: affine.for %[[TI:.*]] = 0 to 2 {
// CHECK-NEXT: affine.for %[[TJ:.*]] = #{{.*}}(%[[TI]]) to 2 {
// CHECK-NEXT: %[[S:.*]] = tgpu.alloc_shared [32, 32] padding [0, 0] : memref<32x32xf64, #gpu.address_space<workgroup>>
// CHECK-NEXT: %[[O0:.*]] = affine.apply #{{.*}}(%[[TI]], %[[TJ]])
// CHECK-NEXT: %[[O1:.*]] = affine.apply #{{.*}}(%[[TI]], %[[TJ]])
// CHECK-NEXT: gpu.barrier
// CHECK: %[[Q:.*]] = arith.divf
// CHECK-NEXT: affine.store %[[Q]], %arg0[%[[I:.*]], %[[J:.*]]] : memref<60x60xf64>
// CHECK-NEXT: affine.store %[[Q]], %[[S]][%[[J]] - %[[O0]], %[[I]] - %[[O1]]] : memref<32x32xf64, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK-NEXT: tgpu.tile_copy %[[S]] to %arg0 offsets [%[[O0]], %[[O1]]] where #[[$SET]][%[[TI]], %[[TJ]]] tile [32, 32] : memref<32x32xf64, #gpu.address_space<workgroup>> to memref<60x60xf64>
func.func @mirror(%A: memref<60x60xf64>, %d: f64) {
  affine.for %i = 0 to 60 {
    affine.for %j = affine_map<(d0) -> (d0)>(%i) to 60 {
      %v = affine.load %A[%i, %j] : memref<60x60xf64>
      %q = arith.divf %v, %d : f64
      affine.store %q, %A[%i, %j] : memref<60x60xf64>
      affine.store %q, %A[%j, %i] : memref<60x60xf64>
    }
  }
  return
}

// A scaled copy stored both ways: thread x on j (the load and C's store), B's store
// down columns is staged; every tile writes its whole box, so the copy's condition
// only bounds the tiles.
// CHECK-LABEL: func.func @both_ways(
// CHECK: %[[S:.*]] = tgpu.alloc_shared [32, 32] padding [0, 0] : memref<32x32xf64, #gpu.address_space<workgroup>>
// CHECK: affine.store %{{.*}}, %[[S]][
// CHECK: gpu.barrier
// CHECK-NEXT: tgpu.tile_copy %[[S]] to %arg1 offsets [%{{.*}}, %{{.*}}] where #[[$TILES]][%{{.*}}, %{{.*}}] tile [32, 32] : memref<32x32xf64, #gpu.address_space<workgroup>> to memref<64x64xf64>
func.func @both_ways(%A: memref<64x64xf64>, %B: memref<64x64xf64>, %C: memref<64x64xf64>) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 64 {
      %v = affine.load %A[%i, %j] : memref<64x64xf64>
      %w = arith.addf %v, %v : f64
      affine.store %v, %C[%i, %j] : memref<64x64xf64>
      affine.store %w, %B[%j, %i] : memref<64x64xf64>
    }
  }
  return
}

// The column B[j][i] is read back by a later statement of the same instance (the
// affine.if ends the first): a value held back in shared memory would not be there
// yet, so B stays in global memory.
// CHECK-LABEL: func.func @read_back(
// CHECK-NOT: tgpu.alloc_shared
// CHECK: return
func.func @read_back(%A: memref<64x64xf64>, %B: memref<64x64xf64>, %C: memref<64x64xf64>) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 64 {
      %v = affine.load %A[%i, %j] : memref<64x64xf64>
      affine.store %v, %B[%j, %i] : memref<64x64xf64>
      affine.if affine_set<(d0) : (d0 - 32 >= 0)>(%i) {
        affine.store %v, %C[%i, %j] : memref<64x64xf64>
      }
      %w = affine.load %B[%j, %i] : memref<64x64xf64>
      %x = arith.addf %w, %v : f64
      affine.store %x, %C[%i, %j] : memref<64x64xf64>
    }
  }
  return
}

// Only the tiles of rows i < 32 store B's columns (a statement of its own under the
// affine.if): the gist in the box of every tile keeps `s0 == 0`, so the tiles of rows
// 32 to 63, which run for C's stores, copy nothing back and leave B's columns 32 to 63
// as they were (the run of the mapped module: sim reports a race without it).
// CHECK-LABEL: func.func @half(
// CHECK: tgpu.tile_copy %{{.*}} to %arg1 offsets [%{{.*}}, %{{.*}}] where #[[$HALF]][%{{.*}}, %{{.*}}] tile [32, 32]
func.func @half(%A: memref<64x64xf64>, %B: memref<64x64xf64>, %C: memref<64x64xf64>) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 64 {
      %v = affine.load %A[%i, %j] : memref<64x64xf64>
      affine.store %v, %C[%i, %j] : memref<64x64xf64>
      affine.if affine_set<(d0) : (31 - d0 >= 0)>(%i) {
        affine.store %v, %B[%j, %i] : memref<64x64xf64>
      }
    }
  }
  return
}

// The lowered copy back: each element stored only where the condition holds.
// LOWER-LABEL: func.func @mirror(
// LOWER: gpu.barrier
// LOWER: arith.cmpi sge
// LOWER: scf.if
// LOWER: memref.store %{{.*}}, %{{.*}} : memref<60x60xf64>

// REMARK: promote-shared-stores.mlir:{{.*}}: remark: staged in shared memory: a 32x32 box of f64 per tile (8192 bytes), stored uncoalesced by thread x, copied back by rows
// REMARK: promote-shared-stores.mlir:{{.*}}: remark: staged in shared memory: a 32x32 box of f64 per tile (8192 bytes), stored uncoalesced by thread x, copied back by rows
// REMARK: promote-shared-stores.mlir:{{.*}}: remark: staged in shared memory: a 32x32 box of f64 per tile (8192 bytes), stored uncoalesced by thread x, copied back by rows
// REMARK-NOT: staged

// OUT: 63010
// OUT-NEXT: 287122
// OUT-NEXT: 286522
// OUT-NEXT: 143632
func.func @main() {
  %A = memref.alloc() : memref<60x60xf64>
  %P = memref.alloc() : memref<64x64xf64>
  %B = memref.alloc() : memref<64x64xf64>
  %C = memref.alloc() : memref<64x64xf64>
  %d = arith.constant 2.0 : f64
  func.call @fill(%A) : (memref<60x60xf64>) -> ()
  func.call @mirror(%A, %d) : (memref<60x60xf64>, f64) -> ()
  %a = memref.cast %A : memref<60x60xf64> to memref<?x?xf64>
  func.call @check(%a) : (memref<?x?xf64>) -> ()
  %p = memref.cast %P : memref<64x64xf64> to memref<?x?xf64>
  func.call @fill64(%P) : (memref<64x64xf64>) -> ()
  func.call @both_ways(%P, %B, %C) : (memref<64x64xf64>, memref<64x64xf64>, memref<64x64xf64>) -> ()
  %b = memref.cast %B : memref<64x64xf64> to memref<?x?xf64>
  func.call @check(%b) : (memref<?x?xf64>) -> ()
  func.call @read_back(%P, %B, %C) : (memref<64x64xf64>, memref<64x64xf64>, memref<64x64xf64>) -> ()
  %c = memref.cast %C : memref<64x64xf64> to memref<?x?xf64>
  func.call @check(%c) : (memref<?x?xf64>) -> ()
  func.call @fill64(%B) : (memref<64x64xf64>) -> ()
  func.call @half(%P, %B, %C) : (memref<64x64xf64>, memref<64x64xf64>, memref<64x64xf64>) -> ()
  func.call @check(%b) : (memref<?x?xf64>) -> ()
  return
}
// A[i][j] = (7i + 3j) mod 11.
func.func @fill(%A: memref<60x60xf64>) {
  %a = memref.cast %A : memref<60x60xf64> to memref<?x?xf64>
  func.call @fill_any(%a) : (memref<?x?xf64>) -> ()
  return
}
func.func @fill64(%A: memref<64x64xf64>) {
  %a = memref.cast %A : memref<64x64xf64> to memref<?x?xf64>
  func.call @fill_any(%a) : (memref<?x?xf64>) -> ()
  return
}
func.func @fill_any(%A: memref<?x?xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c7 = arith.constant 7 : index
  %c11 = arith.constant 11 : index
  %n = memref.dim %A, %c0 : memref<?x?xf64>
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %n step %c1 {
      %a = arith.muli %i, %c7 : index
      %b = arith.muli %j, %c3 : index
      %s = arith.addi %a, %b : index
      %m = arith.remui %s, %c11 : index
      %w = arith.index_cast %m : index to i32
      %f = arith.sitofp %w : i32 to f64
      memref.store %f, %A[%i, %j] : memref<?x?xf64>
    }
  }
  return
}
// Prints the sum of A[i][j] * ((i + 2j) mod 13 + 1): an element out of place changes it.
func.func @check(%A: memref<?x?xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c13 = arith.constant 13 : index
  %n = memref.dim %A, %c0 : memref<?x?xf64>
  %z = arith.constant 0.0 : f64
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %z) -> f64 {
    %q = scf.for %j = %c0 to %n step %c1 iter_args(%b = %a) -> f64 {
      %v = memref.load %A[%i, %j] : memref<?x?xf64>
      %t = arith.muli %j, %c2 : index
      %u = arith.addi %i, %t : index
      %m = arith.remui %u, %c13 : index
      %m1 = arith.addi %m, %c1 : index
      %w = arith.index_cast %m1 : index to i32
      %f = arith.sitofp %w : i32 to f64
      %p = arith.mulf %v, %f : f64
      %n2 = arith.addf %b, %p : f64
      scf.yield %n2 : f64
    }
    scf.yield %q : f64
  }
  func.call @tessel_print_f64(%r) : (f64) -> ()
  return
}
func.func private @tessel_print_f64(f64)
