/* Iterators whose names match the compiler's own value names (t, bx, tx, gx, idx). */
#include <stdio.h>
#define N 20
static void kernel_names(int n, double A[N][N]) {
  int t, bx, tx, gx, idx;
#pragma scop
  for (gx = 0; gx < n; gx++)
    for (idx = 0; idx < n; idx++)
      A[gx][idx] += gx - idx;
  for (t = 0; t < 3; t++)
    for (bx = 0; bx < n; bx++)
      for (tx = 1; tx < n; tx++)
        A[bx][tx] = A[bx][tx - 1] * 0.5 + t;
#pragma endscop
}
int main(void) {
  double A[N][N];
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      A[i][j] = (i + 2 * j) % 5;
  kernel_names(N, A);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      fprintf(stderr, "%.6f\n", A[i][j]);
  return 0;
}
