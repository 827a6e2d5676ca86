// RUN: rm -f %t.out
// RUN: not tesselc %s --emit=ptx -o %t.out 2>&1 | FileCheck %s
// RUN: test ! -e %t.out
// CHECK: do-loop.c:10:3: error: 'do' loop is not a static control part
// CHECK-NEXT: do { A[0] = 1.0; } while (0);
// CHECK-NEXT: {{^ *\^$}}
void f(int n, double A[100]) {
  int i = 0;
#pragma scop
  do { A[0] = 1.0; } while (0);
#pragma endscop
}
