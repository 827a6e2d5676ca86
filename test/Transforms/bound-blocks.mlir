// RUN: tessel-opt %s --tessel-bound-blocks | FileCheck %s
// A kernel whose y extent the runtime chooses at launch (at most 32) is bounded to the
// largest block of all its launches: 32x32 here, 64x16 in the second launch.
// CHECK-LABEL: gpu.module @tessel_kernels
// CHECK: gpu.func @coarse(%{{.*}}: memref<?xf32>) kernel attributes {nvvm.maxntid = array<i32: 64, 32, 1>}
// Its ids learn the bound: the x size differs between the launches (32, 64), z is 1 at
// both, so it is the constant.
// CHECK-DAG: %[[Z:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[BX:.*]] = gpu.block_dim  x upper_bound 64
// CHECK-DAG: %[[TX:.*]] = gpu.thread_id  x upper_bound 64
// CHECK-DAG: %[[TZ:.*]] = gpu.thread_id  z upper_bound 1
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[BX]]]
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[Z]]]
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[TX]]]
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[TZ]]]
// A kernel launched with 32 threads along x at every launch: its x size is 32, its y
// size at most the extent's bound.
// CHECK: gpu.func @ids(%{{.*}}: memref<?xf32>) kernel attributes {nvvm.maxntid = array<i32: 32, 16, 1>}
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG: %[[BY:.*]] = gpu.block_dim  y upper_bound 16
// CHECK-DAG: %[[TY:.*]] = gpu.thread_id  y upper_bound 16
// CHECK-NOT: gpu.block_dim  x
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[C32]]]
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[BY]]]
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[TY]]]
// A kernel with a known block size keeps what outlining gave it.
// CHECK: gpu.func @known(%{{.*}}: memref<?xf32>) kernel attributes {known_block_size = array<i32: 32, 8, 1>} {
// A kernel launched once with a block the pass cannot bound gets no bound.
// CHECK: gpu.func @unbounded(%{{.*}}: memref<?xf32>) kernel {

module attributes {gpu.container_module} {
  func.func private @tessel_block_extent(index, index, index, index) -> index
  func.func @host(%a: memref<?xf32>, %n: index) {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c1024 = arith.constant 1024 : index
    %y = func.call @tessel_block_extent(%n, %c1024, %c32, %c4) : (index, index, index, index) -> index
    gpu.launch_func @tessel_kernels::@coarse blocks in (%n, %c1, %c1) threads in (%c32, %y, %c1) args(%a : memref<?xf32>)
    gpu.launch_func @tessel_kernels::@coarse blocks in (%n, %c1, %c1) threads in (%c64, %c16, %c1) args(%a : memref<?xf32>)
    %y16 = func.call @tessel_block_extent(%n, %c1024, %c16, %c8) : (index, index, index, index) -> index
    gpu.launch_func @tessel_kernels::@ids blocks in (%n, %c1, %c1) threads in (%c32, %y16, %c1) args(%a : memref<?xf32>)
    gpu.launch_func @tessel_kernels::@ids blocks in (%n, %c1, %c1) threads in (%c32, %c8, %c1) args(%a : memref<?xf32>)
    gpu.launch_func @tessel_kernels::@known blocks in (%n, %c1, %c1) threads in (%c32, %c8, %c1) args(%a : memref<?xf32>)
    gpu.launch_func @tessel_kernels::@unbounded blocks in (%n, %c1, %c1) threads in (%c32, %c8, %c1) args(%a : memref<?xf32>)
    gpu.launch_func @tessel_kernels::@unbounded blocks in (%n, %c1, %c1) threads in (%n, %c1, %c1) args(%a : memref<?xf32>)
    return
  }
  gpu.module @tessel_kernels {
    gpu.func @coarse(%a: memref<?xf32>) kernel {
      %f = arith.constant 0.0 : f32
      %bx = gpu.block_dim x
      %bz = gpu.block_dim z
      %tx = gpu.thread_id x
      %tz = gpu.thread_id z
      memref.store %f, %a[%bx] : memref<?xf32>
      memref.store %f, %a[%bz] : memref<?xf32>
      memref.store %f, %a[%tx] : memref<?xf32>
      memref.store %f, %a[%tz] : memref<?xf32>
      gpu.return
    }
    gpu.func @ids(%a: memref<?xf32>) kernel {
      %f = arith.constant 0.0 : f32
      %bx = gpu.block_dim x
      %by = gpu.block_dim y
      %ty = gpu.thread_id y
      memref.store %f, %a[%bx] : memref<?xf32>
      memref.store %f, %a[%by] : memref<?xf32>
      memref.store %f, %a[%ty] : memref<?xf32>
      gpu.return
    }
    gpu.func @known(%a: memref<?xf32>) kernel attributes {known_block_size = array<i32: 32, 8, 1>} {
      gpu.return
    }
    gpu.func @unbounded(%a: memref<?xf32>) kernel {
      gpu.return
    }
  }
}
