/* Locals computed before the region and only read in it: a double factor and an int
   offset, whose values are not compile-time constants. */
#include <stdio.h>
#define N 32
static void kernel_ro(int n, double A[N], double B[N]) {
  int i;
  double f = A[0] + 0.5;
  int off = n / 4;
#pragma scop
  for (i = 0; i < n; i++)
    B[i] = A[i] * f + off;
#pragma endscop
}
int main(void) {
  double A[N], B[N];
  for (int i = 0; i < N; i++)
    A[i] = (i % 7) * 0.25;
  kernel_ro(N, A, B);
  for (int i = 0; i < N; i++)
    fprintf(stderr, "%.6f\n", B[i]);
  return 0;
}
