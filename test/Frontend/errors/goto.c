// RUN: rm -f %t.out
// RUN: not tesselc %s --emit=ptx -o %t.out 2>&1 | FileCheck %s
// RUN: test ! -e %t.out
// CHECK: goto.c:12:5: error: 'goto' is not supported in a static control part
// CHECK-NEXT: goto out;
// CHECK-NEXT: {{^ *\^$}}
void f(int n, double A[100]) {
  int i;
#pragma scop
  for (i = 0; i < n; i++) {
    A[i] = 1.0;
    goto out;
  }
#pragma endscop
out:;
}
