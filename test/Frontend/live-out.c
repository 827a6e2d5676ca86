// Variables of the function declared outside the region: scalars come by reference
// (memref<T> arguments after the C parameters), local arrays as memref arguments, and
// an iterator read after its loop gets its final value in a scalar.
// RUN: tesselc %s --emit=mlir | FileCheck %s
// RUN: tesselc %s --emit=gpu | FileCheck %s --check-prefix=GPU

// CHECK-LABEL: func.func @dot(
// CHECK-SAME: %[[N:.*]]: i32, %[[X:.*]]: memref<64xf64>, %[[Y:.*]]: memref<64xf64>, %[[S:.*]]: memref<f64>)
// CHECK: affine.store %{{.*}}, %[[S]][]
// CHECK: affine.for
// CHECK: affine.load %[[S]][]
// GPU-LABEL: func.func @dot(
// GPU-SAME: %[[S:[^:]*]]: memref<f64>)
// The region sets s before reading it: its device copy starts empty (isl's dataflow)
// and comes back after the region.
// GPU: %[[SD:.*]] = gpu.alloc () : memref<f64>
// GPU-NOT: gpu.memcpy %[[SD]], %[[S]]
// GPU: gpu.memcpy %[[S]], %[[SD]]
double dot(int n, double x[64], double y[64]) {
  int i;
  double s;
#pragma scop
  s = 0;
  for (i = 0; i < n; i++)
    s += x[i] * y[i];
#pragma endscop
  return s;
}

// The iterator's final value max(n, 0) for `i < n`, and for a reversed strided loop.
// CHECK-LABEL: func.func @last(
// CHECK-SAME: memref<64xf64>, %[[I:.*]]: memref<i32>, %[[J:.*]]: memref<i32>, %[[L:.*]]: memref<64xf64>)
// CHECK: affine.for
// CHECK: %[[UB:.*]] = arith.index_cast
// CHECK: %[[LB:.*]] = arith.index_cast
// CHECK: %[[F:.*]] = arith.maxsi %[[UB]], %[[LB]] : i32
// CHECK: affine.store %[[F]], %[[I]][]
// CHECK: affine.for
// CHECK: affine.load %[[L]]
// CHECK: arith.divsi
// CHECK: %[[FJ:.*]] = arith.subi %c0_i32, %{{.*}} : i32
// CHECK: affine.store %[[FJ]], %[[J]][]
// The local array is passed in, not allocated.
// CHECK-NOT: memref.alloc
void last(int n, double A[64]) {
  int i, j;
  double L[64];
#pragma scop
  for (i = 0; i < n; i++)
    L[i] = A[i];
  for (j = n - 1; j >= 0; j -= 3)
    A[j] = L[j] + 1;
#pragma endscop
  A[0] = i + j;
}
