// RUN: rm -f %t.out
// RUN: not tesselc %s --emit=ptx -o %t.out 2>&1 | FileCheck %s
// RUN: test ! -e %t.out
// CHECK: nonaffine-bound.c:10:19: error: non-affine expression: product of two variables
// CHECK-NEXT: for (i = 0; i < n * n; i++)
// CHECK-NEXT: {{^ *\^$}}
void f(int n, double A[100]) {
  int i;
#pragma scop
  for (i = 0; i < n * n; i++)
    A[i] = 0.0;
#pragma endscop
}
