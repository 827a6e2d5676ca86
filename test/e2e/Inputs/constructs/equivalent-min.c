/* Loop bounds written as conditionals equivalent to a min or max of two values. */
#include <stdio.h>
#define N 30
static void kernel_band(int n, int w, double A[N][N]) {
  int i, j;
#pragma scop
  for (i = 0; i < (w < n - 3 ? w + 3 : n); i++)
    for (j = (i - 2 >= 0 ? i - 2 : 0); j < (i + 2 > n - 1 ? n : i + 3); j++)
      A[i][j] = A[i][j] * 0.5 + i - j;
#pragma endscop
}
int main(void) {
  double A[N][N];
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      A[i][j] = (i * 3 + j) % 7;
  kernel_band(N, 20, A);
  kernel_band(N, 29, A);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      fprintf(stderr, "%.4f\n", A[i][j]);
  return 0;
}
