// RUN: tessel-opt %s --tessel-lower-shared | FileCheck %s
// RUN: tessel-run %s --device=sim | FileCheck %s --check-prefix=OUT
// RUN: tessel-opt %s --tessel-lower-shared -o %t.mlir
// RUN: tessel-run %t.mlir --device=sim | FileCheck %s --check-prefix=OUT
// tessel-lower-shared's prefetching (copy_prefetch.rs): the copies at the top of a loop
// a kernel runs in sequence load the next iteration's elements into registers right
// after the barrier, so that the global latency overlaps the block's work.
//
// A matrix-vector product: one block of 8 threads, a thread per row of A (8x10 i32,
// A[i][j] = 10 i + j), x[j] = j + 1; the loop takes x and A's columns in tiles of 4, the
// last one half outside (columns 8 and 9, then 10 and 11, skipped). Each thread copies
// 4 elements of A's 8x4 box and (threads 0 to 3) one of x's 4.
// y[i] = sum_j (10 i + j) (j + 1) = 550 i + 330.

// CHECK-LABEL: func.func @main(
// CHECK: gpu.launch
// The registers: 4 elements of A and 1 of x per thread.
// CHECK-COUNT-5: memref.alloca() : memref<i32>
// Before the loop: the first tile's elements, loaded without guards (an index outside
// A is clamped into it).
// CHECK: arith.minsi
// CHECK: arith.maxsi
// CHECK-NOT: scf.if
// CHECK: memref.load %{{.*}} : memref<8x10xi32>
// CHECK: scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step %[[S:[^ ]*]] {
// The copies: the registers stored into shared memory, each element where it is in the
// tile and inside A.
// CHECK: memref.load %{{.*}}[] : memref<i32>
// CHECK-NEXT: scf.if
// CHECK-NEXT: memref.store %{{.*}} : memref<8x4xi32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// Right after the barrier: the next tile's elements, with no guard.
// CHECK-NEXT: %[[N:.*]] = arith.addi %[[T]], %[[S]] : index
// CHECK-NOT: scf.if
// CHECK: memref.load %{{.*}} : memref<8x10xi32>
// CHECK-NOT: scf.if
// CHECK: memref.load %{{.*}} : memref<10xi32>
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}}[] : memref<i32>
// Then the block's work on this tile.
// CHECK: scf.for
// CHECK: gpu.barrier

// A block whose size is chosen at launch (8 x %e threads, %e of 4, 2 or 1: the
// runtime's tessel_block_extent): each thread of the smallest block copies 4 elements
// of A's 8x4 box, each of the largest one 1. The first is loaded as above; the other
// three are loaded, and stored, under one test of the block's size, the same for all
// its threads (whether the rows one element of a thread is apart from its next are
// fewer than the box's 8), so that the largest block spends no load on them. Their
// rows, which do not change with the loop's tile (the box's first row is 0), are
// computed before the test; their columns, which do, inside it. The launches of 8 x 4
// threads (%nb = 1: too few blocks to shrink) and 8 x 1 (%nb = 10^6) print the same
// as the others.
// CHECK-LABEL: func.func @chosen(
// CHECK: gpu.launch
// CHECK-COUNT-5: memref.alloca() : memref<i32>
// CHECK: memref.load %{{.*}} : memref<8x10xi32>
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}}[] : memref<i32>
// CHECK: %[[R1:.*]] = arith.maxsi
// CHECK-NOT: memref.load
// CHECK: %[[R2:.*]] = arith.maxsi
// CHECK-NOT: memref.load
// CHECK: %[[R3:.*]] = arith.maxsi
// CHECK: %[[SPAN:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK-NEXT: %[[MORE:.*]] = arith.cmpi ult, %[[SPAN]], %{{.*}} : index
// CHECK-NEXT: scf.if %[[MORE]] {
// CHECK-NEXT: arith.addi
// CHECK-NEXT: arith.minsi
// CHECK-NEXT: %[[C1:.*]] = arith.maxsi
// CHECK-NEXT: memref.load %{{.*}}[%[[R1]], %[[C1]]] : memref<8x10xi32>
// CHECK-COUNT-2: memref.load %{{.*}} : memref<8x10xi32>
// CHECK: }
// CHECK: memref.load %{{.*}} : memref<10xi32>
// In the loop, the stores of the first register into the box, then of the three under
// the same test.
// CHECK: scf.for
// CHECK: memref.load %{{.*}}[] : memref<i32>
// CHECK-NEXT: scf.if
// CHECK-NEXT: memref.store %{{.*}} : memref<8x4xi32, #gpu.address_space<workgroup>>
// CHECK-NEXT: }
// CHECK: scf.if %{{.*}} {
// CHECK-COUNT-3: memref.store %{{.*}} : memref<8x4xi32, #gpu.address_space<workgroup>>
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK: gpu.barrier

// The same product through views of dynamic extents: the loop prefetches where
// neither of A's extents is zero and runs as it was otherwise; both use the shared
// buffers, allocated once before them.
// CHECK-LABEL: func.func @product(
// CHECK: gpu.launch
// CHECK-COUNT-5: memref.alloca() : memref<i32>
// CHECK: memref.dim %{{.*}}, %{{.*}} : memref<?x?xi32>
// CHECK: arith.cmpi sgt
// CHECK: memref.dim %{{.*}}, %{{.*}} : memref<?x?xi32>
// CHECK: arith.cmpi sgt
// CHECK: memref.dim %{{.*}}, %{{.*}} : memref<?xi32>
// CHECK: arith.cmpi sgt
// CHECK: scf.if
// CHECK: arith.minsi
// CHECK: scf.for
// CHECK: memref.load %{{.*}}[] : memref<i32>
// CHECK: gpu.barrier
// CHECK-NEXT: arith.addi
// CHECK: } else {
// CHECK: scf.for
// CHECK-NOT: memref<i32>
// CHECK: gpu.barrier
// CHECK: gpu.terminator

// Not prefetched: a launch that writes its source, and offsets computed from memory.
// CHECK-LABEL: func.func @written(
// CHECK-NOT: memref.alloca() : memref<i32>
// CHECK: return
// CHECK-LABEL: func.func @loaded(
// CHECK-NOT: memref.alloca() : memref<i32>
// CHECK: return

// OUT: 330
// OUT-NEXT: 4180
// OUT-NEXT: 18040
// OUT-NEXT: 330
// OUT-NEXT: 4180
// OUT-NEXT: 18040
// OUT-NEXT: 330
// OUT-NEXT: 4180
// OUT-NEXT: 18040
// OUT-NEXT: 330
// OUT-NEXT: 4180
// OUT-NEXT: 18040

module attributes {gpu.container_module} {
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c7 = arith.constant 7 : index
    %c8 = arith.constant 8 : index
    %c10 = arith.constant 10 : index
    %zero = arith.constant 0 : i32
    %hA = memref.alloc() : memref<8x10xi32>
    %hx = memref.alloc() : memref<10xi32>
    %hy = memref.alloc() : memref<8xi32>
    scf.for %i = %c0 to %c8 step %c1 {
      scf.for %j = %c0 to %c10 step %c1 {
        %a = arith.muli %i, %c10 : index
        %b = arith.addi %a, %j : index
        %v = arith.index_cast %b : index to i32
        memref.store %v, %hA[%i, %j] : memref<8x10xi32>
      }
    }
    scf.for %j = %c0 to %c10 step %c1 {
      %b = arith.addi %j, %c1 : index
      %v = arith.index_cast %b : index to i32
      memref.store %v, %hx[%j] : memref<10xi32>
    }
    %A = gpu.alloc () : memref<8x10xi32>
    %X = gpu.alloc () : memref<10xi32>
    %Y = gpu.alloc () : memref<8xi32>
    gpu.memcpy %A, %hA : memref<8x10xi32>, memref<8x10xi32>
    gpu.memcpy %X, %hx : memref<10xi32>, memref<10xi32>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1) {
      %acc = memref.alloca() : memref<i32>
      memref.store %zero, %acc[] : memref<i32>
      scf.for %t = %c0 to %c3 step %c1 {
        %sA = tgpu.alloc_shared [8, 4] padding [0, 0] : memref<8x4xi32, #gpu.address_space<workgroup>>
        %sX = tgpu.alloc_shared [4] padding [0] : memref<4xi32, #gpu.address_space<workgroup>>
        %j0 = arith.muli %t, %c4 : index
        tgpu.tile_copy %A to %sA offsets [%c0, %j0] tile [8, 4]
            : memref<8x10xi32> to memref<8x4xi32, #gpu.address_space<workgroup>>
        tgpu.tile_copy %X to %sX offsets [%j0] tile [4]
            : memref<10xi32> to memref<4xi32, #gpu.address_space<workgroup>>
        gpu.barrier
        scf.for %jj = %c0 to %c4 step %c1 {
          %j = arith.addi %j0, %jj : index
          %in = arith.cmpi ult, %j, %c10 : index
          scf.if %in {
            %a = memref.load %sA[%tx, %jj] : memref<8x4xi32, #gpu.address_space<workgroup>>
            %x = memref.load %sX[%jj] : memref<4xi32, #gpu.address_space<workgroup>>
            %p = arith.muli %a, %x : i32
            %o = memref.load %acc[] : memref<i32>
            %n = arith.addi %o, %p : i32
            memref.store %n, %acc[] : memref<i32>
          }
        }
        gpu.barrier
      }
      %r = memref.load %acc[] : memref<i32>
      memref.store %r, %Y[%tx] : memref<8xi32>
      gpu.terminator
    }
    gpu.memcpy %hy, %Y : memref<8xi32>, memref<8xi32>
    %y0 = memref.load %hy[%c0] : memref<8xi32>
    %y7 = memref.load %hy[%c7] : memref<8xi32>
    func.call @tessel_print_i32(%y0) : (i32) -> ()
    func.call @tessel_print_i32(%y7) : (i32) -> ()
    %sum = scf.for %i = %c0 to %c8 step %c1 iter_args(%s = %zero) -> i32 {
      %v = memref.load %hy[%i] : memref<8xi32>
      %n = arith.addi %s, %v : i32
      scf.yield %n : i32
    }
    func.call @tessel_print_i32(%sum) : (i32) -> ()
    %dA = gpu.alloc (%c8, %c10) : memref<?x?xi32>
    %dX = gpu.alloc (%c10) : memref<?xi32>
    %hAd = memref.cast %hA : memref<8x10xi32> to memref<?x?xi32>
    %hxd = memref.cast %hx : memref<10xi32> to memref<?xi32>
    gpu.memcpy %dA, %hAd : memref<?x?xi32>, memref<?x?xi32>
    gpu.memcpy %dX, %hxd : memref<?xi32>, memref<?xi32>
    %Y2 = gpu.alloc () : memref<8xi32>
    func.call @product(%dA, %dX, %Y2) : (memref<?x?xi32>, memref<?xi32>, memref<8xi32>) -> ()
    gpu.memcpy %hy, %Y2 : memref<8xi32>, memref<8xi32>
    %z0 = memref.load %hy[%c0] : memref<8xi32>
    %z7 = memref.load %hy[%c7] : memref<8xi32>
    func.call @tessel_print_i32(%z0) : (i32) -> ()
    func.call @tessel_print_i32(%z7) : (i32) -> ()
    %sum2 = scf.for %i = %c0 to %c8 step %c1 iter_args(%s = %zero) -> i32 {
      %v = memref.load %hy[%i] : memref<8xi32>
      %n = arith.addi %s, %v : i32
      scf.yield %n : i32
    }
    func.call @tessel_print_i32(%sum2) : (i32) -> ()
    %c1000000 = arith.constant 1000000 : index
    %nbs = memref.alloc() : memref<2xindex>
    memref.store %c1, %nbs[%c0] : memref<2xindex>
    memref.store %c1000000, %nbs[%c1] : memref<2xindex>
    %c2 = arith.constant 2 : index
    scf.for %k = %c0 to %c2 step %c1 {
      %nb = memref.load %nbs[%k] : memref<2xindex>
      %Y3 = gpu.alloc () : memref<8xi32>
      func.call @chosen(%A, %X, %Y3, %nb) : (memref<8x10xi32>, memref<10xi32>, memref<8xi32>, index) -> ()
      gpu.memcpy %hy, %Y3 : memref<8xi32>, memref<8xi32>
      %w0 = memref.load %hy[%c0] : memref<8xi32>
      %w7 = memref.load %hy[%c7] : memref<8xi32>
      func.call @tessel_print_i32(%w0) : (i32) -> ()
      func.call @tessel_print_i32(%w7) : (i32) -> ()
      %sum3 = scf.for %i = %c0 to %c8 step %c1 iter_args(%s = %zero) -> i32 {
        %v = memref.load %hy[%i] : memref<8xi32>
        %n = arith.addi %s, %v : i32
        scf.yield %n : i32
      }
      func.call @tessel_print_i32(%sum3) : (i32) -> ()
    }
    return
  }

  // The same product with a block of 8 x %e threads, %e chosen at launch (4, 2 or 1):
  // ty 0 computes, every thread copies.
  func.func @chosen(%A: memref<8x10xi32>, %X: memref<10xi32>, %Y: memref<8xi32>, %nb: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c10 = arith.constant 10 : index
    %c32 = arith.constant 32 : index
    %zero = arith.constant 0 : i32
    %e = func.call @tessel_block_extent(%nb, %c32, %c4, %c4) : (index, index, index, index) -> index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %e, %sz = %c1) {
      %acc = memref.alloca() : memref<i32>
      memref.store %zero, %acc[] : memref<i32>
      %first = arith.cmpi eq, %ty, %c0 : index
      scf.for %t = %c0 to %c3 step %c1 {
        %sA = tgpu.alloc_shared [8, 4] padding [0, 0] : memref<8x4xi32, #gpu.address_space<workgroup>>
        %sX = tgpu.alloc_shared [4] padding [0] : memref<4xi32, #gpu.address_space<workgroup>>
        %j0 = arith.muli %t, %c4 : index
        tgpu.tile_copy %A to %sA offsets [%c0, %j0] tile [8, 4]
            : memref<8x10xi32> to memref<8x4xi32, #gpu.address_space<workgroup>>
        tgpu.tile_copy %X to %sX offsets [%j0] tile [4]
            : memref<10xi32> to memref<4xi32, #gpu.address_space<workgroup>>
        gpu.barrier
        scf.if %first {
          scf.for %jj = %c0 to %c4 step %c1 {
            %j = arith.addi %j0, %jj : index
            %in = arith.cmpi ult, %j, %c10 : index
            scf.if %in {
              %a = memref.load %sA[%tx, %jj] : memref<8x4xi32, #gpu.address_space<workgroup>>
              %x = memref.load %sX[%jj] : memref<4xi32, #gpu.address_space<workgroup>>
              %p = arith.muli %a, %x : i32
              %o = memref.load %acc[] : memref<i32>
              %n = arith.addi %o, %p : i32
              memref.store %n, %acc[] : memref<i32>
            }
          }
        }
        gpu.barrier
      }
      scf.if %first {
        %r = memref.load %acc[] : memref<i32>
        memref.store %r, %Y[%tx] : memref<8xi32>
      }
      gpu.terminator
    }
    return
  }
  func.func private @tessel_block_extent(index, index, index, index) -> index

  func.func @product(%A: memref<?x?xi32>, %X: memref<?xi32>, %Y: memref<8xi32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c10 = arith.constant 10 : index
    %zero = arith.constant 0 : i32
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1) {
      %acc = memref.alloca() : memref<i32>
      memref.store %zero, %acc[] : memref<i32>
      scf.for %t = %c0 to %c3 step %c1 {
        %sA = tgpu.alloc_shared [8, 4] padding [0, 0] : memref<8x4xi32, #gpu.address_space<workgroup>>
        %sX = tgpu.alloc_shared [4] padding [0] : memref<4xi32, #gpu.address_space<workgroup>>
        %j0 = arith.muli %t, %c4 : index
        tgpu.tile_copy %A to %sA offsets [%c0, %j0] tile [8, 4]
            : memref<?x?xi32> to memref<8x4xi32, #gpu.address_space<workgroup>>
        tgpu.tile_copy %X to %sX offsets [%j0] tile [4]
            : memref<?xi32> to memref<4xi32, #gpu.address_space<workgroup>>
        gpu.barrier
        scf.for %jj = %c0 to %c4 step %c1 {
          %j = arith.addi %j0, %jj : index
          %in = arith.cmpi ult, %j, %c10 : index
          scf.if %in {
            %a = memref.load %sA[%tx, %jj] : memref<8x4xi32, #gpu.address_space<workgroup>>
            %x = memref.load %sX[%jj] : memref<4xi32, #gpu.address_space<workgroup>>
            %p = arith.muli %a, %x : i32
            %o = memref.load %acc[] : memref<i32>
            %n = arith.addi %o, %p : i32
            memref.store %n, %acc[] : memref<i32>
          }
        }
        gpu.barrier
      }
      %r = memref.load %acc[] : memref<i32>
      memref.store %r, %Y[%tx] : memref<8xi32>
      gpu.terminator
    }
    return
  }

  func.func @written(%A: memref<8x10xi32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1) {
      scf.for %t = %c0 to %c3 step %c1 {
        %sA = tgpu.alloc_shared [8, 4] padding [0, 0] : memref<8x4xi32, #gpu.address_space<workgroup>>
        %j0 = arith.muli %t, %c4 : index
        tgpu.tile_copy %A to %sA offsets [%c0, %j0] tile [8, 4]
            : memref<8x10xi32> to memref<8x4xi32, #gpu.address_space<workgroup>>
        gpu.barrier
        %v = memref.load %sA[%tx, %c0] : memref<8x4xi32, #gpu.address_space<workgroup>>
        memref.store %v, %A[%tx, %j0] : memref<8x10xi32>
        gpu.barrier
      }
      gpu.terminator
    }
    return
  }

  func.func @loaded(%A: memref<8x10xi32>, %Y: memref<8xi32>, %off: memref<3xindex>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c8 = arith.constant 8 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1) {
      scf.for %t = %c0 to %c3 step %c1 {
        %sA = tgpu.alloc_shared [8, 4] padding [0, 0] : memref<8x4xi32, #gpu.address_space<workgroup>>
        %j0 = memref.load %off[%t] : memref<3xindex>
        tgpu.tile_copy %A to %sA offsets [%c0, %j0] tile [8, 4]
            : memref<8x10xi32> to memref<8x4xi32, #gpu.address_space<workgroup>>
        gpu.barrier
        %v = memref.load %sA[%tx, %c0] : memref<8x4xi32, #gpu.address_space<workgroup>>
        memref.store %v, %Y[%tx] : memref<8xi32>
        gpu.barrier
      }
      gpu.terminator
    }
    return
  }
  func.func private @tessel_print_i32(i32)
}
