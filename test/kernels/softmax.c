/*
 * softmax.c -- numerically stable row-wise softmax of an m x n matrix:
 *              for each row, the maximum (ternary max on data), then
 *              exp(a - max), the row sum, and a division by that sum.
 * Family: reductions / point-wise math.  Element type: double.
 * Scalars 'mx' and 's' are live across statements; uses exp.
 */
#include "tessel_kernels.h"

#ifndef M
# ifdef SMALL_DATASET
#  define M 100
# else
#  define M 16
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

static void init_array(int m, int n, DATA_TYPE ARR2D(A, M, N, m, n))
{
  int i, j;
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++)
      A[i][j] = (DATA_TYPE)((i * 11 + j * 5 + i * j) % 29) / 4 - SCALAR_VAL(3.0);
}

static void kernel_softmax(int m, int n, DATA_TYPE ARR2D(A, M, N, m, n),
                           DATA_TYPE ARR2D(P, M, N, m, n))
{
  int i, j;
  DATA_TYPE mx, s;
#pragma scop
  for (i = 0; i < m; i++) {
    mx = A[i][0];
    for (j = 1; j < n; j++)
      mx = A[i][j] > mx ? A[i][j] : mx;
    s = 0.0;
    for (j = 0; j < n; j++) {
      P[i][j] = exp(A[i][j] - mx);
      s += P[i][j];
    }
    for (j = 0; j < n; j++)
      P[i][j] /= s;
  }
#pragma endscop
}

static void print_array(int m, int n, DATA_TYPE ARR2D(P, M, N, m, n))
{
  int i, j, cnt = 0;
  TESSEL_DUMP_BEGIN("P");
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      fprintf(stderr, "%0.6f ", (double)P[i][j]);
      if (++cnt % 20 == 0)
        fprintf(stderr, "\n");
    }
  TESSEL_DUMP_END("P");
}

int main(void)
{
  int m = M, n = N;
  DATA_TYPE (*A)[M][N] = malloc(sizeof(DATA_TYPE[M][N]));
  DATA_TYPE (*P)[M][N] = malloc(sizeof(DATA_TYPE[M][N]));
  TESSEL_CHECK_ALLOC(A);
  TESSEL_CHECK_ALLOC(P);

  init_array(m, n, *A);
  kernel_softmax(m, n, *A, *P);
  print_array(m, n, *P);

  free(A);
  free(P);
  return 0;
}
