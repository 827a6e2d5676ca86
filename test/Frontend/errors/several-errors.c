// Every error of a region is reported, not only the first: lowering goes on with the
// next statement after one it cannot handle (a declaration it cannot handle stops it,
// since later statements would miss the variable). At most 20, as clang's -ferror-limit.
// RUN: rm -f %t.o
// RUN: not tesselc %s -c -o %t.o 2>&1 | FileCheck %s
// RUN: test ! -e %t.o
// RUN: not tesselc %s --function=many --emit=mlir 2>&1 | FileCheck %s --check-prefix=LIMIT
double g(double);
void f(int n, double A[100], double B[100]) {
#pragma scop
  for (int i = 0; i < n; i++) {
    // CHECK: several-errors.c:[[@LINE+1]]:12: error: call to unknown function 'g'
    A[i] = g(A[i]);
    B[i] = A[i] + 1.0;
    // CHECK: several-errors.c:[[@LINE+1]]:5: error: 'while' loop is not a static control part
    while (0)
      B[i] = 0.0;
  }
  // CHECK: several-errors.c:[[@LINE+1]]:26: error: 'for' increment must add a constant to the iterator
  for (int j = 0; j < n; j += n)
    A[j] = 0;
#pragma endscop
}
// CHECK: {{^}}3 errors generated.

void many(int n, double A[100]) {
  for (int i = 0; i < n; i++) {
    A[i] = g(1.0); A[i] = g(2.0); A[i] = g(3.0); A[i] = g(4.0); A[i] = g(5.0);
    A[i] = g(1.0); A[i] = g(2.0); A[i] = g(3.0); A[i] = g(4.0); A[i] = g(5.0);
    A[i] = g(1.0); A[i] = g(2.0); A[i] = g(3.0); A[i] = g(4.0); A[i] = g(5.0);
    A[i] = g(1.0); A[i] = g(2.0); A[i] = g(3.0); A[i] = g(4.0); A[i] = g(5.0);
    // LIMIT: several-errors.c:[[@LINE+1]]:12: fatal error: too many errors emitted, stopping now [-ferror-limit=]
    A[i] = g(6.0);
  }
}
// LIMIT: {{^}}20 errors generated.
