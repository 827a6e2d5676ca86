// RUN: rm -f %t.out
// RUN: not tesselc %s --emit=ptx -o %t.out 2>&1 | FileCheck %s
// RUN: test ! -e %t.out
// CHECK: share-unknown-array.c:9:19: error: share pragma names 'Q', which is not an array used in the region
// CHECK-NEXT: #pragma acc share(Q[TBX])
// CHECK-NEXT: {{^ *\^$}}
void f(int n, double A[100]) {
  int i;
#pragma acc share(Q[TBX])
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = 0.0;
#pragma endscop
}
