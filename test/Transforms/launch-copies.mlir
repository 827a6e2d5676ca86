// RUN: tessel-opt %s --tessel-launch-copies | FileCheck %s
// Upstream MLIR's route to the GPU, then the copies: the kernels run on sim, which
// faults on any access outside device memory, and print what the host loop prints.
// RUN: tessel-opt %s --pass-pipeline='builtin.module(func.func(affine-parallelize), lower-affine, canonicalize, cse, loop-invariant-code-motion, func.func(gpu-map-parallel-loops), convert-parallel-loops-to-gpu, tessel-launch-copies)' -o %t.mlir
// RUN: FileCheck %s --check-prefix=UPSTREAM --input-file=%t.mlir
// RUN: tessel-run %t.mlir --device=sim | FileCheck %s --check-prefix=OUT
// RUN: tessel-run %s --device=sim | FileCheck %s --check-prefix=OUT

// A hand-written launch: %A is read and written (copied in and back), %B only read
// (copied in only), %n is not a memref.
// CHECK-LABEL: func.func @launch(
// CHECK-SAME: %[[A:[^:]+]]: memref<?xf32>, %[[B:[^:]+]]: memref<16xf32>
// CHECK-DAG: %[[N:.*]] = memref.dim %[[A]], %{{.*}} : memref<?xf32>
// CHECK-DAG: %[[DA:.*]] = gpu.alloc (%[[N]]) : memref<?xf32>
// CHECK-DAG: gpu.memcpy %[[DA]], %[[A]] : memref<?xf32>, memref<?xf32>
// CHECK-DAG: %[[DB:.*]] = gpu.alloc () : memref<16xf32>
// CHECK-DAG: gpu.memcpy %[[DB]], %[[B]] : memref<16xf32>, memref<16xf32>
// CHECK: gpu.launch {{.*}} module(@tessel_kernels) function(@launch_u0)
// CHECK: memref.load %[[DB]]
// CHECK: memref.store %{{.*}}, %[[DA]]
// CHECK: gpu.terminator
// CHECK-NOT: gpu.memcpy %[[B]]
// CHECK-DAG: gpu.memcpy %[[A]], %[[DA]] : memref<?xf32>, memref<?xf32>
// CHECK-DAG: gpu.dealloc %[[DA]] : memref<?xf32>
// CHECK-DAG: gpu.dealloc %[[DB]] : memref<16xf32>
// CHECK: return
func.func @launch(%A: memref<?xf32>, %B: memref<16xf32>, %n: index) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %n, %sy = %c1, %sz = %c1) {
    %v = memref.load %B[%tx] : memref<16xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %A[%tx] : memref<?xf32>
    gpu.terminator
  }
  return
}

// The upstream route on a host loop around two parallel nests: one launch each, per
// iteration, with its own copies.
// UPSTREAM-LABEL: func.func @main(
// UPSTREAM: gpu.launch {{.*}} module(@tessel_kernels) function(@main_u0)
// UPSTREAM: scf.for
// UPSTREAM: gpu.alloc
// UPSTREAM: gpu.launch {{.*}} module(@tessel_kernels) function(@main_u1)
// UPSTREAM: gpu.dealloc
// UPSTREAM: gpu.launch {{.*}} module(@tessel_kernels) function(@main_u2)
// OUT: 3136
func.func @main() {
  %A = memref.alloc() : memref<8x8xi64>
  %B = memref.alloc() : memref<8x8xi64>
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 8 {
      %ii = arith.index_cast %i : index to i64
      %jj = arith.index_cast %j : index to i64
      %v = arith.addi %ii, %jj : i64
      affine.store %v, %A[%i, %j] : memref<8x8xi64>
    }
  }
  affine.for %t = 0 to 3 {
    affine.for %i = 0 to 8 {
      affine.for %j = 0 to 8 {
        %a = affine.load %A[%i, %j] : memref<8x8xi64>
        %b = arith.addi %a, %a : i64
        affine.store %b, %B[%i, %j] : memref<8x8xi64>
      }
    }
    affine.for %i = 0 to 8 {
      affine.for %j = 0 to 8 {
        %b = affine.load %B[%i, %j] : memref<8x8xi64>
        %c = arith.constant 1 : i64
        %d = arith.subi %b, %c : i64
        affine.store %d, %A[%i, %j] : memref<8x8xi64>
      }
    }
  }
  %s = memref.alloc() : memref<i64>
  %z = arith.constant 0 : i64
  memref.store %z, %s[] : memref<i64>
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 8 {
      %a = affine.load %A[%i, %j] : memref<8x8xi64>
      %acc = memref.load %s[] : memref<i64>
      %n = arith.addi %acc, %a : i64
      memref.store %n, %s[] : memref<i64>
    }
  }
  %r = memref.load %s[] : memref<i64>
  func.call @tessel_print_i64(%r) : (i64) -> ()
  return
}
func.func private @tessel_print_i64(i64)
