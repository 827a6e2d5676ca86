/*
 * band_mv.c -- banded matrix-vector product and residual: y := A*x using
 *              only the band |i - j| <= kb of a dense-stored matrix, then
 *              res := b - y.  The band limits max(0, i-kb) and
 *              min(n-1, i+kb) are written as ternaries in the loop bounds.
 * Family: matrix-vector (banded).  Element type: double.
 */
#include "tessel_kernels.h"

#ifndef N
# ifdef SMALL_DATASET
#  define N 180
# else
#  define N 24
# endif
#endif
#ifndef KB
# ifdef SMALL_DATASET
#  define KB 7
# else
#  define KB 3
# endif
#endif
#ifndef DATA_TYPE
# define DATA_TYPE double
#endif

static void init_array(int n, DATA_TYPE ARR2D(A, N, N, n, n), DATA_TYPE ARR1D(x, N, n),
                       DATA_TYPE ARR1D(b, N, n))
{
  int i, j;
  for (i = 0; i < n; i++) {
    x[i] = (DATA_TYPE)((i * 3 + 1) % 8) / 8;
    b[i] = (DATA_TYPE)(i % 5) / 5;
    for (j = 0; j < n; j++)
      A[i][j] = (DATA_TYPE)((i * 2 + j * 3 + 1) % 11) / 11;
  }
}

static void kernel_band_mv(int n, int kb, DATA_TYPE ARR2D(A, N, N, n, n),
                           DATA_TYPE ARR1D(x, N, n), DATA_TYPE ARR1D(b, N, n),
                           DATA_TYPE ARR1D(y, N, n), DATA_TYPE ARR1D(res, N, n))
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    y[i] = 0.0;
    for (j = (i - kb > 0 ? i - kb : 0); j <= (i + kb < n - 1 ? i + kb : n - 1); j++)
      y[i] += A[i][j] * x[j];
  }
  for (i = 0; i < n; i++)
    res[i] = b[i] - y[i];
#pragma endscop
}

static void print_array(int n, DATA_TYPE ARR1D(y, N, n), DATA_TYPE ARR1D(res, N, n))
{
  int i, cnt = 0;
  TESSEL_DUMP_BEGIN("y");
  for (i = 0; i < n; i++) {
    fprintf(stderr, "%0.6f ", (double)y[i]);
    if (++cnt % 20 == 0)
      fprintf(stderr, "\n");
  }
  TESSEL_DUMP_END("y");
  cnt = 0;
  TESSEL_DUMP_BEGIN("res");
  for (i = 0; i < n; i++) {
    fprintf(stderr, "%0.6f ", (double)res[i]);
    if (++cnt % 20 == 0)
      fprintf(stderr, "\n");
  }
  TESSEL_DUMP_END("res");
}

int main(void)
{
  int n = N, kb = KB;
  DATA_TYPE (*A)[N][N] = malloc(sizeof(DATA_TYPE[N][N]));
  DATA_TYPE (*x)[N] = malloc(sizeof(DATA_TYPE[N]));
  DATA_TYPE (*b)[N] = malloc(sizeof(DATA_TYPE[N]));
  DATA_TYPE (*y)[N] = malloc(sizeof(DATA_TYPE[N]));
  DATA_TYPE (*res)[N] = malloc(sizeof(DATA_TYPE[N]));
  TESSEL_CHECK_ALLOC(A);
  TESSEL_CHECK_ALLOC(x);
  TESSEL_CHECK_ALLOC(b);
  TESSEL_CHECK_ALLOC(y);
  TESSEL_CHECK_ALLOC(res);

  init_array(n, *A, *x, *b);
  kernel_band_mv(n, kb, *A, *x, *b, *y, *res);
  print_array(n, *y, *res);

  free(A);
  free(x);
  free(b);
  free(y);
  free(res);
  return 0;
}
