// Every region's error is reported (as clang reports every error of a file), then the
// count; no output.
// RUN: rm -f %t.o
// RUN: not tesselc %s -c -o %t.o 2>&1 | FileCheck %s
// RUN: test ! -e %t.o
// CHECK: several-regions.c:[[@LINE+6]]:5: error: 'while' loop is not a static control part
// CHECK: several-regions.c:[[@LINE+12]]:26: error: 'for' increment must add a constant to the iterator
// CHECK: {{^}}2 errors generated.
void f(int n, double A[100]) {
#pragma scop
  for (int i = 0; i < n; i++)
    while (0)
      A[i] = 1.0;
#pragma endscop
}

void g(int n, double A[100]) {
#pragma scop
  for (int i = 0; i < n; i += n)
    A[i] = 0;
#pragma endscop
}
