/* transpose.c -- B := A^T (paper 000's matrix transpose; paper 004 sec. 3: one side
 * of a transpose is always read down a column). */
#include "bench.h"

#ifndef N
# define N 2048
#endif

static void kernel_transpose(int n, float A[N][N], float B[N][N])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      B[i][j] = A[j][i];
#pragma endscop
}

int main(void)
{
  float (*A)[N][N] = malloc(sizeof *A);
  BENCH_CHECK(A);
  float (*B)[N][N] = malloc(sizeof *B);
  BENCH_CHECK(B);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      (*A)[i][j] = (float)((i * 3 + j * 7) % 101) / 101.0f;
  kernel_transpose(N, *A, *B);
  printf("%.6e\n", bench_checksum(*B, (long)N * N, 1, 4));
  free(A);
  free(B);
  return 0;
}
