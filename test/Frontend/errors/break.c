// RUN: rm -f %t.out
// RUN: not tesselc %s --emit=ptx -o %t.out 2>&1 | FileCheck %s
// RUN: test ! -e %t.out
// CHECK: break.c:12:7: error: 'break' is not supported in a static control part
// CHECK-NEXT: break;
// CHECK-NEXT: {{^ *\^$}}
void f(int n, double A[100]) {
  int i;
#pragma scop
  for (i = 0; i < n; i++) {
    if (A[i] > 1.0)
      break;
  }
#pragma endscop
}
