// RUN: rm -f %t.out
// RUN: not tesselc %s --emit=ptx -o %t.out 2>&1 | FileCheck %s
// RUN: test ! -e %t.out
// CHECK: unknown-call.c:12:12: error: call to unknown function 'g'
// CHECK-NEXT: A[i] = g(A[i]);
// CHECK-NEXT: {{^ *\^$}}
double g(double);
void f(int n, double A[100]) {
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = g(A[i]);
#pragma endscop
}
