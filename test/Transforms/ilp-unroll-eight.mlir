// RUN: tessel-opt %s --tessel-ilp-unroll | FileCheck %s
// RUN: tessel-opt %s --tessel-ilp-unroll --cse | FileCheck %s --check-prefix=CSE
// RUN: tessel-opt %s --tessel-ilp-unroll -o %t.mlir
// RUN: env TESSEL_GPU=gtx690 tessel-run %s --device=sim | FileCheck %s --check-prefix=OUT
// RUN: env TESSEL_GPU=gtx690 tessel-run %t.mlir --device=sim --profile=%t.gtx690.json | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --input-file=%t.gtx690.json --check-prefix=GTX690
// RUN: env TESSEL_GPU=h100 tessel-run %t.mlir --device=sim --profile=%t.h100.json | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --input-file=%t.h100.json --check-prefix=H100
// A coarsened point loop whose block extent the runtime chooses at launch
// (tessel_block_extent, as tessel-map-to-gpu{coarsen=auto} makes it, with at most 4
// points per thread): 128 blocks of a tile of 32 rows. tessel-ilp-unroll runs a
// thread's 8, 4 or 2 rows side by side, and raises the call's last operand to 8, so that
// the runtime may give a thread 8 rows: the 128 blocks of 1024 threads fill sim's
// gtx690 (8 SMs x 2048 resident threads) 8 times over, so there each block has 32 x 4
// threads and each thread 8 rows, which read 9 rows of A where 8 threads of one row
// read 16; sim's h100 (132 x 2048) keeps a thread per row.

// CHECK-LABEL: func.func @rows(
// CHECK: %[[EIGHT:.*]] = arith.constant 8 : index
// CHECK-NEXT: %[[E:.*]] = call @tessel_block_extent(%c128, %c1024, %c32, %[[EIGHT]])
// CHECK: gpu.launch
// CHECK-SAME: threads(%{{.*}}, %[[TY:[^,]*]], %{{.*}}) in (%{{.*}} = %c32, %[[SY:[^ ]*]] = %[[E]], %{{.*}} = %c1)
// CHECK: %[[SPAN:.*]] = arith.subi %c32, %c0 : index
// CHECK: %[[S8:.*]] = arith.muli %[[SY]], %[[C8:.*]] : index
// CHECK: %[[FULL8:.*]] = arith.cmpi eq, %[[SPAN]], %[[S8]] : index
// CHECK: scf.if %[[FULL8]] {
// Thread t takes rows 8t .. 8t + 7.
// CHECK: %{{.*}} = arith.muli %[[TY]], %[[C8]] : index
// CHECK-COUNT-16: memref.load
// CHECK-COUNT-8: arith.addf
// CHECK-COUNT-8: memref.store
// CHECK: } else {
// The 4 and 2 rows of a quarter and a half of the extent, then the loop.
// CHECK: arith.cmpi eq, %[[SPAN]], %{{.*}} : index
// CHECK: scf.if
// CHECK-COUNT-4: memref.store
// CHECK: } else {
// CHECK: scf.if
// CHECK-COUNT-2: memref.store
// CHECK: } else {
// CHECK-NEXT: scf.for %{{.*}} = %{{.*}} to %c32 step %[[SY]] {
// CHECK-NOT: tessel.coarsened

// A launch whose thread runs a second coarsened loop after the first, one that cannot
// run its points side by side (a condition on the point), keeps both loops as they
// are: unrolling the first alone would give row p to thread p / 4 there and to thread
// p mod e in the second, which reads it, with no barrier between. The call keeps 4.
// CHECK-LABEL: func.func @mixed(
// CHECK: call @tessel_block_extent(%c128, %c1024, %c32, %c4)
// CHECK: scf.for %{{.*}} step
// CHECK: } {tessel.coarsened}
// CHECK: scf.for %{{.*}} step
// CHECK: } {tessel.coarsened}
// CHECK-NEXT: gpu.terminator

// A launch whose largest block has fewer than 1024 threads (32 x 8 here) keeps at most
// 4 points per thread: there ptxas may give a thread more registers than 1024 threads
// leave, and the 8 points' version's registers would cut the occupancy of the blocks
// that run fewer.
// CHECK-LABEL: func.func @small(
// CHECK: call @tessel_block_extent(%c128, %c256, %c8, %c4)
// CHECK: %[[SPAN4:.*]] = arith.subi
// CHECK-NEXT: %{{.*}} = arith.constant 4 : index
// CHECK-NOT: arith.constant 8 : index
// CHECK: gpu.terminator

// Row p + 1 of point p is point p + 1's row: cse leaves 9 loads for the 8 points.
// CSE-LABEL: func.func @rows(
// CSE: scf.if
// CSE-COUNT-9: memref.load
// CSE-NOT: memref.load
// CSE: } else {

// B[p][x] = A[p][x] + A[p + 1][x] with A[i][j] = (7i + j) mod 13, summed over B: the
// same on every GPU with any points per thread; then the same for @mixed.
// OUT: 1572849
// OUT-NEXT: 1572849

// GTX690: "kernel": "rows_kernel", {{.*}}"block": [32, 4, 1]
// GTX690: "kernel": "mixed_kernel", {{.*}}"block": [32, 8, 1]
// H100: "kernel": "rows_kernel", {{.*}}"block": [32, 32, 1]

module attributes {gpu.container_module} {
  func.func private @tessel_block_extent(index, index, index, index) -> index
  func.func @rows(%A: memref<33x4096xf32>, %B: memref<32x4096xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %c1024 = arith.constant 1024 : index
    %e = func.call @tessel_block_extent(%c128, %c1024, %c32, %c4) : (index, index, index, index) -> index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c128, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %e, %sz = %c1) {
      %o = arith.muli %bx, %c32 : index
      %x = arith.addi %o, %tx : index
      %l = arith.addi %c0, %ty : index
      scf.for %p = %l to %c32 step %sy {
        %u = arith.addi %p, %c1 : index
        %a = memref.load %A[%p, %x] : memref<33x4096xf32>
        %b = memref.load %A[%u, %x] : memref<33x4096xf32>
        %s = arith.addf %a, %b : f32
        memref.store %s, %B[%p, %x] : memref<32x4096xf32>
      } {tessel.coarsened}
      gpu.terminator
    }
    return
  }
  func.func @mixed(%A: memref<33x4096xf32>, %B: memref<32x4096xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %c1024 = arith.constant 1024 : index
    %e = func.call @tessel_block_extent(%c128, %c1024, %c32, %c4) : (index, index, index, index) -> index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c128, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %e, %sz = %c1) {
      %o = arith.muli %bx, %c32 : index
      %x = arith.addi %o, %tx : index
      %l = arith.addi %c0, %ty : index
      scf.for %p = %l to %c32 step %sy {
        %u = arith.addi %p, %c1 : index
        %a = memref.load %A[%p, %x] : memref<33x4096xf32>
        %b = memref.load %A[%u, %x] : memref<33x4096xf32>
        %s = arith.addf %a, %b : f32
        memref.store %s, %B[%p, %x] : memref<32x4096xf32>
      } {tessel.coarsened}
      scf.for %p = %l to %c32 step %sy {
        %odd = arith.remui %p, %c4 : index
        %z = arith.cmpi eq, %odd, %c0 : index
        scf.if %z {
          %a = memref.load %B[%p, %x] : memref<32x4096xf32>
          memref.store %a, %B[%p, %x] : memref<32x4096xf32>
        }
      } {tessel.coarsened}
      gpu.terminator
    }
    return
  }
  func.func @small(%A: memref<33x4096xf32>, %B: memref<32x4096xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %e = func.call @tessel_block_extent(%c128, %c256, %c8, %c4) : (index, index, index, index) -> index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c128, %gy = %c4, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %e, %sz = %c1) {
      %o = arith.muli %bx, %c32 : index
      %x = arith.addi %o, %tx : index
      %r = arith.muli %by, %c8 : index
      %l = arith.addi %r, %ty : index
      %h = arith.addi %r, %c8 : index
      scf.for %p = %l to %h step %sy {
        %u = arith.addi %p, %c1 : index
        %a = memref.load %A[%p, %x] : memref<33x4096xf32>
        %b = memref.load %A[%u, %x] : memref<33x4096xf32>
        %s = arith.addf %a, %b : f32
        memref.store %s, %B[%p, %x] : memref<32x4096xf32>
      } {tessel.coarsened}
      gpu.terminator
    }
    return
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c7 = arith.constant 7 : index
    %c13 = arith.constant 13 : index
    %c32 = arith.constant 32 : index
    %c33 = arith.constant 33 : index
    %c4096 = arith.constant 4096 : index
    %h = memref.alloc() : memref<33x4096xf32>
    scf.for %i = %c0 to %c33 step %c1 {
      scf.for %j = %c0 to %c4096 step %c1 {
        %a = arith.muli %i, %c7 : index
        %b = arith.addi %a, %j : index
        %r = arith.remui %b, %c13 : index
        %n = arith.index_cast %r : index to i32
        %v = arith.sitofp %n : i32 to f32
        memref.store %v, %h[%i, %j] : memref<33x4096xf32>
      }
    }
    %A = gpu.alloc () : memref<33x4096xf32>
    %B = gpu.alloc () : memref<32x4096xf32>
    gpu.memcpy %A, %h : memref<33x4096xf32>, memref<33x4096xf32>
    %out = memref.alloc() : memref<32x4096xf32>
    func.call @rows(%A, %B) : (memref<33x4096xf32>, memref<32x4096xf32>) -> ()
    gpu.memcpy %out, %B : memref<32x4096xf32>, memref<32x4096xf32>
    func.call @print_sum(%out) : (memref<32x4096xf32>) -> ()
    func.call @mixed(%A, %B) : (memref<33x4096xf32>, memref<32x4096xf32>) -> ()
    gpu.memcpy %out, %B : memref<32x4096xf32>, memref<32x4096xf32>
    func.call @print_sum(%out) : (memref<32x4096xf32>) -> ()
    return
  }
  func.func @print_sum(%B: memref<32x4096xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c4096 = arith.constant 4096 : index
    %z = arith.constant 0.0 : f32
    %sum = scf.for %i = %c0 to %c32 step %c1 iter_args(%acc = %z) -> f32 {
      %row = scf.for %j = %c0 to %c4096 step %c1 iter_args(%a2 = %acc) -> f32 {
        %v = memref.load %B[%i, %j] : memref<32x4096xf32>
        %n = arith.addf %a2, %v : f32
        scf.yield %n : f32
      }
      scf.yield %row : f32
    }
    %si = arith.fptosi %sum : f32 to i32
    func.call @tessel_print_i32(%si) : (i32) -> ()
    return
  }
  func.func private @tessel_print_i32(i32)
}
