// RUN: rm -f %t.out
// RUN: not tesselc %s --emit=ptx -o %t.out 2>&1 | FileCheck %s
// RUN: test ! -e %t.out
// CHECK: iterator-after-loop.c:12:10: error: loop iterator 'i' is used after its loop
// CHECK-NEXT: A[0] = i;
// CHECK-NEXT: {{^ *\^$}}
void f(int n, double A[100]) {
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = 0.0;
  A[0] = i;
#pragma endscop
}
