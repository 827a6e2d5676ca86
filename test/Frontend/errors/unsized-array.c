// A pointer parameter indexed beyond its first element: the region copies whole arrays
// to the device, so it must know the extent.
// RUN: rm -f %t.out
// RUN: not tesselc %s -c -o %t.out 2>&1 | FileCheck %s
// RUN: test ! -e %t.out
// CHECK: unsized-array.c:[[@LINE+5]]:5: error: the size of dimension 1 of 'A' is unknown (a pointer, an array parameter without its first size, or a size that is not affine in the parameters): declare it with its size, e.g. 'double A[n]'
void f(int n, double *A, double B[][8]) {
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = B[i][0];
#pragma endscop
}
