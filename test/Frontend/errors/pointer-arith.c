// RUN: rm -f %t.out
// RUN: not tesselc %s --emit=ptx -o %t.out 2>&1 | FileCheck %s
// RUN: test ! -e %t.out
// CHECK: pointer-arith.c:11:5: error: pointer dereference is not supported (pointer arithmetic)
// CHECK-NEXT: *(A + i) = 0.0;
// CHECK-NEXT: {{^ *\^$}}
void f(int n, double A[100]) {
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    *(A + i) = 0.0;
#pragma endscop
}
