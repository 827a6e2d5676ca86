// A min or max bound written with an equivalent condition rather than the two values it
// picks between (pet reads any affine conditional as a piecewise-affine expression),
// nested min/max, and conditionals that are neither, which stay errors.
// RUN: tesselc %s --function=equiv --emit=mlir | FileCheck %s
// RUN: not tesselc %s --function=notmin --emit=mlir 2>&1 | FileCheck %s --check-prefix=NOTMIN
// RUN: not tesselc %s --function=convex --emit=mlir 2>&1 | FileCheck %s --check-prefix=CONVEX
// RUN: not tesselc %s --function=rest --emit=mlir 2>&1 | FileCheck %s --check-prefix=REST
// CHECK-DAG: #[[UB:.*]] = affine_map<()[s0, s1] -> (s1 + 3, s0)>
// CHECK-DAG: #[[LB:.*]] = affine_map<(d0) -> (d0 - 1, 0)>
// CHECK-DAG: #[[UB3:.*]] = affine_map<()[s0, s1] -> (s0, 50, s1)>
// CHECK-LABEL: func.func @equiv(
// CHECK: affine.for %[[I:.*]] = 0 to min #[[UB]]()[%{{.*}}, %{{.*}}] {
// CHECK: affine.for %{{.*}} = max #[[LB]](%[[I]]) to 100 {
// CHECK: affine.for %{{.*}} = 0 to min #[[UB3]]()[%{{.*}}, %{{.*}}] {
void equiv(int n, int w, double A[100][100]) {
  int i, j;
  for (i = 0; i < (w < n - 3 ? w + 3 : n); i++)
    for (j = (i - 1 >= 0 ? i - 1 : 0); j < 100; j++)
      A[i][j] = A[i][j] + 1.0;
  for (i = 0; i < (n < w ? (n < 50 ? n : 50) : (w < 50 ? w : 50)); i++)
    A[i][0] = 2.0;
}
// NOTMIN: bounds-equivalent.c:[[@LINE+3]]:20: error: non-affine loop bound: conditional that is not a min or max
void notmin(int n, int w, double A[100]) {
  int i;
  for (i = 0; i < (w < n - 4 ? w + 3 : n); i++)
    A[i] = 1.0;
}
// CONVEX: bounds-equivalent.c:[[@LINE+3]]:20: error: non-affine loop bound: max in an upper bound is not convex
void convex(int n, int w, double A[100]) {
  int i;
  for (i = 0; i < (w + 3 > n ? w + 3 : n); i++)
    A[i] = 1.0;
}
// A nested ternary is a min of all its values only when both branches share the rest.
// REST: bounds-equivalent.c:[[@LINE+3]]:20: error: non-affine loop bound: conditional that is not a min or max
void rest(int n, int w, double A[100]) {
  int i;
  for (i = 0; i < (n < w ? (n < 50 ? n : 50) : (w < 60 ? w : 60)); i++)
    A[i] = 1.0;
}
