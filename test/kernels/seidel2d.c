/*
 * seidel2d.c -- time-iterated in-place Gauss-Seidel sweep with a
 *               five-point average: updated neighbours (north, west) are
 *               read in the same sweep, giving loop-carried dependences in
 *               both space dimensions.
 * Family: stencils (2D, time-iterated, in place).  Element type: double.
 */
#include "tessel_kernels.h"

#ifndef TSTEPS
# ifdef SMALL_DATASET
#  define TSTEPS 40
# else
#  define TSTEPS 8
# endif
#endif
#ifndef N
# ifdef SMALL_DATASET
#  define N 120
# else
#  define N 20
# endif
#endif
#ifndef DATA_TYPE
# define DATA_TYPE double
#endif

static void init_array(int n, DATA_TYPE ARR2D(A, N, N, n, n))
{
  int i, j;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      A[i][j] = (DATA_TYPE)((i * j + 2 * j + 3) % n) / n;
}

static void kernel_seidel2d(int tsteps, int n, DATA_TYPE ARR2D(A, N, N, n, n))
{
  int t, i, j;
#pragma scop
  for (t = 0; t < tsteps; t++)
    for (i = 1; i <= n - 2; i++)
      for (j = 1; j <= n - 2; j++)
        A[i][j] = 0.2 * (A[i - 1][j] + A[i][j - 1] + A[i][j]
                       + A[i][j + 1] + A[i + 1][j]);
#pragma endscop
}

static void print_array(int n, DATA_TYPE ARR2D(A, N, N, n, n))
{
  int i, j, cnt = 0;
  TESSEL_DUMP_BEGIN("A");
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      fprintf(stderr, "%0.6f ", (double)A[i][j]);
      if (++cnt % 20 == 0)
        fprintf(stderr, "\n");
    }
  TESSEL_DUMP_END("A");
}

int main(void)
{
  int tsteps = TSTEPS, n = N;
  DATA_TYPE (*A)[N][N] = malloc(sizeof(DATA_TYPE[N][N]));
  TESSEL_CHECK_ALLOC(A);

  init_array(n, *A);
  kernel_seidel2d(tsteps, n, *A);
  print_array(n, *A);

  free(A);
  return 0;
}
