// RUN: rm -f %t.out
// RUN: not tesselc %s --emit=ptx -o %t.out 2>&1 | FileCheck %s
// RUN: test ! -e %t.out
// CHECK: clang-error.c:11:12: error: use of undeclared identifier 'undeclared_thing'
// CHECK-NEXT: A[i] = undeclared_thing;
// CHECK-NEXT: {{^ *\^$}}
void f(int n, double A[100]) {
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = undeclared_thing;
#pragma endscop
}
