/* Arrays and scalars declared inside the region: a temporary row (fixed size) and a
   VLA sized by a parameter, both filled and read within the region. */
#include <stdio.h>
#define N 24
static void kernel_tmp(int n, double A[N][N], double out[N]) {
  int i, j;
#pragma scop
  double row[N];
  double acc[n];
  for (i = 0; i < n; i++) {
    acc[i] = 0;
    for (j = 0; j < n; j++)
      acc[i] += A[i][j];
  }
  for (j = 0; j < n; j++)
    row[j] = acc[j] / n;
  for (i = 0; i < n; i++) {
    double t = row[i] * 2;
    out[i] = t + row[n - 1 - i];
  }
#pragma endscop
}
int main(void) {
  double A[N][N], out[N];
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      A[i][j] = (i * 5 + j * 3) % 9;
  kernel_tmp(N, A, out);
  for (int i = 0; i < N; i++)
    fprintf(stderr, "%.8f\n", out[i]);
  return 0;
}
