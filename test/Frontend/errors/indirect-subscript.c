// RUN: rm -f %t.out
// RUN: not tesselc %s --emit=ptx -o %t.out 2>&1 | FileCheck %s
// RUN: test ! -e %t.out
// CHECK: indirect-subscript.c:11:7: error: non-affine expression: array element used as a subscript or bound
// CHECK-NEXT: A[B[i]] = 0.0;
// CHECK-NEXT: {{^ *\^$}}
void f(int n, double A[100], int B[100]) {
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[B[i]] = 0.0;
#pragma endscop
}
