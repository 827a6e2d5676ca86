// RUN: rm -f %t.out
// RUN: not tesselc %s --emit=ptx -o %t.out 2>&1 | FileCheck %s
// RUN: test ! -e %t.out
// CHECK: assign-in-expr.c:11:13: error: assignment inside an expression is not supported
// CHECK-NEXT: A[i] = (B[i] = 0.0) + 1.0;
// CHECK-NEXT: {{^ *\^$}}
void f(int n, double A[100], double B[100]) {
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = (B[i] = 0.0) + 1.0;
#pragma endscop
}
