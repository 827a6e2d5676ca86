// RUN: rm -f %t.out
// RUN: not tesselc %s --emit=ptx -o %t.out 2>&1 | FileCheck %s
// RUN: test ! -e %t.out
// CHECK: struct.c:13:14: error: struct member access is not supported
// CHECK-NEXT: s = A[i].x;
// CHECK-NEXT: {{^ *\^$}}
struct P { double x; };
void f(int n, struct P A[100]) {
  int i;
  double s;
#pragma scop
  for (i = 0; i < n; i++)
    s = A[i].x;
#pragma endscop
}
