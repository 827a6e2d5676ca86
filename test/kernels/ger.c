/*
 * ger.c -- rank-1 update A := A + alpha * x * y^T, followed by a column
 *          sum c := sum_i A[i][*] of the updated matrix.
 * Family: rank updates.  Element type: double.
 */
#include "tessel_kernels.h"

#ifndef M
# ifdef SMALL_DATASET
#  define M 90
# else
#  define M 15
# endif
#endif
#ifndef N
# ifdef SMALL_DATASET
#  define N 110
# else
#  define N 19
# endif
#endif
#ifndef DATA_TYPE
# define DATA_TYPE double
#endif

static void init_array(int m, int n, DATA_TYPE *alpha,
                       DATA_TYPE ARR2D(A, M, N, m, n),
                       DATA_TYPE ARR1D(x, M, m), DATA_TYPE ARR1D(y, N, n))
{
  int i, j;
  *alpha = SCALAR_VAL(-0.6);
  for (i = 0; i < m; i++)
    x[i] = (DATA_TYPE)((i * 4 + 1) % m) / m;
  for (j = 0; j < n; j++)
    y[j] = (DATA_TYPE)((j * 2 + 3) % n) / n;
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++)
      A[i][j] = (DATA_TYPE)((i + j * j) % 17) / 17;
}

static void kernel_ger(int m, int n, DATA_TYPE alpha,
                       DATA_TYPE ARR2D(A, M, N, m, n),
                       DATA_TYPE ARR1D(x, M, m), DATA_TYPE ARR1D(y, N, n),
                       DATA_TYPE ARR1D(c, N, n))
{
  int i, j;
#pragma scop
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++)
      A[i][j] += alpha * x[i] * y[j];
  for (j = 0; j < n; j++) {
    c[j] = 0.0;
    for (i = 0; i < m; i++)
      c[j] += A[i][j];
  }
#pragma endscop
}

static void print_array(int m, int n, DATA_TYPE ARR2D(A, M, N, m, n),
                        DATA_TYPE ARR1D(c, N, n))
{
  int i, j, cnt = 0;
  TESSEL_DUMP_BEGIN("A");
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      fprintf(stderr, "%0.6f ", (double)A[i][j]);
      if (++cnt % 20 == 0)
        fprintf(stderr, "\n");
    }
  TESSEL_DUMP_END("A");
  cnt = 0;
  TESSEL_DUMP_BEGIN("c");
  for (j = 0; j < n; j++) {
    fprintf(stderr, "%0.6f ", (double)c[j]);
    if (++cnt % 20 == 0)
      fprintf(stderr, "\n");
  }
  TESSEL_DUMP_END("c");
}

int main(void)
{
  int m = M, n = N;
  DATA_TYPE alpha;
  DATA_TYPE (*A)[M][N] = malloc(sizeof(DATA_TYPE[M][N]));
  DATA_TYPE (*x)[M] = malloc(sizeof(DATA_TYPE[M]));
  DATA_TYPE (*y)[N] = malloc(sizeof(DATA_TYPE[N]));
  DATA_TYPE (*c)[N] = malloc(sizeof(DATA_TYPE[N]));
  TESSEL_CHECK_ALLOC(A);
  TESSEL_CHECK_ALLOC(x);
  TESSEL_CHECK_ALLOC(y);
  TESSEL_CHECK_ALLOC(c);

  init_array(m, n, &alpha, *A, *x, *y);
  kernel_ger(m, n, alpha, *A, *x, *y, *c);
  print_array(m, n, *A, *c);

  free(A);
  free(x);
  free(y);
  free(c);
  return 0;
}
