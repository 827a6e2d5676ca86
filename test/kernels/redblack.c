/*
 * redblack.c -- red-black successive over-relaxation (omega = 1.25) for
 *               the 2D Laplace equation.  Each colour is split into two
 *               strided sub-grids visited with step-2 loops (i += 2,
 *               j += 2), so no modulo is needed in bounds or subscripts.
 * Family: stencils (2D, time-iterated, in place).  Element type: double.
 */
#include "tessel_kernels.h"

#ifndef TSTEPS
# ifdef SMALL_DATASET
#  define TSTEPS 30
# else
#  define TSTEPS 8
# endif
#endif
#ifndef N
# ifdef SMALL_DATASET
#  define N 130
# else
#  define N 22
# endif
#endif
#ifndef DATA_TYPE
# define DATA_TYPE double
#endif

static void init_array(int n, DATA_TYPE ARR2D(U, N, N, n, n))
{
  int i, j;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      U[i][j] = (DATA_TYPE)((i * 5 + j * 3) % n) / n;
  /* a hot top edge as boundary condition */
  for (j = 0; j < n; j++)
    U[0][j] = SCALAR_VAL(1.0);
}

static void kernel_redblack(int tsteps, int n, DATA_TYPE omega,
                            DATA_TYPE ARR2D(U, N, N, n, n))
{
  int t, i, j;
#pragma scop
  for (t = 0; t < tsteps; t++) {
    /* red points: i + j even */
    for (i = 1; i < n - 1; i += 2)
      for (j = 1; j < n - 1; j += 2)
        U[i][j] = (1.0 - omega) * U[i][j]
                + omega * 0.25 * (U[i - 1][j] + U[i + 1][j] + U[i][j - 1] + U[i][j + 1]);
    for (i = 2; i < n - 1; i += 2)
      for (j = 2; j < n - 1; j += 2)
        U[i][j] = (1.0 - omega) * U[i][j]
                + omega * 0.25 * (U[i - 1][j] + U[i + 1][j] + U[i][j - 1] + U[i][j + 1]);
    /* black points: i + j odd */
    for (i = 1; i < n - 1; i += 2)
      for (j = 2; j < n - 1; j += 2)
        U[i][j] = (1.0 - omega) * U[i][j]
                + omega * 0.25 * (U[i - 1][j] + U[i + 1][j] + U[i][j - 1] + U[i][j + 1]);
    for (i = 2; i < n - 1; i += 2)
      for (j = 1; j < n - 1; j += 2)
        U[i][j] = (1.0 - omega) * U[i][j]
                + omega * 0.25 * (U[i - 1][j] + U[i + 1][j] + U[i][j - 1] + U[i][j + 1]);
  }
#pragma endscop
}

static void print_array(int n, DATA_TYPE ARR2D(U, N, N, n, n))
{
  int i, j, cnt = 0;
  TESSEL_DUMP_BEGIN("U");
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      fprintf(stderr, "%0.6f ", (double)U[i][j]);
      if (++cnt % 20 == 0)
        fprintf(stderr, "\n");
    }
  TESSEL_DUMP_END("U");
}

int main(void)
{
  int tsteps = TSTEPS, n = N;
  DATA_TYPE omega = SCALAR_VAL(1.25);
  DATA_TYPE (*U)[N][N] = malloc(sizeof(DATA_TYPE[N][N]));
  TESSEL_CHECK_ALLOC(U);

  init_array(n, *U);
  kernel_redblack(tsteps, n, omega, *U);
  print_array(n, *U);

  free(U);
  return 0;
}
