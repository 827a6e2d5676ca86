/*
 * heat2d_bc.c -- explicit 2D heat diffusion on the full grid where the
 *                boundary conditions are selected point by point with
 *                affine if conditions: a hot top edge (Dirichlet 1), a
 *                cold bottom edge (Dirichlet 0), insulated left/right
 *                edges (copy of the neighbouring interior value) and the
 *                five-point update inside.  After every step the largest
 *                change max |B - A| is recorded in delta[t] (fabs plus a
 *                ternary max), then B is copied back into A.
 * Family: stencils (2D, time-iterated, affine ifs).  Element type: double.
 * Diffusion number 0.2 <= 1/4 keeps the scheme stable.
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
#  define N 110
# else
#  define N 18
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
      A[i][j] = (DATA_TYPE)((i * 7 + j * 2) % n) / (2 * n);
}

static void kernel_heat2d_bc(int tsteps, int n, DATA_TYPE ARR2D(A, N, N, n, n),
                             DATA_TYPE ARR2D(B, N, N, n, n),
                             DATA_TYPE ARR1D(delta, TSTEPS, tsteps))
{
  int t, i, j;
#pragma scop
  for (t = 0; t < tsteps; t++) {
    for (i = 0; i < n; i++)
      for (j = 0; j < n; j++) {
        if (i >= 1 && i <= n - 2 && j >= 1 && j <= n - 2)
          B[i][j] = A[i][j] + 0.2 * (A[i - 1][j] + A[i + 1][j] + A[i][j - 1]
                                     + A[i][j + 1] - 4.0 * A[i][j]);
        if (i == 0)
          B[i][j] = 1.0;
        if (i == n - 1)
          B[i][j] = 0.0;
        if (i >= 1 && i <= n - 2 && j == 0)
          B[i][j] = A[i][j + 1];
        if (i >= 1 && i <= n - 2 && j == n - 1)
          B[i][j] = A[i][j - 1];
      }
    delta[t] = 0.0;
    for (i = 0; i < n; i++)
      for (j = 0; j < n; j++)
        delta[t] = fabs(B[i][j] - A[i][j]) > delta[t] ? fabs(B[i][j] - A[i][j]) : delta[t];
    for (i = 0; i < n; i++)
      for (j = 0; j < n; j++)
        A[i][j] = B[i][j];
  }
#pragma endscop
}

static void print_array(int tsteps, int n, DATA_TYPE ARR2D(A, N, N, n, n),
                        DATA_TYPE ARR1D(delta, TSTEPS, tsteps))
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
  cnt = 0;
  TESSEL_DUMP_BEGIN("delta");
  for (i = 0; i < tsteps; i++) {
    fprintf(stderr, "%0.6f ", (double)delta[i]);
    if (++cnt % 20 == 0)
      fprintf(stderr, "\n");
  }
  TESSEL_DUMP_END("delta");
}

int main(void)
{
  int tsteps = TSTEPS, n = N;
  DATA_TYPE (*A)[N][N] = malloc(sizeof(DATA_TYPE[N][N]));
  DATA_TYPE (*B)[N][N] = malloc(sizeof(DATA_TYPE[N][N]));
  DATA_TYPE (*delta)[TSTEPS] = malloc(sizeof(DATA_TYPE[TSTEPS]));
  TESSEL_CHECK_ALLOC(A);
  TESSEL_CHECK_ALLOC(B);
  TESSEL_CHECK_ALLOC(delta);

  init_array(n, *A);
  kernel_heat2d_bc(tsteps, n, *A, *B, *delta);
  print_array(tsteps, n, *A, *delta);

  free(A);
  free(B);
  free(delta);
  return 0;
}
