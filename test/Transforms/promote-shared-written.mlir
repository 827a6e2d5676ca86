// tessel-promote-shared on arrays the kernel writes: a load is staged through shared
// memory where isl finds that no write of the kernel reaches it (no instance writes an
// element before an instance reads it), so the copy taken at the start of the tile holds
// what the load would read. Thread x goes to the loop that coalesces the stores (a tie
// of paper 003's priorities goes to the stores), and the load it leaves uncoalesced is
// the one staged. The promoted and optimized modules run on sim as the module does.
// RUN: tessel-opt %s --tessel-detect-scops --tessel-schedule --tessel-tile=min-blocks=1 --tessel-promote-shared 2>/dev/null | FileCheck %s
// RUN: tessel-opt %s --tessel-detect-scops --tessel-schedule --tessel-tile=min-blocks=1 --tessel-promote-shared -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: tessel-run %s --device=sim | FileCheck %s --check-prefix=OUT
// RUN: tessel-opt %s --tessel-optimize -o %t.mlir
// RUN: tessel-run %t.mlir --device=sim | FileCheck %s --check-prefix=OUT

// A symmetric copy over a triangle, diagonal included (covariance's and correlation's
// `cov[j][i] = cov[i][j]`): thread x on i stores A's rows coalesced, and the tile reads
// A[i][j] down its columns, from a copy. The diagonal instance reads its element before
// writing it; the lower triangle it writes is read by no one.
// CHECK-LABEL: func.func @mirror(
// CHECK: %[[S:.*]] = tgpu.alloc_shared [32, 32] padding [0, 0] : memref<32x32xf32, #gpu.address_space<workgroup>>
// CHECK: tgpu.tile_copy %arg0 to %[[S]]
// CHECK-NEXT: gpu.barrier
// CHECK: %[[V:.*]] = affine.load %[[S]][
// CHECK-NEXT: affine.store %[[V]], %arg0[%[[J:.*]], %[[I:.*]]] : memref<64x64xf32>
func.func @mirror(%A: memref<64x64xf32>) {
  affine.for %i = 0 to 64 {
    affine.for %j = affine_map<(d0) -> (d0)>(%i) to 64 {
      %v = affine.load %A[%i, %j] : memref<64x64xf32>
      affine.store %v, %A[%j, %i] : memref<64x64xf32>
    }
  }
  return
}

// Each instance reads A[j][i] and then overwrites it: the copy holds the value read.
// CHECK-LABEL: func.func @read_first(
// CHECK: %[[S:.*]] = tgpu.alloc_shared [32, 32]
// CHECK: tgpu.tile_copy %arg0 to %[[S]]
// CHECK: %[[V:.*]] = affine.load %[[S]][
// CHECK-NEXT: affine.store %{{.*}}, %arg0[
func.func @read_first(%A: memref<64x64xf32>, %B: memref<64x64xf32>, %C: memref<64x64xf32>) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 64 {
      %c = arith.constant 2.0 : f32
      %v = affine.load %A[%j, %i] : memref<64x64xf32>
      affine.store %c, %A[%j, %i] : memref<64x64xf32>
      affine.store %v, %B[%i, %j] : memref<64x64xf32>
      affine.store %v, %C[%i, %j] : memref<64x64xf32>
    }
  }
  return
}

// The same instance writes A[j][i] and then reads it back: a copy taken before the
// write would not hold it, so A stays in global memory.
// CHECK-LABEL: func.func @write_first(
// CHECK-NOT: tgpu.alloc_shared
// CHECK: affine.store %{{.*}}, %arg0[
// CHECK-NEXT: affine.load %arg0[
func.func @write_first(%A: memref<64x64xf32>, %B: memref<64x64xf32>, %C: memref<64x64xf32>) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 64 {
      %c = arith.constant 2.0 : f32
      affine.store %c, %A[%j, %i] : memref<64x64xf32>
      %v = affine.load %A[%j, %i] : memref<64x64xf32>
      affine.store %v, %B[%i, %j] : memref<64x64xf32>
      affine.store %v, %C[%i, %j] : memref<64x64xf32>
    }
  }
  return
}

// The write and the read are two statements (the affine.if between them ends the
// first), so isl's order of the instances, not the order in one statement, shows the
// write before the read: A stays in global memory.
// CHECK-LABEL: func.func @write_before(
// CHECK-NOT: tgpu.alloc_shared
// CHECK: return
func.func @write_before(%A: memref<64x64xf32>, %B: memref<64x64xf32>, %C: memref<64x64xf32>) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 64 {
      %c = arith.constant 2.0 : f32
      affine.store %c, %A[%j, %i] : memref<64x64xf32>
      affine.if affine_set<(d0) : (d0 - 32 >= 0)>(%i) {
        affine.store %c, %C[%i, %j] : memref<64x64xf32>
      }
      %v = affine.load %A[%j, %i] : memref<64x64xf32>
      affine.store %v, %B[%i, %j] : memref<64x64xf32>
      affine.store %v, %C[%i, %j] : memref<64x64xf32>
    }
  }
  return
}

// A transpose written with the store down a column (`B[j][i] = A[i][j]`): paper 003's
// priorities tie (one access coalesced on each loop), and the tie goes to the store's
// loop, i; the load that leaves uncoalesced is staged, as for `B[i][j] = A[j][i]`.
// CHECK-LABEL: func.func @transpose_stored(
// CHECK: %[[S:.*]] = tgpu.alloc_shared [32, 32]
// CHECK: tgpu.tile_copy %arg0 to %[[S]]
// CHECK: %[[V:.*]] = affine.load %[[S]][
// CHECK-NEXT: affine.store %[[V]], %arg1[
func.func @transpose_stored(%A: memref<64x64xf32>, %B: memref<64x64xf32>) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 64 {
      %v = affine.load %A[%i, %j] : memref<64x64xf32>
      affine.store %v, %B[%j, %i] : memref<64x64xf32>
    }
  }
  return
}

// REMARK: promote-shared-written.mlir:26:12: remark: promoted to shared memory: a 32x32 box of f32 per tile (4096 bytes), read uncoalesced by thread x, copied by rows
// REMARK: promote-shared-written.mlir:{{.*}}: remark: promoted to shared memory: a 32x32 box of f32 per tile (4096 bytes), read uncoalesced by thread x, copied by rows
// REMARK: promote-shared-written.mlir:{{.*}}: remark: promoted to shared memory: a 32x32 box of f32 per tile (4096 bytes), read uncoalesced by thread x, copied by rows
// REMARK-NOT: promoted

// OUT: 143563
// OUT-NEXT: 57352
// OUT-NEXT: 143561
// OUT-NEXT: 57352
// OUT-NEXT: 57352
// OUT-NEXT: 143561
func.func @main() {
  %A = memref.alloc() : memref<64x64xf32>
  %B = memref.alloc() : memref<64x64xf32>
  %C = memref.alloc() : memref<64x64xf32>
  func.call @fill(%A) : (memref<64x64xf32>) -> ()
  func.call @mirror(%A) : (memref<64x64xf32>) -> ()
  func.call @check(%A) : (memref<64x64xf32>) -> ()
  func.call @fill(%A) : (memref<64x64xf32>) -> ()
  func.call @read_first(%A, %B, %C) : (memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>) -> ()
  func.call @check(%A) : (memref<64x64xf32>) -> ()
  func.call @check(%B) : (memref<64x64xf32>) -> ()
  func.call @fill(%A) : (memref<64x64xf32>) -> ()
  func.call @write_first(%A, %B, %C) : (memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>) -> ()
  func.call @check(%B) : (memref<64x64xf32>) -> ()
  func.call @fill(%A) : (memref<64x64xf32>) -> ()
  func.call @write_before(%A, %B, %C) : (memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>) -> ()
  func.call @check(%B) : (memref<64x64xf32>) -> ()
  func.call @fill(%A) : (memref<64x64xf32>) -> ()
  func.call @transpose_stored(%A, %B) : (memref<64x64xf32>, memref<64x64xf32>) -> ()
  func.call @check(%B) : (memref<64x64xf32>) -> ()
  return
}
// A[i][j] = (7i + 3j) mod 11.
func.func @fill(%A: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c7 = arith.constant 7 : index
  %c11 = arith.constant 11 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c64 step %c1 {
    scf.for %j = %c0 to %c64 step %c1 {
      %a = arith.muli %i, %c7 : index
      %b = arith.muli %j, %c3 : index
      %s = arith.addi %a, %b : index
      %m = arith.remui %s, %c11 : index
      %w = arith.index_cast %m : index to i32
      %f = arith.sitofp %w : i32 to f32
      memref.store %f, %A[%i, %j] : memref<64x64xf32>
    }
  }
  return
}
// Prints the sum of A[i][j] * ((i + 2j) mod 13 + 1): an element out of place changes it.
func.func @check(%A: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c13 = arith.constant 13 : index
  %c64 = arith.constant 64 : index
  %z = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %c64 step %c1 iter_args(%a = %z) -> f32 {
    %q = scf.for %j = %c0 to %c64 step %c1 iter_args(%b = %a) -> f32 {
      %v = memref.load %A[%i, %j] : memref<64x64xf32>
      %t = arith.muli %j, %c2 : index
      %u = arith.addi %i, %t : index
      %m = arith.remui %u, %c13 : index
      %m1 = arith.addi %m, %c1 : index
      %w = arith.index_cast %m1 : index to i32
      %f = arith.sitofp %w : i32 to f32
      %p = arith.mulf %v, %f : f32
      %n = arith.addf %b, %p : f32
      scf.yield %n : f32
    }
    scf.yield %q : f32
  }
  func.call @tessel_print_f32(%r) : (f32) -> ()
  return
}
func.func private @tessel_print_f32(f32)
