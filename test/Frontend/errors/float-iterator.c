// RUN: rm -f %t.out
// RUN: not tesselc %s --emit=ptx -o %t.out 2>&1 | FileCheck %s
// RUN: test ! -e %t.out
// CHECK: float-iterator.c:8:10: error: loop iterator must have an integer type
// CHECK-NEXT: double x;
// CHECK-NEXT: {{^ *\^$}}
void f(int n, double A[100]) {
  double x;
#pragma scop
  for (x = 0.0; x < n; x++)
    A[0] = x;
#pragma endscop
}
