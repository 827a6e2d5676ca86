// RUN: rm -f %t.out
// RUN: not tesselc %s --emit=ptx -o %t.out 2>&1 | FileCheck %s
// RUN: test ! -e %t.out
// CHECK: nonaffine-subscript.c:12:12: error: non-affine expression: product of two variables
// CHECK-NEXT: A[i][i * j] = 0.0;
// CHECK-NEXT: {{^ *\^$}}
void f(int n, double A[100][100]) {
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      A[i][i * j] = 0.0;
#pragma endscop
}
