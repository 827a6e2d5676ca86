// RUN: rm -f %t.out
// RUN: not tesselc %s --emit=ptx -o %t.out 2>&1 | FileCheck %s
// RUN: test ! -e %t.out
// CHECK: return.c:12:3: error: 'return' is not supported in a static control part
// CHECK-NEXT: return;
// CHECK-NEXT: {{^ *\^$}}
void f(int n, double A[100]) {
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = 0.0;
  return;
#pragma endscop
}
