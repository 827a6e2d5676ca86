// RUN: not tesselc %s -c -o %t.o 2>&1 | FileCheck %s
// CHECK: divide-by-variable.c:8:19: error: non-affine expression: division or remainder by a variable
#define N 100
void f(int n, int m, double A[N]) {
  int i;
#pragma scop
  /* A subscript may be computed from data; a bound may not. */
  for (i = 0; i < n / m; i++)
    A[i / m] = 0.0;
#pragma endscop
}
