/*
 * lu.c -- in-place LU factorisation without pivoting (right-looking k-i-j
 *         form): the multipliers overwrite the strict lower triangle, U the
 *         upper triangle.
 * Family: factorizations.  Element type: double.
 * Division by the pivot; all inner bounds start at k+1.
 * The input is strictly diagonally dominant so no pivoting is needed.
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
  for (i = 0; i < n; i++) {
    for (j = 0; j < n; j++)
      A[i][j] = (DATA_TYPE)((i * 2 + j * 5 + 1) % 9) / (9 * n);
    A[i][i] = SCALAR_VAL(1.0) + (DATA_TYPE)(i % 5) / 5;
  }
}

static void kernel_lu(int n, DATA_TYPE ARR2D(A, N, N, n, n))
{
  int i, j, k;
#pragma scop
  for (k = 0; k < n; k++) {
    for (i = k + 1; i < n; i++)
      A[i][k] /= A[k][k];
    for (i = k + 1; i < n; i++)
      for (j = k + 1; j < n; j++)
        A[i][j] -= A[i][k] * A[k][j];
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
  kernel_lu(n, *A);
  print_array(n, *A);

  free(A);
  return 0;
}
