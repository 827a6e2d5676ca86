// Arrays declared inside the region are allocated for the region's duration (sizes
// affine in the parameters), on the device in the GPU form, never copied in or out.
// RUN: tesselc %s --function=f --emit=mlir | FileCheck %s
// RUN: tesselc %s --function=f --emit=gpu | FileCheck %s --check-prefix=GPU
// RUN: not tesselc %s --function=bad --emit=mlir 2>&1 | FileCheck %s --check-prefix=BAD
// CHECK-LABEL: func.func @f(
// CHECK-SAME: %[[N:[^:]*]]: i32, %{{.*}}: memref<16xf64>)
// CHECK: %[[T:.*]] = memref.alloc() : memref<16xf64>
// CHECK: %[[V:.*]] = memref.alloc(%{{.*}}) : memref<?xf64>
// CHECK: tpoly.scop {
// CHECK: affine.store %{{.*}}, %[[T]]
// CHECK: affine.store %{{.*}}, %[[V]]
// CHECK: memref.dealloc %[[T]]
// CHECK: memref.dealloc %[[V]]
// GPU-LABEL: func.func @f(
// GPU: %[[A:.*]] = gpu.alloc () : memref<16xf64>
// GPU-NEXT: gpu.memcpy %[[A]]
// GPU-NEXT: %[[T:.*]] = gpu.alloc () : memref<16xf64>
// GPU-NOT: gpu.memcpy %[[T]]
// GPU-NOT: gpu.memcpy %{{.*}}, %[[T]]
// GPU: gpu.dealloc %[[T]]
void f(int n, double A[16]) {
  int i;
  double tmp[16];
  double v[2 * n + 1];
  for (i = 0; i < 16; i++)
    tmp[i] = A[i] * 2;
  for (i = 0; i <= 2 * n; i++)
    v[i] = i;
  for (i = 0; i < 16; i++)
    A[i] = tmp[15 - i] + v[0];
}
// BAD: region-arrays.c:[[@LINE+4]]:12: error: array 'w' declared inside the region has a size that is not affine in the function's parameters
void bad(int n, double A[16]) {
  int i;
  for (i = 0; i < n; i++) {
    double w[i + 1];
    w[0] = A[i];
    A[i] = w[0];
  }
}
