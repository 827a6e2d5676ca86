/*
 * trmm.c -- triangular matrix product: B := alpha * A^T * B where A is
 *           unit lower triangular (m x m); the strict lower part of A is read
 *           and the unit diagonal is implicit.
 * Family: matrix products / triangular kernels.  Element type: double.
 * Inner loop bound k = i+1 .. m-1 depends on the outer iterator.
 */
#include "tessel_kernels.h"

#ifndef M
# ifdef SMALL_DATASET
#  define M 80
# else
#  define M 14
# endif
#endif
#ifndef N
# ifdef SMALL_DATASET
#  define N 100
# else
#  define N 18
# endif
#endif
#ifndef DATA_TYPE
# define DATA_TYPE double
#endif

static void init_array(int m, int n, DATA_TYPE *alpha,
                       DATA_TYPE ARR2D(A, M, M, m, m),
                       DATA_TYPE ARR2D(B, M, N, m, n))
{
  int i, j;
  *alpha = SCALAR_VAL(0.7);
  for (i = 0; i < m; i++) {
    for (j = 0; j < i; j++)
      A[i][j] = (DATA_TYPE)((i + 3 * j + 1) % m) / (2 * m);
    A[i][i] = SCALAR_VAL(1.0);
    for (j = i + 1; j < m; j++)
      A[i][j] = SCALAR_VAL(-999.0);   /* never read */
  }
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++)
      B[i][j] = (DATA_TYPE)((n + i - j + 4) % n) / n;
}

static void kernel_trmm(int m, int n, DATA_TYPE alpha,
                        DATA_TYPE ARR2D(A, M, M, m, m),
                        DATA_TYPE ARR2D(B, M, N, m, n))
{
  int i, j, k;
#pragma scop
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      for (k = i + 1; k < m; k++)
        B[i][j] += A[k][i] * B[k][j];
      B[i][j] = alpha * B[i][j];
    }
#pragma endscop
}

static void print_array(int m, int n, DATA_TYPE ARR2D(B, M, N, m, n))
{
  int i, j, cnt = 0;
  TESSEL_DUMP_BEGIN("B");
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      fprintf(stderr, "%0.6f ", (double)B[i][j]);
      if (++cnt % 20 == 0)
        fprintf(stderr, "\n");
    }
  TESSEL_DUMP_END("B");
}

int main(void)
{
  int m = M, n = N;
  DATA_TYPE alpha;
  DATA_TYPE (*A)[M][M] = malloc(sizeof(DATA_TYPE[M][M]));
  DATA_TYPE (*B)[M][N] = malloc(sizeof(DATA_TYPE[M][N]));
  TESSEL_CHECK_ALLOC(A);
  TESSEL_CHECK_ALLOC(B);

  init_array(m, n, &alpha, *A, *B);
  kernel_trmm(m, n, alpha, *A, *B);
  print_array(m, n, *B);

  free(A);
  free(B);
  return 0;
}
