/* jacobi2d.c -- 2-D Jacobi iterations, a 5-point stencil between two arrays (paper
 * 000's 2D Jacobi). */
#include "bench.h"

#ifndef N
# define N 1024
#endif
#ifndef STEPS
# define STEPS 4
#endif

static void kernel_jacobi(int steps, int n, float A[N][N], float B[N][N])
{
  int t, i, j;
#pragma scop
  for (t = 0; t < steps; t++) {
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        B[i][j] = 0.2f * (A[i][j] + A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]);
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        A[i][j] = 0.2f * (B[i][j] + B[i - 1][j] + B[i + 1][j] + B[i][j - 1] + B[i][j + 1]);
  }
#pragma endscop
}

int main(void)
{
  float (*A)[N][N] = malloc(sizeof *A);
  BENCH_CHECK(A);
  float (*B)[N][N] = malloc(sizeof *B);
  BENCH_CHECK(B);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      (*A)[i][j] = (float)((i * 11 + j * 5) % 31) / 31.0f;
      (*B)[i][j] = (*A)[i][j];
    }
  kernel_jacobi(STEPS, N, *A, *B);
  printf("%.6e\n", bench_checksum(*A, (long)N * N, 1, 4));
  free(A);
  free(B);
  return 0;
}
