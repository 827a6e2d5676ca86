// A loop condition compared in unsigned arithmetic where a side may be negative: C
// converts it to a large unsigned value (i = -3 is not below u; j - 1 at j = 0 is
// UINT_MAX; j >= 0 always holds), the polyhedral model would not. Refused rather than
// run otherwise.
// RUN: rm -f %t.out
// RUN: not tesselc %s --emit=ptx -o %t.out 2>&1 | FileCheck %s
// RUN: test ! -e %t.out
// CHECK: unsigned-compare.c:16:16: error: 'for' condition compares in unsigned arithmetic, and the iterator or its bound may be negative here, where C wraps it around to a large value (use signed types)
// CHECK: unsigned-compare.c:19:21: error: 'for' condition compares in unsigned arithmetic
// CHECK: unsigned-compare.c:23:16: error: 'for' condition compares in unsigned arithmetic
// CHECK-NOT: error:
void f(unsigned u, int n, double A[100], double B[100][100]) {
  int i;
  unsigned j, l;
#pragma scop
  for (i = -3; i < u; i++)
    A[i + 3] = 1.0;
  for (j = 0; j < 10; j++)
    for (l = j - 1; l < j; l++)
      B[j][l + 1] = 2.0;
  for (j = 10; j >= 1; j--)
    A[j] = 3.0;
  for (j = 10; j >= 0; j--)
    A[j] = 4.0;
  for (j = 0; j < u; j++)
    A[j] = A[j] + 1.0;
#pragma endscop
}
