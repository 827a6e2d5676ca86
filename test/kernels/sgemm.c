/*
 * sgemm.c -- single-precision matrix product in i-k-j order:
 *            C := beta*C ; C += alpha*A*B.
 * Family: matrix products.  Element type: float.
 */
#include "tessel_kernels.h"

#ifndef M
# ifdef SMALL_DATASET
#  define M 64
# else
#  define M 12
# endif
#endif
#ifndef N
# ifdef SMALL_DATASET
#  define N 96
# else
#  define N 20
# endif
#endif
#ifndef K
# ifdef SMALL_DATASET
#  define K 80
# else
#  define K 16
# endif
#endif
#ifndef DATA_TYPE
# define DATA_TYPE float
#endif

static void init_array(int m, int n, int k, DATA_TYPE *alpha, DATA_TYPE *beta,
                       DATA_TYPE ARR2D(C, M, N, m, n),
                       DATA_TYPE ARR2D(A, M, K, m, k),
                       DATA_TYPE ARR2D(B, K, N, k, n))
{
  int i, j;
  *alpha = SCALAR_VAL(0.5);
  *beta = SCALAR_VAL(2.0);
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++)
      C[i][j] = (DATA_TYPE)((i + j * j) % 13) / 13;
  for (i = 0; i < m; i++)
    for (j = 0; j < k; j++)
      A[i][j] = (DATA_TYPE)((i * 7 + j * 3 + 1) % k) / k;
  for (i = 0; i < k; i++)
    for (j = 0; j < n; j++)
      B[i][j] = (DATA_TYPE)((i * j + i + 2) % n) / n;
}

static void kernel_sgemm(int m, int n, int k, DATA_TYPE alpha, DATA_TYPE beta,
                         DATA_TYPE ARR2D(C, M, N, m, n),
                         DATA_TYPE ARR2D(A, M, K, m, k),
                         DATA_TYPE ARR2D(B, K, N, k, n))
{
  int i, j, p;
#pragma scop
  for (i = 0; i < m; i++) {
    for (j = 0; j < n; j++)
      C[i][j] *= beta;
    for (p = 0; p < k; p++)
      for (j = 0; j < n; j++)
        C[i][j] += alpha * A[i][p] * B[p][j];
  }
#pragma endscop
}

static void print_array(int m, int n, DATA_TYPE ARR2D(C, M, N, m, n))
{
  int i, j, cnt = 0;
  TESSEL_DUMP_BEGIN("C");
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      fprintf(stderr, "%0.6f ", (double)C[i][j]);
      if (++cnt % 20 == 0)
        fprintf(stderr, "\n");
    }
  TESSEL_DUMP_END("C");
}

int main(void)
{
  int m = M, n = N, k = K;
  DATA_TYPE alpha, beta;
  DATA_TYPE (*C)[M][N] = malloc(sizeof(DATA_TYPE[M][N]));
  DATA_TYPE (*A)[M][K] = malloc(sizeof(DATA_TYPE[M][K]));
  DATA_TYPE (*B)[K][N] = malloc(sizeof(DATA_TYPE[K][N]));
  TESSEL_CHECK_ALLOC(C);
  TESSEL_CHECK_ALLOC(A);
  TESSEL_CHECK_ALLOC(B);

  init_array(m, n, k, &alpha, &beta, *C, *A, *B);
  kernel_sgemm(m, n, k, alpha, beta, *C, *A, *B);
  print_array(m, n, *C);

  free(C);
  free(A);
  free(B);
  return 0;
}
