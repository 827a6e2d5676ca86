// A remainder of a dividend that may be negative: C truncates, isl rounds down.
// RUN: rm -f %t.out
// RUN: not tesselc %s --emit=ptx -o %t.out 2>&1 | FileCheck %s
// RUN: test ! -e %t.out
// CHECK: modulo-subscript.c:12:7: error: non-affine expression: the dividend of '/' or '%' may be negative here, where C's truncating division differs from the floor division of the polyhedral model
// CHECK-NEXT: A[i % 4 + 4] = 0.0;
// CHECK-NEXT: {{^ *\^$}}
void f(int n, double A[100]) {
  int i;
#pragma scop
  for (i = -n; i < n; i++)
    A[i % 4 + 4] = 0.0;
#pragma endscop
}
