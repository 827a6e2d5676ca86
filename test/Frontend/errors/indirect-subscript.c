// An array element in a loop bound (a subscript computed from data is accepted, a bound
// is not).
// RUN: rm -f %t.out
// RUN: not tesselc %s --emit=ptx -o %t.out 2>&1 | FileCheck %s
// RUN: test ! -e %t.out
// CHECK: indirect-subscript.c:13:21: error: non-affine expression: array element used in a loop bound
// CHECK-NEXT: for (j = 0; j < B[i]; j++)
// CHECK-NEXT: {{^ *\^$}}
void f(int n, double A[100][100], int B[100]) {
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < B[i]; j++)
      A[i][j] = 0.0;
#pragma endscop
}
