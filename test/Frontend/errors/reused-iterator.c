// A loop whose header assigns an enclosing loop's iterator: in C the inner loop leaves
// i at n, so the outer loop runs once; a scop's loops are independent, so it would run
// n times. Found in a modified PolyBench 3.2 2mm.
// RUN: rm -f %t.out
// RUN: not tesselc %s --emit=ptx -o %t.out 2>&1 | FileCheck %s
// RUN: test ! -e %t.out
// CHECK: reused-iterator.c:15:12: error: 'for' loop assigns 'i', the iterator of an enclosing loop
// CHECK-NEXT: for (i = 0; i < n; i++)
// CHECK-NEXT: {{^ *\^$}}
void f(int n, double A[100]) {
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    for (j = 0; j < n; j++)
      for (i = 0; i < n; i++)
        A[i] = A[i] + 1.0;
  }
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      A[j] = A[j] * 2.0;
#pragma endscop
}
