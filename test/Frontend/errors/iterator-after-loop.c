// RUN: rm -f %t.out
// RUN: not tesselc %s --emit=ptx -o %t.out 2>&1 | FileCheck %s
// RUN: test ! -e %t.out
// After its loop an iterator is a scalar holding its final value: a value, but not an
// affine subscript.
// CHECK: iterator-after-loop.c:14:5: error: non-affine expression: 'i' is not a loop iterator or an integer parameter
// CHECK-NEXT: A[i] = i;
// CHECK-NEXT: {{^ *\^$}}
void f(int n, double A[100]) {
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = 0.0;
  A[i] = i;
#pragma endscop
}
