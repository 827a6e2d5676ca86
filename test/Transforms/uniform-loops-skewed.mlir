// RUN: tessel-opt %s --tessel-uniform-loops | FileCheck %s
// RUN: tessel-opt %s --tessel-uniform-loops --tessel-stage-rows | FileCheck %s --check-prefix=STAGED
// RUN: tessel-run %s --device=sim --profile=%t.before.json | FileCheck %s --check-prefix=OUT
// RUN: tessel-opt %s --tessel-uniform-loops --tessel-stage-rows --tessel-lower-shared -o %t.mlir
// RUN: tessel-run %t.mlir --device=sim --profile=%t.json | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --input-file=%t.before.json --check-prefix=BEFORE
// RUN: FileCheck %s --input-file=%t.json --check-prefix=AFTER
// pdist's row sums past the diagonal, t[i] = sum over j > i of D[i][j] (40x40 i32,
// D[i][j] = i + 2j mod 5), as isl's schedule may skew them: the loop counts j - i,
// from 1 to 40 - i, and reads D[i][i + j'], each lane of a warp a row and a column of
// its own. Counted from the thread's row on, the loop reads D[i][j] (its bounds i + 1
// and 40 now depend on thread x); with the block's bounds, the lanes read a column of
// the block's rows together, and tessel-stage-rows copies the rows by steps.

// CHECK-LABEL: func.func @main(
// CHECK: gpu.launch
// CHECK: %[[I:.*]] = arith.addi %{{.*}}, %[[TX:.*]] : index
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step
// CHECK: scf.if
// CHECK-NEXT: %[[OLD:.*]] = arith.subi %[[J]], %{{.*}} : index
// CHECK-NEXT: %[[COL:.*]] = arith.addi %[[I]], %[[OLD]] : index
// CHECK: memref.load %{{.*}}[%[[I]], %[[COL]]] : memref<40x40xi32>
// CHECK: } {tessel.uniform}

// STAGED: tgpu.tile_copy %{{.*}} tile [64, 16]
// STAGED: gpu.barrier

// sum over i < j of (i + 2j mod 5) = 1560.
// OUT: 1560

// The diagonals take 895 sectors where their elements would take 237 side by side;
// the copies of the block's rows by steps of 16 columns, 445 where theirs take 445 (the
// steps start at a multiple of 16 columns, two sectors of each 160-byte row; their boxes
// hold more of the triangle's unread corner than steps of 8, which took 397).
// BEFORE: "kernel": "main_kernel", {{.*}} "global_load_sectors": 895, {{.*}} "global_load_ideal_sectors": 237,
// AFTER: "kernel": "main_kernel", {{.*}} "global_load_sectors": 445, {{.*}} "global_load_ideal_sectors": 445,

module attributes {gpu.container_module} {
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c5 = arith.constant 5 : index
    %c40 = arith.constant 40 : index
    %c64 = arith.constant 64 : index
    %h = memref.alloc() : memref<40x40xi32>
    %ht = memref.alloc() : memref<40xi32>
    %z = arith.constant 0 : i32
    scf.for %i = %c0 to %c40 step %c1 {
      memref.store %z, %ht[%i] : memref<40xi32>
      scf.for %j = %c0 to %c40 step %c1 {
        %t = arith.muli %j, %c2 : index
        %u = arith.addi %i, %t : index
        %r = arith.remsi %u, %c5 : index
        %v = arith.index_cast %r : index to i32
        memref.store %v, %h[%i, %j] : memref<40x40xi32>
      }
    }
    %D = gpu.alloc () : memref<40x40xi32>
    %T = gpu.alloc () : memref<40xi32>
    gpu.memcpy %D, %h : memref<40x40xi32>, memref<40x40xi32>
    gpu.memcpy %T, %ht : memref<40xi32>, memref<40xi32>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
      %base = arith.muli %bx, %c64 : index
      %i = arith.addi %base, %tx : index
      %in = arith.cmpi slt, %i, %c40 : index
      scf.if %in {
        %ub = arith.subi %c40, %i : index
        scf.for %jj = %c1 to %ub step %c1 {
          %j = arith.addi %i, %jj : index
          %s = memref.load %T[%i] : memref<40xi32>
          %a = memref.load %D[%i, %j] : memref<40x40xi32>
          %n = arith.addi %s, %a : i32
          memref.store %n, %T[%i] : memref<40xi32>
        }
      }
      gpu.terminator
    }
    gpu.memcpy %ht, %T : memref<40xi32>, memref<40xi32>
    %sum = scf.for %i = %c0 to %c40 step %c1 iter_args(%acc = %z) -> i32 {
      %v = memref.load %ht[%i] : memref<40xi32>
      %n = arith.addi %acc, %v : i32
      scf.yield %n : i32
    }
    func.call @tessel_print_i32(%sum) : (i32) -> ()
    return
  }
  func.func private @tessel_print_i32(i32)
}
