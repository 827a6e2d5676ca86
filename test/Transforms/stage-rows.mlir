// RUN: tessel-opt %s --tessel-stage-rows 2>%t.remarks | FileCheck %s
// RUN: FileCheck %s --input-file=%t.remarks --check-prefix=REMARK
// RUN: tessel-run %s --device=sim | FileCheck %s --check-prefix=OUT
// RUN: tessel-opt %s --tessel-stage-rows -o %t.mlir
// RUN: tessel-run %t.mlir --device=sim | FileCheck %s --check-prefix=OUT
// RUN: tessel-opt %s --tessel-stage-rows=width=4 -o %t4.mlir
// RUN: tessel-run %t4.mlir --device=sim | FileCheck %s --check-prefix=OUT
// RUN: tessel-opt %s --tessel-stage-rows=stores=true 2>/dev/null | FileCheck %s --check-prefix=STORES
// RUN: tessel-opt %s --tessel-stage-rows=stores=true -o %ts.mlir
// RUN: tessel-run %ts.mlir --device=sim | FileCheck %s --check-prefix=OUT
// RUN: not tessel-opt %s --tessel-stage-rows=width=0 2>&1 | FileCheck %s --check-prefix=BADOPT
// RUN: not tessel-opt %s --tessel-stage-rows=stores=yes 2>&1 | FileCheck %s --check-prefix=BADOPT2
// BADOPT: error: 'tessel-stage-rows' option width=0: expected auto or an integer from 1 to 64
// BADOPT2: error: 'tessel-stage-rows' option stores=yes: expected true or false

// Paper 004 Fig. 2 and 4: a thread per row of A (rows bx * 64 + tx, the last block
// partly past the 100 rows), each summing its row along j: the threads of a warp read
// 32 rows, one element of each. Staged, the block walks its rows 16 columns at a time:
// the threads copy the 64x16 box with consecutive threads on consecutive elements, a
// barrier, then each thread (the rows past 100 only help copy) reads its row from
// shared memory, and a barrier ends the step. The initialization before the loop and
// the store after it keep the guard, each in a `scf.if` of its own.


// CHECK-LABEL: func.func @main(
// CHECK: gpu.launch
// CHECK: %[[ROW:.*]] = arith.addi %{{.*}}, %[[TX:[^ ]*]] : index
// CHECK: %[[VALID:.*]] = arith.cmpi slt, %[[ROW]], %{{.*}} : index
// The initialization, under the guard.
// CHECK: scf.if %[[VALID]] {
// CHECK-NEXT: memref.store %{{.*}}, %[[ACC:.*]][] : memref<i32>
// CHECK-NEXT: }
// The loop in steps of 16 columns, run by every thread of the block.
// CHECK: scf.for %[[JT:.*]] = %{{.*}} to %{{.*}} step %[[W:.*]] {
// CHECK: %[[END:.*]] = arith.addi %[[JT]], %[[W]] : index
// CHECK: %[[HI:.*]] = arith.minsi %[[END]], %{{.*}} : index
// CHECK-NEXT: %[[FIRST:.*]] = arith.maxsi %[[JT]], %{{.*}} : index
// CHECK: %[[S:.*]] = tgpu.alloc_shared [64, 16] padding [0, 1] : memref<64x17xi32, #gpu.address_space<workgroup>>
// CHECK: tgpu.tile_copy %[[A:.*]] to %[[S]] offsets [%{{.*}}, %{{.*}}] tile [64, 16] : memref<100x37xi32> to memref<64x17xi32, #gpu.address_space<workgroup>>
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: scf.if %[[VALID]] {
// CHECK-NEXT: scf.for %[[J:.*]] = %[[FIRST]] to %[[HI]] step
// CHECK: %[[D:.*]] = arith.subi %[[J]], %[[JT]] : index
// CHECK: memref.load %[[S]][%[[TX]], %{{.*}}] : memref<64x17xi32, #gpu.address_space<workgroup>>
// CHECK-NOT: memref.load %[[A]]
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[ROW]]] : memref<100xi32>
// CHECK: } {tessel.staged}
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: } {tessel.staged}
// The reversed loop: columns 36 - j, the box at 36 - jt - 15.
// CHECK: scf.for %[[JT2:.*]] = %{{.*}} to %{{.*}} step
// CHECK: tgpu.alloc_shared [64, 16] padding [0, 1]
// CHECK: scf.if %[[VALID]] {
// CHECK: arith.subi %[[JT2]], %{{.*}} : index
// CHECK: } {tessel.staged}
// Not staged: B is written in the kernel, and C[j][row] is already read along its rows.
// CHECK: scf.if %[[VALID]] {
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %[[B:.*]][%[[ROW]], %{{.*}}] : memref<100x37xi32>
// CHECK: memref.load %[[B]][%[[ROW]], %{{.*}}] : memref<100x37xi32>
// CHECK: memref.load %{{.*}}[%{{.*}}, %[[ROW]]] : memref<37x100xi32>
// CHECK-NOT: tgpu
// CHECK: gpu.terminator

// With stores=true, the third loop is staged too: B's box is copied in, the thread
// stores to it and reads it back there, and the box goes back to B after the step
// (paper 004 Fig. 4's "coalesced stores"), a barrier before the first step (the
// threads' accesses to B before the loop) and after each copy back. C stays global.
// STORES: memref.store %{{.*}}, %[[SB:.*]][%{{.*}}, %{{.*}}] : memref<64x17xi32, #gpu.address_space<workgroup>>
// STORES: memref.load %[[SB]][%{{.*}}, %{{.*}}] : memref<64x17xi32, #gpu.address_space<workgroup>>
// STORES: memref.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<37x100xi32>
// STORES: gpu.barrier
// STORES-NEXT: tgpu.tile_copy %[[SB]] to %[[B:.*]] offsets [%{{.*}}, %{{.*}}] tile [64, 16] : memref<64x17xi32, #gpu.address_space<workgroup>> to memref<100x37xi32>
// STORES-NEXT: gpu.barrier
// STORES-NEXT: } {tessel.staged}
// STORES-NOT: memref.store %{{.*}}, %[[B]]

// OUT: 64158
// OUT-NEXT: 148074
// OUT-NEXT: 149406
// OUT-NEXT: 196026
// OUT-NEXT: 13009200

module attributes {gpu.container_module} {
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c36 = arith.constant 36 : index
    %c37 = arith.constant 37 : index
    %c63 = arith.constant 63 : index
    %c64 = arith.constant 64 : index
    %c99 = arith.constant 99 : index
    %c100 = arith.constant 100 : index
    %z = arith.constant 0 : i32
    %ha = memref.alloc() : memref<100x37xi32>
    %hc = memref.alloc() : memref<37x100xi32>
    %hy = memref.alloc() : memref<100xi32>
    scf.for %i = %c0 to %c100 step %c1 {
      scf.for %j = %c0 to %c37 step %c1 {
        %j2 = arith.muli %j, %c2 : index
        %a = arith.addi %i, %j2 : index
        %av = arith.index_cast %a : index to i32
        memref.store %av, %ha[%i, %j] : memref<100x37xi32>
        %cv = arith.index_cast %j : index to i32
        memref.store %cv, %hc[%j, %i] : memref<37x100xi32>
      }
    }
    %A = gpu.alloc () : memref<100x37xi32>
    %B = gpu.alloc () : memref<100x37xi32>
    %C = gpu.alloc () : memref<37x100xi32>
    %Y = gpu.alloc () : memref<100xi32>
    gpu.memcpy %A, %ha : memref<100x37xi32>, memref<100x37xi32>
    gpu.memcpy %C, %hc : memref<37x100xi32>, memref<37x100xi32>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
      %acc = memref.alloca() : memref<i32>
      %base = arith.muli %bx, %c64 : index
      %row = arith.addi %base, %tx : index
      %valid = arith.cmpi slt, %row, %c100 : index
      scf.if %valid {
        memref.store %z, %acc[] : memref<i32>
        scf.for %j = %c0 to %c37 step %c1 {
          %s = memref.load %acc[] : memref<i32>
          // REMARK: stage-rows.mlir:[[@LINE+1]]:{{[0-9]+}}: remark: staged through shared memory: a 64x16 box of i32 per 16 iterations of the loop, copied in by rows (the threads of a warp read it down a column of it)
          %a = memref.load %A[%row, %j] : memref<100x37xi32>
          %jv = arith.index_cast %j : index to i32
          %p = arith.muli %a, %jv : i32
          %t = arith.addi %s, %p : i32
          memref.store %t, %acc[] : memref<i32>
          // One element all along the loop: stays a global store, the loop is staged.
          memref.store %t, %Y[%row] : memref<100xi32>
        }
        scf.for %j = %c0 to %c37 step %c1 {
          %s = memref.load %acc[] : memref<i32>
          %col = arith.subi %c36, %j : index
          // REMARK: stage-rows.mlir:[[@LINE+1]]:{{[0-9]+}}: remark: staged through shared memory
          %a = memref.load %A[%row, %col] : memref<100x37xi32>
          // REMARK-NOT: remark
          %jv = arith.index_cast %j : index to i32
          %p = arith.muli %a, %jv : i32
          %t = arith.addi %s, %p : i32
          memref.store %t, %acc[] : memref<i32>
        }
        scf.for %j = %c0 to %c37 step %c1 {
          %s = memref.load %acc[] : memref<i32>
          %jv = arith.index_cast %j : index to i32
          memref.store %jv, %B[%row, %j] : memref<100x37xi32>
          %b = memref.load %B[%row, %j] : memref<100x37xi32>
          %c = memref.load %C[%j, %row] : memref<37x100xi32>
          %p = arith.muli %b, %c : i32
          %t = arith.addi %s, %p : i32
          memref.store %t, %acc[] : memref<i32>
        }
        %r = memref.load %acc[] : memref<i32>
        memref.store %r, %Y[%row] : memref<100xi32>
      }
      gpu.terminator
    }
    gpu.memcpy %hy, %Y : memref<100xi32>, memref<100xi32>
    %y0 = memref.load %hy[%c0] : memref<100xi32>
    %y63 = memref.load %hy[%c63] : memref<100xi32>
    %y64 = memref.load %hy[%c64] : memref<100xi32>
    %y99 = memref.load %hy[%c99] : memref<100xi32>
    func.call @tessel_print_i32(%y0) : (i32) -> ()
    func.call @tessel_print_i32(%y63) : (i32) -> ()
    func.call @tessel_print_i32(%y64) : (i32) -> ()
    func.call @tessel_print_i32(%y99) : (i32) -> ()
    %sum = scf.for %i = %c0 to %c100 step %c1 iter_args(%acc = %z) -> i32 {
      %v = memref.load %hy[%i] : memref<100xi32>
      %n = arith.addi %acc, %v : i32
      scf.yield %n : i32
    }
    func.call @tessel_print_i32(%sum) : (i32) -> ()
    return
  }
  func.func private @tessel_print_i32(i32)
}
