/* matvec.c -- y := A x (paper 000's matrix-vector product; paper 004 Fig. 4's row
 * reduction). */
#include "bench.h"

#ifndef N
# define N 4096
#endif

static void kernel_matvec(int n, float A[N][N], float x[N], float y[N])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    y[i] = 0.0f;
    for (j = 0; j < n; j++)
      y[i] += A[i][j] * x[j];
  }
#pragma endscop
}

int main(void)
{
  float (*A)[N][N] = malloc(sizeof *A);
  BENCH_CHECK(A);
  float (*x)[N] = malloc(sizeof *x);
  BENCH_CHECK(x);
  float (*y)[N] = malloc(sizeof *y);
  BENCH_CHECK(y);
  for (int i = 0; i < N; i++) {
    (*x)[i] = (float)(i % 17) / 17.0f;
    for (int j = 0; j < N; j++)
      (*A)[i][j] = (float)((i * 5 + j) % 23) / 23.0f;
  }
  kernel_matvec(N, *A, *x, *y);
  printf("%.6e\n", bench_checksum(*y, N, 1, 4));
  free(A);
  free(x);
  free(y);
  return 0;
}
