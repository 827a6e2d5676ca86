// RUN: rm -f %t.out
// RUN: not tesselc %s --emit=ptx -o %t.out 2>&1 | FileCheck %s
// RUN: test ! -e %t.out
// CHECK: nonaffine-subscript.c:11:21: error: non-affine expression: product of two variables
// CHECK-NEXT: for (j = 0; j < i * i; j++)
// CHECK-NEXT: {{^ *\^$}}
void f(int n, double A[100][100]) {
  int i, j;
#pragma scop
  for (i = 0; i < 10; i++)
    for (j = 0; j < i * i; j++)
      A[i][j] = 0.0;
#pragma endscop
}
