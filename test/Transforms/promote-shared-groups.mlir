// RUN: tessel-opt %s --tessel-schedule --tessel-tile --tessel-promote-shared 2>%t.remarks | FileCheck %s
// RUN: FileCheck %s --input-file=%t.remarks --check-prefix=REMARK
// RUN: tessel-opt %s --tessel-schedule --tessel-tile --tessel-promote-shared=min-reuse=2.5 2>&1 >/dev/null | FileCheck %s --check-prefix=REUSE
// RUN: tessel-run %s --device=sim | FileCheck %s --check-prefix=OUT
// RUN: tessel-opt %s --tessel-schedule --tessel-tile --tessel-promote-shared --tessel-map-to-gpu -o %t.mlir 2>/dev/null
// RUN: tessel-run %t.mlir --device=sim | FileCheck %s --check-prefix=OUT
// Reference groups (paper 001 sec. 7.2) of one array: C[i][j] += A[i][k] * A[j][k]
// (syrk's product, on the whole square). The band (i, j, k) tiles 32x32x32, thread x
// on j (C's rows). Per iteration of the k tile loop, A[i][k] reads rows of the i tile
// and A[j][k] rows of the j tile: together their footprint has no box of constant
// size, apart each has a 32x32 one. A[j][k] is read down a column by thread x: its
// group is staged through shared memory, copied by rows (paper 004). A[i][k] is the
// same element for a whole warp (a broadcast, 32 reads per element from the threads
// along j) and stays in global memory below min-reuse; with min-reuse=2.5 it takes a
// box of its own too. No reuse is counted among the instances of one thread
// (the k points of one (i, j)): they read distinct elements.

// REMARK: remark: promoted to shared memory: a 32x32 box of f64 per tile (8192 bytes), read uncoalesced by thread x, copied by rows
// REMARK-NOT: promoted
// REUSE-COUNT-2: remark: promoted to shared memory: a 32x32 box of f64 per tile (8192 bytes)

// CHECK-LABEL: func.func @syrk(
// CHECK: affine.for %[[TI:.*]] = 0 to
// CHECK: affine.for %[[TJ:.*]] = 0 to
// CHECK: affine.for %[[TK:.*]] = 0 to
// CHECK: %[[S:.*]] = tgpu.alloc_shared [32, 32] padding [0, 0] : memref<32x32xf64, #gpu.address_space<workgroup>>
// The box's rows are the j tile's: its offset follows TJ.
// CHECK: %[[O0:.*]] = affine.apply #{{.*}}(%[[TI]], %[[TJ]], %[[TK]]{{.*}})
// CHECK: %[[O1:.*]] = affine.apply #{{.*}}(%[[TI]], %[[TJ]], %[[TK]]{{.*}})
// CHECK: tgpu.tile_copy %[[A:.*]] to %[[S]] offsets [%[[O0]], %[[O1]]] tile [32, 32]
// CHECK: gpu.barrier
// CHECK-NOT: tgpu.alloc_shared
// CHECK: affine.for %[[I:.*]] = #{{.*}}(%[[TI]]) to
// CHECK: affine.for %[[J:.*]] = #{{.*}}(%[[TJ]]) to
// CHECK: affine.for %[[K:.*]] = #{{.*}}(%[[TK]]) to
// CHECK-DAG: affine.load %[[A]][%[[I]], %[[K]]] : memref<?x?xf64>
// CHECK-DAG: affine.load %[[S]][%[[J]] - %[[O0]], %[[K]] - %[[O1]]] : memref<32x32xf64, #gpu.address_space<workgroup>>

// Run on sim: C = A A^T + 1 for A[i][k] = (i + 2k) mod 7 on 40x20 (partial tiles);
// the sums of C's diagonal and of its row 39.
// OUT: 10439
// OUT-NEXT: 7362

module {
  func.func @syrk(%n: index, %m: index, %A: memref<?x?xf64>, %C: memref<?x?xf64>) {
    tpoly.scop {
      affine.for %i = 0 to %n {
        affine.for %j = 0 to %n {
          affine.for %k = 0 to %m {
            %c = affine.load %C[%i, %j] : memref<?x?xf64>
            %a = affine.load %A[%i, %k] : memref<?x?xf64>
            %b = affine.load %A[%j, %k] : memref<?x?xf64>
            %p = arith.mulf %a, %b : f64
            %s = arith.addf %c, %p : f64
            affine.store %s, %C[%i, %j] : memref<?x?xf64>
          }
        }
      }
    }
    return
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c7 = arith.constant 7 : index
    %c20 = arith.constant 20 : index
    %c39 = arith.constant 39 : index
    %c40 = arith.constant 40 : index
    %one = arith.constant 1.0 : f64
    %A = memref.alloc(%c40, %c20) : memref<?x?xf64>
    %C = memref.alloc(%c40, %c40) : memref<?x?xf64>
    scf.for %i = %c0 to %c40 step %c1 {
      scf.for %k = %c0 to %c20 step %c1 {
        %t = arith.muli %k, %c2 : index
        %u = arith.addi %i, %t : index
        %r = arith.remui %u, %c7 : index
        %ri = arith.index_cast %r : index to i64
        %v = arith.sitofp %ri : i64 to f64
        memref.store %v, %A[%i, %k] : memref<?x?xf64>
      }
      scf.for %j = %c0 to %c40 step %c1 {
        memref.store %one, %C[%i, %j] : memref<?x?xf64>
      }
    }
    func.call @syrk(%c40, %c20, %A, %C) : (index, index, memref<?x?xf64>, memref<?x?xf64>) -> ()
    %z = arith.constant 0.0 : f64
    %diag = scf.for %i = %c0 to %c40 step %c1 iter_args(%acc = %z) -> f64 {
      %v = memref.load %C[%i, %i] : memref<?x?xf64>
      %s = arith.addf %acc, %v : f64
      scf.yield %s : f64
    }
    %row = scf.for %j = %c0 to %c40 step %c1 iter_args(%acc = %z) -> f64 {
      %v = memref.load %C[%c39, %j] : memref<?x?xf64>
      %s = arith.addf %acc, %v : f64
      scf.yield %s : f64
    }
    %d = arith.fptosi %diag : f64 to i64
    %w = arith.fptosi %row : f64 to i64
    func.call @tessel_print_i64(%d) : (i64) -> ()
    func.call @tessel_print_i64(%w) : (i64) -> ()
    return
  }
  func.func private @tessel_print_i64(i64)
}
