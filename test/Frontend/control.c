// Scalars live across statements, math calls, affine and data conditions, a
// ternary select, a file-scope global array, a statement outside every loop.
// RUN: tesselc %s --emit=mlir | FileCheck %s
// CHECK-DAG: #[[SET:.*]] = affine_set<(d0)[s0] : (d0 - 1 >= 0, -d0 + s0 - 2 >= 0)>
// CHECK: memref.global @G : memref<32xf64>
// Scalars declared outside the region come by reference, after the C parameters.
// CHECK-LABEL: func.func @c(
// CHECK-SAME: %{{.*}}: i32, %{{.*}}: memref<32xf64>, %{{.*}}: memref<32xf64>, %[[S:.*]]: memref<f64>, %[[T:.*]]: memref<f64>)
// CHECK: %[[G:.*]] = memref.get_global @G
// CHECK-NOT: memref.alloca
// Those the region assigns and nothing reads after it are local to the scop: a buffer
// at its top, with a copy of the value from before the region.
// CHECK: tpoly.scop {
// CHECK-NEXT: %[[SL:.*]] = memref.alloca() : memref<f64>
// CHECK-NEXT: %[[SV:.*]] = affine.load %[[S]][] : memref<f64>
// CHECK-NEXT: affine.store %[[SV]], %[[SL]][] : memref<f64>
// CHECK-NEXT: %[[TL:.*]] = memref.alloca() : memref<f64>
// CHECK-NEXT: %[[TV:.*]] = affine.load %[[T]][] : memref<f64>
// CHECK-NEXT: affine.store %[[TV]], %[[TL]][] : memref<f64>
// CHECK: affine.store %{{.*}}, %[[SL]][] : memref<f64>
// CHECK: math.absf
// CHECK-NEXT: math.sqrt
// CHECK: math.exp
// CHECK: math.powf
// CHECK: affine.store %{{.*}}, %[[TL]][]
// CHECK: affine.if #[[SET]](%{{.*}})[%{{.*}}] {
// CHECK: affine.store %{{.*}}, %[[G]]
// CHECK: %[[CMP:.*]] = arith.cmpf ogt
// CHECK-NEXT: scf.if %[[CMP]] {
// CHECK: arith.select
// CHECK: affine.store %{{.*}}, %arg1[0]
#include <math.h>
double G[32];
void c(int n, double A[32], double B[32]) {
  int i;
  double t, s;
#pragma scop
  s = 0.0;
  for (i = 0; i < n; i++) {
    t = sqrt(fabs(A[i])) + exp(B[i]) + pow(A[i], 2.0);
    if (i >= 1 && i < n - 1)
      G[i] = t;
    if (A[i] > B[i])
      B[i] = A[i] > 0.0 ? t : -t;
    s += t;
  }
  A[0] = s;
#pragma endscop
}
