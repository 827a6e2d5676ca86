/*
 * jacobi2d.c -- time-iterated 2D five-point Jacobi relaxation (centre
 *               weight 1/2, neighbours 1/8), ping-ponging between A and B.
 * Family: stencils (2D, time-iterated).  Element type: double.
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

static void init_array(int n, DATA_TYPE ARR2D(A, N, N, n, n), DATA_TYPE ARR2D(B, N, N, n, n))
{
  int i, j;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      A[i][j] = (DATA_TYPE)((i * (j + 2) + 1) % n) / n;
      B[i][j] = (DATA_TYPE)((i * (j + 3) + 2) % n) / n;
    }
}

static void kernel_jacobi2d(int tsteps, int n, DATA_TYPE ARR2D(A, N, N, n, n),
                            DATA_TYPE ARR2D(B, N, N, n, n))
{
  int t, i, j;
#pragma scop
  for (t = 0; t < tsteps; t++) {
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        B[i][j] = 0.5 * A[i][j]
                + 0.125 * (A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]);
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        A[i][j] = 0.5 * B[i][j]
                + 0.125 * (B[i - 1][j] + B[i + 1][j] + B[i][j - 1] + B[i][j + 1]);
  }
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
  DATA_TYPE (*B)[N][N] = malloc(sizeof(DATA_TYPE[N][N]));
  TESSEL_CHECK_ALLOC(A);
  TESSEL_CHECK_ALLOC(B);

  init_array(n, *A, *B);
  kernel_jacobi2d(tsteps, n, *A, *B);
  print_array(n, *A);

  free(A);
  free(B);
  return 0;
}
