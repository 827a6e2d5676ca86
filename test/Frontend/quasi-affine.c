// Quasi-affine subscripts, bounds and conditions: `/` and `%` by positive constants
// become floor divisions (PPCG sec. 2) where the dividend is provably non-negative, or
// where C's truncation cannot differ (a loop empty under both readings, an exact
// division); a remainder is `e - d * floor(e / d)`.
// RUN: tesselc %s --function=quasi --emit=mlir | FileCheck %s
// RUN: tesselc %s --function=bounds --emit=mlir | FileCheck %s --check-prefix=BOUNDS
// RUN: tesselc %s --function=datacond --emit=mlir | FileCheck %s --check-prefix=DATA
// CHECK: #[[SET:.*]] = affine_set<(d0) : (d0 mod 8 - 3 == 0)>
// CHECK-LABEL: func.func @quasi(
// CHECK: affine.for %[[I:.*]] = 0 to
// CHECK: affine.load %{{.*}}[%[[I]] floordiv 3]
// CHECK: affine.store %{{.*}}[%[[I]] floordiv 3]
// CHECK: affine.for %[[K:.*]] = 0 to
// CHECK: affine.if #[[SET]](%[[K]])
// CHECK: affine.store %{{.*}}[%[[K]] floordiv 8, %[[K]] mod 4]
// CHECK: } else {
// CHECK: affine.load %{{.*}}[%[[K]] + 1]
// CHECK: affine.store %{{.*}}[(%[[K]] + 1) floordiv 2]
void quasi(int n, double A[100], double B[100], double C[8][4]) {
  int i, k;
  for (i = 0; i < n; i++)
    B[i / 3] = A[i / 3] + 1.0;
  for (k = 0; k < 32; k++)
    if (k % 8 == 3)
      C[k / 8][k % 4] = 1.0;
    else
      A[(k + 1) / 2] = A[(2 * k + 2) / 2];
}
// An upper bound `n / 2` is exact for every `n`: where `n < 0` the loop runs no
// iteration under either reading. A lower bound gets no such allowance.
// BOUNDS-DAG: #[[UB:.*]] = affine_map<()[s0] -> (s0 floordiv 2)>
// BOUNDS-DAG: #[[LB:.*]] = affine_map<(d0) -> ((d0 + 1) floordiv 2)>
// BOUNDS-LABEL: func.func @bounds(
// BOUNDS: affine.for %[[I:.*]] = 0 to #[[UB]]()
// BOUNDS: affine.for %{{.*}} = #[[LB]](%[[I]]) to 100
void bounds(int n, double A[100][100]) {
  int i, j;
  for (i = 0; i < n / 2; i++)
    for (j = (i + 1) / 2; j < 100; j++)
      A[i][j] = 0.0;
}
// A condition with a dividend that may be negative is evaluated on data instead (it is
// exact as a value); the subscripts under it are plain affine.
// DATA-LABEL: func.func @datacond(
// DATA: arith.remsi
// DATA: scf.if
void datacond(int n, double A[100]) {
  int i;
  for (i = -n; i < n; i++)
    if (i % 3 == 1)
      A[i + n] = 2.0;
}
