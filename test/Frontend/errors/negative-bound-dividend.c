// A bound whose floor division differs from C's where the loop runs.
// RUN: not tesselc %s -c -o %t.o 2>&1 | FileCheck %s
// CHECK: negative-bound-dividend.c:10:16: error: non-affine expression: the dividend of '/' or '%' may be negative here
// CHECK-NEXT: for (i = -2; i < (n - 1) / 2; i++)
#define N 100
void g(int n, double A[N]) {
  int i;
#pragma scop
  /* n = 0: C runs i = -2 .. -1, the floor reading only i = -2. */
  for (i = -2; i < (n - 1) / 2; i++)
    A[i + 2] = 1.0;
#pragma endscop
}
