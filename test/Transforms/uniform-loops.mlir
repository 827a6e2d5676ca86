// RUN: tessel-opt %s --tessel-uniform-loops | FileCheck %s
// RUN: tessel-run %s --device=sim --profile=%t.before.json | FileCheck %s --check-prefix=OUT
// RUN: tessel-opt %s --tessel-uniform-loops -o %t.mlir
// RUN: tessel-run %t.mlir --device=sim --profile=%t.json | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --input-file=%t.before.json --check-prefix=BEFORE
// RUN: FileCheck %s --input-file=%t.json --check-prefix=AFTER
// symv's column sums t[j] = sum over i > j of A[i][j] (40x40 i32, A[i][j] = i + 2j),
// thread x on j: each thread's loop starts at its own row j + 1, so the lanes of a
// warp read a diagonal of A. With the block's least lower bound (j - tx + 1, thread
// 0's) and the thread's own bounds as a guard, the lanes read one row together.

// CHECK-LABEL: func.func @main(
// CHECK: gpu.launch
// CHECK: %[[J:.*]] = arith.addi %{{.*}}, %[[TX:.*]] : index
// CHECK: %[[LB:.*]] = arith.addi %[[J]], %{{.*}} : index
// The new lower bound is computed from the block's values, not the thread's.
// CHECK-NOT: %[[TX]]
// CHECK: scf.for %[[I:.*]] = %[[LO:.*]] to %{{.*}} step
// CHECK-NEXT: %[[GE:.*]] = arith.cmpi sge, %[[I]], %[[LB]] : index
// CHECK-NEXT: %[[LT:.*]] = arith.cmpi slt, %[[I]], %{{.*}} : index
// CHECK-NEXT: %[[OK:.*]] = arith.andi %[[GE]], %[[LT]] : i1
// CHECK-NEXT: scf.if %[[OK]] {
// CHECK: memref.load %{{.*}}[%[[I]], %[[J]]] : memref<40x40xi32>
// CHECK: } {tessel.uniform}

// sum over j of sum over i > j of (i + 2j) = 40300.
// OUT: 40300

// Loads of one row per warp request: the ideal sectors (895 sectors for the same
// requests before, along the diagonals, against 230).
// BEFORE: "kernel": "main_kernel", {{.*}} "global_load_requests": 92, "global_load_sectors": 895, {{.*}} "global_load_ideal_sectors": 230,
// AFTER: "kernel": "main_kernel", {{.*}} "global_load_requests": 92, "global_load_sectors": 230, {{.*}} "global_load_ideal_sectors": 230,

module attributes {gpu.container_module} {
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
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
        %v = arith.index_cast %u : index to i32
        memref.store %v, %h[%i, %j] : memref<40x40xi32>
      }
    }
    %A = gpu.alloc () : memref<40x40xi32>
    %T = gpu.alloc () : memref<40xi32>
    gpu.memcpy %A, %h : memref<40x40xi32>, memref<40x40xi32>
    gpu.memcpy %T, %ht : memref<40xi32>, memref<40xi32>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
      %base = arith.muli %bx, %c64 : index
      %j = arith.addi %base, %tx : index
      %in = arith.cmpi slt, %j, %c40 : index
      scf.if %in {
        %lb = arith.addi %j, %c1 : index
        scf.for %i = %lb to %c40 step %c1 {
          %s = memref.load %T[%j] : memref<40xi32>
          %a = memref.load %A[%i, %j] : memref<40x40xi32>
          %n = arith.addi %s, %a : i32
          memref.store %n, %T[%j] : memref<40xi32>
        }
      }
      gpu.terminator
    }
    gpu.memcpy %ht, %T : memref<40xi32>, memref<40xi32>
    %sum = scf.for %j = %c0 to %c40 step %c1 iter_args(%acc = %z) -> i32 {
      %v = memref.load %ht[%j] : memref<40xi32>
      %n = arith.addi %acc, %v : i32
      scf.yield %n : i32
    }
    func.call @tessel_print_i32(%sum) : (i32) -> ()
    return
  }
  func.func private @tessel_print_i32(i32)
}
