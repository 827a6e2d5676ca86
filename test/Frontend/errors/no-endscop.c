// RUN: rm -f %t.out
// RUN: not tesselc %s --emit=ptx -o %t.out 2>&1 | FileCheck %s
// RUN: test ! -e %t.out
// CHECK: no-endscop.c:9:1: error: '#pragma scop' without a matching '#pragma endscop'
// CHECK-NEXT: #pragma scop
// CHECK-NEXT: {{^ *\^$}}
void f(int n, double A[100]) {
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = 0.0;
}
