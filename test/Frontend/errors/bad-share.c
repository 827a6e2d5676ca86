// RUN: rm -f %t.out
// RUN: not tesselc %s --emit=ptx -o %t.out 2>&1 | FileCheck %s
// RUN: test ! -e %t.out
// CHECK: bad-share.c:7:29: error: expected an integer, TBX, TBY, TBZ, an operator or '*' in a share partition
// CHECK-NEXT: #pragma tessel share(A[TBX][+])
// CHECK-NEXT: {{^ *\^$}}
#pragma tessel share(A[TBX][+])
void f(int n, double A[100][100]) {
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i][0] = 0.0;
#pragma endscop
}
