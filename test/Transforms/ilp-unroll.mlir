// RUN: tessel-opt %s --tessel-ilp-unroll | FileCheck %s
// RUN: tessel-opt %s --tessel-ilp-unroll --cse | FileCheck %s --check-prefix=CSE
// RUN: tessel-opt %s --tessel-ilp-unroll -o %t.mlir
// RUN: tessel-run %t.mlir --device=sim | FileCheck %s --check-prefix=OUT
// A coarsened point loop (as tessel-map-to-gpu{coarsen=auto} makes it): thread y of
// extent %e takes rows %ty, %ty + %e, ... of 8, each reading rows p and p + 1 of A.
// With %e = 2 every thread has 4 rows; tessel-ilp-unroll gives each thread 4
// consecutive rows instead, the body's operations repeated side by side (the 8 loads,
// then the sums, then the 4 stores), and row p + 1 of point p is point p + 1's row: the
// same index value, so that cse leaves 5 loads for the 4 points. With 2 rows per thread
// the same with 2; otherwise (3 or 8 threads here) the loop as it was.

// CHECK-LABEL: func.func @pairs(
// CHECK: gpu.launch
// CHECK-SAME: threads(%{{.*}}, %[[TY:[^,]*]], %{{.*}}) in (%{{.*}} = %c32, %[[E:[^ ]*]] = %{{.*}}, %{{.*}} = %c1)
// Every thread of the block has 4 points when the span is 4 extents.
// CHECK: %[[SPAN:.*]] = arith.subi %c8, %c0 : index
// CHECK: %[[E4:.*]] = arith.muli %[[E]], %[[C4:.*]] : index
// CHECK: %[[FULL4:.*]] = arith.cmpi eq, %[[SPAN]], %[[E4]] : index
// CHECK: scf.if %[[FULL4]] {
// Thread t takes rows 4t .. 4t + 3.
// CHECK: %[[T4:.*]] = arith.muli %[[TY]], %[[C4]] : index
// CHECK: %[[P0:.*]] = arith.addi %c0, %{{.*}} : index
// CHECK: %[[P1:.*]] = arith.addi %[[P0]], %{{.*}} : index
// CHECK: %[[P2:.*]] = arith.addi %[[P0]], %{{.*}} : index
// CHECK: %[[P3:.*]] = arith.addi %[[P0]], %{{.*}} : index
// p + 1 is computed once for the last point only: for the others it is the next point.
// CHECK-NEXT: %[[P4:.*]] = arith.addi %[[P3]], %c1 : index
// CHECK-NEXT: memref.load %{{.*}}[%[[P0]], %{{.*}}]
// CHECK-NEXT: memref.load %{{.*}}[%[[P1]], %{{.*}}]
// CHECK-NEXT: memref.load %{{.*}}[%[[P2]], %{{.*}}]
// CHECK-NEXT: memref.load %{{.*}}[%[[P3]], %{{.*}}]
// CHECK-NEXT: memref.load %{{.*}}[%[[P1]], %{{.*}}]
// CHECK-NEXT: memref.load %{{.*}}[%[[P2]], %{{.*}}]
// CHECK-NEXT: memref.load %{{.*}}[%[[P3]], %{{.*}}]
// CHECK-NEXT: memref.load %{{.*}}[%[[P4]], %{{.*}}]
// CHECK-COUNT-4: arith.addf
// CHECK-COUNT-4: memref.store
// CHECK: } else {
// CHECK: arith.cmpi eq, %[[SPAN]], %{{.*}} : index
// CHECK: scf.if
// CHECK-COUNT-2: memref.store
// CHECK: } else {
// CHECK-NEXT: scf.for %{{.*}} = %{{.*}} to %c8 step %[[E]] {
// CHECK-NOT: tessel.coarsened

// CSE-LABEL: func.func @pairs(
// CSE: scf.if
// CSE-COUNT-5: memref.load
// CSE-NOT: memref.load
// CSE: } else {

// Paper 002 Fig. 4 (register tiling by thread compaction): what a point reads
// independently of its row, w[x] here, is loaded once for the thread's 4 points and
// kept in a register.
// CSE-LABEL: func.func @compact(
// CSE: scf.if
// CSE: %[[W:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<32xf32>
// CSE-NOT: memref<32xf32>
// CSE-COUNT-4: arith.mulf %{{.*}}, %[[W]] : f32
// CSE: } else {

// Rows: A[i][j] = 32 i + j, B[p][x] = A[p][x] + A[p + 1][x], summed: the same for every
// extent.
// OUT: 73472
// OUT-NEXT: 73472
// OUT-NEXT: 73472
// OUT-NEXT: 73472

module attributes {gpu.container_module} {
  func.func @pairs(%A: memref<9x32xf32>, %B: memref<8x32xf32>, %e: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %e, %sz = %c1) {
      %l = arith.addi %c0, %ty : index
      scf.for %p = %l to %c8 step %sy {
        %u = arith.addi %p, %c1 : index
        %a = memref.load %A[%p, %tx] : memref<9x32xf32>
        %b = memref.load %A[%u, %tx] : memref<9x32xf32>
        %s = arith.addf %a, %b : f32
        memref.store %s, %B[%p, %tx] : memref<8x32xf32>
      } {tessel.coarsened}
      gpu.terminator
    }
    return
  }
  func.func @compact(%A: memref<8x32xf32>, %w: memref<32xf32>, %B: memref<8x32xf32>, %e: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %e, %sz = %c1) {
      %l = arith.addi %c0, %ty : index
      scf.for %p = %l to %c8 step %sy {
        %a = memref.load %A[%p, %tx] : memref<8x32xf32>
        %b = memref.load %w[%tx] : memref<32xf32>
        %s = arith.mulf %a, %b : f32
        memref.store %s, %B[%p, %tx] : memref<8x32xf32>
      } {tessel.coarsened}
      gpu.terminator
    }
    return
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c9 = arith.constant 9 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %h = memref.alloc() : memref<9x32xf32>
    scf.for %i = %c0 to %c9 step %c1 {
      scf.for %j = %c0 to %c32 step %c1 {
        %a = arith.muli %i, %c32 : index
        %b = arith.addi %a, %j : index
        %n = arith.index_cast %b : index to i32
        %v = arith.sitofp %n : i32 to f32
        memref.store %v, %h[%i, %j] : memref<9x32xf32>
      }
    }
    %A = gpu.alloc () : memref<9x32xf32>
    %B = gpu.alloc () : memref<8x32xf32>
    gpu.memcpy %A, %h : memref<9x32xf32>, memref<9x32xf32>
    %out = memref.alloc() : memref<8x32xf32>
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %extents = memref.alloc() : memref<4xindex>
    memref.store %c2, %extents[%c0] : memref<4xindex>
    memref.store %c4, %extents[%c1] : memref<4xindex>
    memref.store %c3, %extents[%c2] : memref<4xindex>
    memref.store %c8, %extents[%c3] : memref<4xindex>
    scf.for %k = %c0 to %c4 step %c1 {
      %e = memref.load %extents[%k] : memref<4xindex>
      func.call @pairs(%A, %B, %e) : (memref<9x32xf32>, memref<8x32xf32>, index) -> ()
      gpu.memcpy %out, %B : memref<8x32xf32>, memref<8x32xf32>
      %z = arith.constant 0.0 : f32
      %sum = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %z) -> f32 {
        %row = scf.for %j = %c0 to %c32 step %c1 iter_args(%a2 = %acc) -> f32 {
          %v = memref.load %out[%i, %j] : memref<8x32xf32>
          %n = arith.addf %a2, %v : f32
          scf.yield %n : f32
        }
        scf.yield %row : f32
      }
      %si = arith.fptosi %sum : f32 to i32
      func.call @tessel_print_i32(%si) : (i32) -> ()
    }
    return
  }
  func.func private @tessel_print_i32(i32)
}
