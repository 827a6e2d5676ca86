/*
 * cholesky.c -- in-place Cholesky factorisation A = L*L^T (column by
 *               column, left-looking); L overwrites the lower triangle.
 * Family: factorizations.  Element type: double.
 * Uses sqrt and division; scalars 'd' and 't' are live across statements.
 * The input is symmetric and strictly diagonally dominant, hence SPD.
 */
#include "tessel_kernels.h"

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
      A[i][j] = (DATA_TYPE)((i + j) % 5 + 1) / (5 * n);
  for (i = 0; i < n; i++)
    A[i][i] = SCALAR_VAL(2.0) + (DATA_TYPE)(i % 4) / 4;
}

static void kernel_cholesky(int n, DATA_TYPE ARR2D(A, N, N, n, n))
{
  int i, j, k;
  DATA_TYPE d, t;
#pragma scop
  for (j = 0; j < n; j++) {
    d = A[j][j];
    for (k = 0; k < j; k++)
      d -= A[j][k] * A[j][k];
    A[j][j] = sqrt(d);
    for (i = j + 1; i < n; i++) {
      t = A[i][j];
      for (k = 0; k < j; k++)
        t -= A[i][k] * A[j][k];
      A[i][j] = t / A[j][j];
    }
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
  int n = N;
  DATA_TYPE (*A)[N][N] = malloc(sizeof(DATA_TYPE[N][N]));
  TESSEL_CHECK_ALLOC(A);

  init_array(n, *A);
  kernel_cholesky(n, *A);
  print_array(n, *A);

  free(A);
  return 0;
}
