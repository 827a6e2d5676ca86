// RUN: rm -f %t.out
// RUN: not tesselc %s --emit=ptx -o %t.out 2>&1 | FileCheck %s
// RUN: test ! -e %t.out
// CHECK: global-scalar-write.c:12:5: error: file-scope scalar 'total' is assigned in the region; only local scalars may be written
// CHECK-NEXT: total += A[i];
// CHECK-NEXT: {{^ *\^$}}
double total;
void f(int n, double A[100]) {
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    total += A[i];
#pragma endscop
}
