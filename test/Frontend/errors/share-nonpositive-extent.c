// A share partition of constant extent zero or less is refused at the pragma.
// RUN: rm -f %t.out
// RUN: not tesselc %s --emit=mlir -o %t.out 2>&1 | FileCheck %s
// RUN: test ! -e %t.out
// CHECK: share-nonpositive-extent.c:7:22: error: share pragma: extent 1 of 'A' is -1; constant extents must be positive
// CHECK-NEXT: #pragma tessel share(A[TBY][1-2])
#pragma tessel share(A[TBY][1-2])
void f(int n, float A[64][64], float B[64][64]) {
#pragma scop
  for (int i = 0; i < 64; i++)
    for (int j = 0; j < 64; j++)
      B[i][j] = A[i][j] * 2;
#pragma endscop
}
