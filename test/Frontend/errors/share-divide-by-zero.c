// A share partition divided by zero is refused at the pragma, with nothing written.
// RUN: rm -f %t.out
// RUN: not tesselc %s --emit=mlir -o %t.out 2>&1 | FileCheck %s
// RUN: test ! -e %t.out
// CHECK: share-divide-by-zero.c:8:22: error: share pragma: 'TBX/0' is not an extent of 'A' (integers, TBX, TBY and TBZ with +, -, * and / by a positive divisor)
// CHECK-NEXT: #pragma tessel share(A[TBY][TBX/0])
// CHECK-NEXT: {{^ *\^$}}
#pragma tessel share(A[TBY][TBX/0])
void f(int n, float A[64][64], float B[64][64]) {
#pragma scop
  for (int i = 0; i < 64; i++)
    for (int j = 0; j < 64; j++)
      B[i][j] = A[i][j] * 2;
#pragma endscop
}
