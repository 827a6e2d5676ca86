// Min/max bounds written as ternaries (through macros), inclusive bounds, decreasing
// loops (normalized to an increasing counter c with i = -c) and constant steps.
// RUN: tesselc %s --emit=mlir | FileCheck %s
// CHECK-DAG: #[[LB:.*]] = affine_map<(d0) -> (0, d0 - 2)>
// CHECK-DAG: #[[UB:.*]] = affine_map<(d0)[s0] -> (s0, d0 + 3)>
// CHECK-DAG: #[[REV:.*]] = affine_map<()[s0] -> (-s0 + 1)>
// CHECK-DAG: #[[NEG:.*]] = affine_map<(d0) -> (-d0)>
// CHECK-LABEL: func.func @b(
// CHECK: affine.for %[[I:.*]] = 0 to %{{.*}} {
// CHECK-NEXT: affine.for %[[J:.*]] = max #[[LB]](%[[I]]) to min #[[UB]](%[[I]])[%{{.*}}] {
// CHECK: affine.for %[[C:.*]] = #[[REV]]()[%{{.*}}] to 1 {
// CHECK-NEXT: affine.for %[[K:.*]] = 0 to #[[NEG]](%[[C]]) step 2 {
// CHECK-NEXT: affine.load %arg2[-%[[C]], %[[K]]]
// CHECK-NEXT: affine.load %arg2[%[[K]], -%[[C]]]
#define min(a, b) ((a) < (b) ? (a) : (b))
#define max(a, b) ((a) > (b) ? (a) : (b))
void b(int n, int m, double A[100][100]) {
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = max(0, i - 2); j <= min(m - 1, i + 2); j++)
      A[i][j] = A[i][j] + 1.0;
  for (i = n - 1; i >= 0; i--)
    for (j = 0; j < i; j += 2)
      A[i][j] -= A[j][i];
#pragma endscop
}
