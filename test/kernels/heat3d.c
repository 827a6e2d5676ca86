/*
 * heat3d.c -- explicit time stepping of the 3D heat equation with a
 *             seven-point stencil (diffusion number 1/8 per axis, which is
 *             below the 1/6 stability limit), ping-ponging between A and B.
 * Family: stencils (3D, time-iterated).  Element type: double.
 */
#include "tessel_kernels.h"

#ifndef TSTEPS
# ifdef SMALL_DATASET
#  define TSTEPS 20
# else
#  define TSTEPS 6
# endif
#endif
#ifndef N
# ifdef SMALL_DATASET
#  define N 60
# else
#  define N 10
# endif
#endif
#ifndef DATA_TYPE
# define DATA_TYPE double
#endif

static void init_array(int n, DATA_TYPE ARR3D(A, N, N, N, n, n, n),
                       DATA_TYPE ARR3D(B, N, N, N, n, n, n))
{
  int i, j, k;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      for (k = 0; k < n; k++) {
        A[i][j][k] = (DATA_TYPE)((i + j + (n - k)) % n) / n;
        B[i][j][k] = A[i][j][k];
      }
}

static void kernel_heat3d(int tsteps, int n, DATA_TYPE ARR3D(A, N, N, N, n, n, n),
                          DATA_TYPE ARR3D(B, N, N, N, n, n, n))
{
  int t, i, j, k;
#pragma scop
  for (t = 1; t <= tsteps; t++) {
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        for (k = 1; k < n - 1; k++)
          B[i][j][k] = A[i][j][k]
                     + 0.125 * (A[i + 1][j][k] - 2.0 * A[i][j][k] + A[i - 1][j][k])
                     + 0.125 * (A[i][j + 1][k] - 2.0 * A[i][j][k] + A[i][j - 1][k])
                     + 0.125 * (A[i][j][k + 1] - 2.0 * A[i][j][k] + A[i][j][k - 1]);
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        for (k = 1; k < n - 1; k++)
          A[i][j][k] = B[i][j][k]
                     + 0.125 * (B[i + 1][j][k] - 2.0 * B[i][j][k] + B[i - 1][j][k])
                     + 0.125 * (B[i][j + 1][k] - 2.0 * B[i][j][k] + B[i][j - 1][k])
                     + 0.125 * (B[i][j][k + 1] - 2.0 * B[i][j][k] + B[i][j][k - 1]);
  }
#pragma endscop
}

static void print_array(int n, DATA_TYPE ARR3D(A, N, N, N, n, n, n))
{
  int i, j, k, cnt = 0;
  TESSEL_DUMP_BEGIN("A");
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      for (k = 0; k < n; k++) {
        fprintf(stderr, "%0.6f ", (double)A[i][j][k]);
        if (++cnt % 20 == 0)
          fprintf(stderr, "\n");
      }
  TESSEL_DUMP_END("A");
}

int main(void)
{
  int tsteps = TSTEPS, n = N;
  DATA_TYPE (*A)[N][N][N] = malloc(sizeof(DATA_TYPE[N][N][N]));
  DATA_TYPE (*B)[N][N][N] = malloc(sizeof(DATA_TYPE[N][N][N]));
  TESSEL_CHECK_ALLOC(A);
  TESSEL_CHECK_ALLOC(B);

  init_array(n, *A, *B);
  kernel_heat3d(tsteps, n, *A, *B);
  print_array(n, *A);

  free(A);
  free(B);
  return 0;
}
