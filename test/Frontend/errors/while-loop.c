// RUN: rm -f %t.out
// RUN: not tesselc %s --emit=ptx -o %t.out 2>&1 | FileCheck %s
// RUN: test ! -e %t.out
// CHECK: while-loop.c:10:3: error: 'while' loop is not a static control part
// CHECK-NEXT: while (i < n)
// CHECK-NEXT: {{^ *\^$}}
void f(int n, double A[100]) {
  int i = 0;
#pragma scop
  while (i < n)
    A[i] = 0.0;
#pragma endscop
}
