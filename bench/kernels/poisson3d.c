/* poisson3d.c -- 3-D Poisson (7-point) relaxation steps between two grids (paper 000's
 * 3D Poisson). */
#include "bench.h"

#ifndef N
# define N 128
#endif
#ifndef STEPS
# define STEPS 2
#endif

static void kernel_poisson(int steps, int n, float A[N][N][N], float B[N][N][N], float F[N][N][N])
{
  int t, i, j, k;
#pragma scop
  for (t = 0; t < steps; t++) {
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        for (k = 1; k < n - 1; k++)
          B[i][j][k] = (A[i - 1][j][k] + A[i + 1][j][k] + A[i][j - 1][k] + A[i][j + 1][k]
                        + A[i][j][k - 1] + A[i][j][k + 1] - F[i][j][k]) / 6.0f;
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        for (k = 1; k < n - 1; k++)
          A[i][j][k] = (B[i - 1][j][k] + B[i + 1][j][k] + B[i][j - 1][k] + B[i][j + 1][k]
                        + B[i][j][k - 1] + B[i][j][k + 1] - F[i][j][k]) / 6.0f;
  }
#pragma endscop
}

int main(void)
{
  float (*A)[N][N][N] = malloc(sizeof *A);
  BENCH_CHECK(A);
  float (*B)[N][N][N] = malloc(sizeof *B);
  BENCH_CHECK(B);
  float (*F)[N][N][N] = malloc(sizeof *F);
  BENCH_CHECK(F);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < N; k++) {
        (*A)[i][j][k] = (float)((i + 2 * j + 3 * k) % 19) / 19.0f;
        (*B)[i][j][k] = (*A)[i][j][k];
        (*F)[i][j][k] = (float)((i * j + k) % 7) / 70.0f;
      }
  kernel_poisson(STEPS, N, *A, *B, *F);
  printf("%.6e\n", bench_checksum(*A, (long)N * N * N, 1, 4));
  free(A);
  free(B);
  free(F);
  return 0;
}
