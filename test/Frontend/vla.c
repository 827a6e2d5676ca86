// C99 VLA parameters become dynamically shaped memrefs; --function compiles a whole
// function that has no scop pragma.
// RUN: tesselc %s --emit=mlir | FileCheck %s
// RUN: tesselc %s --function notascop --emit=mlir | FileCheck %s --check-prefix=FUNC
// CHECK-LABEL: func.func @v(%arg0: i32, %arg1: i32, %arg2: memref<?x?xf64>, %arg3: memref<?xf64>, %arg4: memref<?xf64>)
// CHECK: affine.load %arg2[%{{.*}}, %{{.*}}] : memref<?x?xf64>
// CHECK-NOT: func.func @notascop
// FUNC-NOT: func.func @v
// FUNC-LABEL: func.func @notascop(
// FUNC: affine.for %[[I:.*]] = 1 to
// FUNC-NEXT: affine.load %arg1[%[[I]] - 1]
void v(int n, int m, double A[n][m], double x[m], double y[n]) {
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    y[i] = 0.0;
    for (j = 0; j < m; j++)
      y[i] += A[i][j] * x[j];
  }
#pragma endscop
}
void notascop(int n, double A[n]) {
  int i;
  for (i = 1; i < n; i++)
    A[i] = A[i - 1] * 2.0;
}
