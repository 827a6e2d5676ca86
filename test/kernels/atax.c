/*
 * atax.c -- y := A^T * (A * x), with the intermediate A*x kept in tmp.
 * Family: matrix-vector.  Element type: double.
 */
#include "tessel_kernels.h"

#ifndef M
# ifdef SMALL_DATASET
#  define M 110
# else
#  define M 18
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

static void init_array(int m, int n, DATA_TYPE ARR2D(A, M, N, m, n),
                       DATA_TYPE ARR1D(x, N, n))
{
  int i, j;
  for (j = 0; j < n; j++)
    x[j] = SCALAR_VAL(1.0) + (DATA_TYPE)j / n;
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++)
      A[i][j] = (DATA_TYPE)((i + 2 * j) % n) / (5 * m);
}

static void kernel_atax(int m, int n, DATA_TYPE ARR2D(A, M, N, m, n),
                        DATA_TYPE ARR1D(x, N, n), DATA_TYPE ARR1D(y, N, n),
                        DATA_TYPE ARR1D(tmp, M, m))
{
  int i, j;
#pragma scop
  for (j = 0; j < n; j++)
    y[j] = 0.0;
  for (i = 0; i < m; i++) {
    tmp[i] = 0.0;
    for (j = 0; j < n; j++)
      tmp[i] += A[i][j] * x[j];
    for (j = 0; j < n; j++)
      y[j] += A[i][j] * tmp[i];
  }
#pragma endscop
}

static void print_array(int n, DATA_TYPE ARR1D(y, N, n))
{
  int i, cnt = 0;
  TESSEL_DUMP_BEGIN("y");
  for (i = 0; i < n; i++) {
    fprintf(stderr, "%0.6f ", (double)y[i]);
    if (++cnt % 20 == 0)
      fprintf(stderr, "\n");
  }
  TESSEL_DUMP_END("y");
}

int main(void)
{
  int m = M, n = N;
  DATA_TYPE (*A)[M][N] = malloc(sizeof(DATA_TYPE[M][N]));
  DATA_TYPE (*x)[N] = malloc(sizeof(DATA_TYPE[N]));
  DATA_TYPE (*y)[N] = malloc(sizeof(DATA_TYPE[N]));
  DATA_TYPE (*tmp)[M] = malloc(sizeof(DATA_TYPE[M]));
  TESSEL_CHECK_ALLOC(A);
  TESSEL_CHECK_ALLOC(x);
  TESSEL_CHECK_ALLOC(y);
  TESSEL_CHECK_ALLOC(tmp);

  init_array(m, n, *A, *x);
  kernel_atax(m, n, *A, *x, *y, *tmp);
  print_array(n, *y);

  free(A);
  free(x);
  free(y);
  free(tmp);
  return 0;
}
