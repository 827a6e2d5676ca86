/*
 * adi.c -- alternating-direction-implicit (Peaceman-Rachford style) time
 *          stepping of 2D diffusion.  Each half step solves one tridiagonal
 *          system per grid line with the Thomas algorithm: a forward
 *          elimination sweep (increasing j) filling the coefficient arrays
 *          p and q, then a back-substitution sweep with a decreasing loop
 *          (j--).  Boundary values are fixed at 1.
 * Family: stencils (ADI sweeps).  Element type: double.
 * Scalar 'den' is live across statements; decreasing loops; division.
 * With mu = 1/4 the explicit part has non-negative weights and every
 * denominator is >= 1 + mu, so values stay within [0, 1].
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
#  define N 100
# else
#  define N 20
# endif
#endif
#ifndef DATA_TYPE
# define DATA_TYPE double
#endif

static void init_array(int n, DATA_TYPE ARR2D(u, N, N, n, n),
                       DATA_TYPE ARR2D(v, N, N, n, n),
                       DATA_TYPE ARR2D(p, N, N, n, n),
                       DATA_TYPE ARR2D(q, N, N, n, n))
{
  int i, j;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      u[i][j] = (DATA_TYPE)((i * 3 + j * j) % n) / n;
      v[i][j] = SCALAR_VAL(0.0);
      p[i][j] = SCALAR_VAL(0.0);
      q[i][j] = SCALAR_VAL(0.0);
    }
}

static void kernel_adi(int tsteps, int n, DATA_TYPE mu,
                       DATA_TYPE ARR2D(u, N, N, n, n),
                       DATA_TYPE ARR2D(v, N, N, n, n),
                       DATA_TYPE ARR2D(p, N, N, n, n),
                       DATA_TYPE ARR2D(q, N, N, n, n))
{
  int t, i, j;
  DATA_TYPE den;
#pragma scop
  for (t = 1; t <= tsteps; t++) {
    /* half step 1: implicit along the first index, one system per column i */
    for (i = 1; i < n - 1; i++) {
      v[0][i] = 1.0;
      p[i][0] = 0.0;
      q[i][0] = v[0][i];
      for (j = 1; j < n - 1; j++) {
        den = 1.0 + 2.0 * mu - mu * p[i][j - 1];
        p[i][j] = mu / den;
        q[i][j] = (mu * u[j][i - 1] + (1.0 - 2.0 * mu) * u[j][i]
                   + mu * u[j][i + 1] + mu * q[i][j - 1]) / den;
      }
      v[n - 1][i] = 1.0;
      for (j = n - 2; j >= 1; j--)
        v[j][i] = p[i][j] * v[j + 1][i] + q[i][j];
    }
    /* half step 2: implicit along the second index, one system per row i */
    for (i = 1; i < n - 1; i++) {
      u[i][0] = 1.0;
      p[i][0] = 0.0;
      q[i][0] = u[i][0];
      for (j = 1; j < n - 1; j++) {
        den = 1.0 + 2.0 * mu - mu * p[i][j - 1];
        p[i][j] = mu / den;
        q[i][j] = (mu * v[i - 1][j] + (1.0 - 2.0 * mu) * v[i][j]
                   + mu * v[i + 1][j] + mu * q[i][j - 1]) / den;
      }
      u[i][n - 1] = 1.0;
      for (j = n - 2; j >= 1; j--)
        u[i][j] = p[i][j] * u[i][j + 1] + q[i][j];
    }
  }
#pragma endscop
}

static void print_array(int n, DATA_TYPE ARR2D(u, N, N, n, n))
{
  int i, j, cnt = 0;
  TESSEL_DUMP_BEGIN("u");
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      fprintf(stderr, "%0.6f ", (double)u[i][j]);
      if (++cnt % 20 == 0)
        fprintf(stderr, "\n");
    }
  TESSEL_DUMP_END("u");
}

int main(void)
{
  int tsteps = TSTEPS, n = N;
  DATA_TYPE mu = SCALAR_VAL(0.25);
  DATA_TYPE (*u)[N][N] = malloc(sizeof(DATA_TYPE[N][N]));
  DATA_TYPE (*v)[N][N] = malloc(sizeof(DATA_TYPE[N][N]));
  DATA_TYPE (*p)[N][N] = malloc(sizeof(DATA_TYPE[N][N]));
  DATA_TYPE (*q)[N][N] = malloc(sizeof(DATA_TYPE[N][N]));
  TESSEL_CHECK_ALLOC(u);
  TESSEL_CHECK_ALLOC(v);
  TESSEL_CHECK_ALLOC(p);
  TESSEL_CHECK_ALLOC(q);

  init_array(n, *u, *v, *p, *q);
  kernel_adi(tsteps, n, mu, *u, *v, *p, *q);
  print_array(n, *u);

  free(u);
  free(v);
  free(p);
  free(q);
  return 0;
}
