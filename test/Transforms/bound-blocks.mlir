// RUN: tessel-opt %s --tessel-bound-blocks | FileCheck %s
// A kernel whose y extent the runtime chooses at launch (at most 32) is bounded to the
// largest block of all its launches: 32x32 here, 64x16 in the second launch.
// CHECK-LABEL: gpu.module @tessel_kernels
// CHECK: gpu.func @coarse(%{{.*}}: memref<?xf32>) kernel attributes {nvvm.maxntid = array<i32: 64, 32, 1>}
// A kernel with a known block size keeps what outlining gave it.
// CHECK: gpu.func @known(%{{.*}}: memref<?xf32>) kernel attributes {known_block_size = array<i32: 32, 8, 1>} {
// A kernel launched once with a block the pass cannot bound gets no bound.
// CHECK: gpu.func @unbounded(%{{.*}}: memref<?xf32>) kernel {

module attributes {gpu.container_module} {
  func.func private @tessel_block_extent(index, index, index) -> index
  func.func @host(%a: memref<?xf32>, %n: index) {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c1024 = arith.constant 1024 : index
    %y = func.call @tessel_block_extent(%n, %c1024, %c32) : (index, index, index) -> index
    gpu.launch_func @tessel_kernels::@coarse blocks in (%n, %c1, %c1) threads in (%c32, %y, %c1) args(%a : memref<?xf32>)
    gpu.launch_func @tessel_kernels::@coarse blocks in (%n, %c1, %c1) threads in (%c64, %c16, %c1) args(%a : memref<?xf32>)
    gpu.launch_func @tessel_kernels::@known blocks in (%n, %c1, %c1) threads in (%c32, %c8, %c1) args(%a : memref<?xf32>)
    gpu.launch_func @tessel_kernels::@unbounded blocks in (%n, %c1, %c1) threads in (%c32, %c8, %c1) args(%a : memref<?xf32>)
    gpu.launch_func @tessel_kernels::@unbounded blocks in (%n, %c1, %c1) threads in (%n, %c1, %c1) args(%a : memref<?xf32>)
    return
  }
  gpu.module @tessel_kernels {
    gpu.func @coarse(%a: memref<?xf32>) kernel {
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
