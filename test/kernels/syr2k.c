/*
 * syr2k.c -- symmetric rank-2k update on the lower triangle:
 *            C := alpha*(A*B^T + B*A^T) + beta*C   (j < i+1 only).
 * Family: matrix products / symmetric kernels.  Element type: double.
 * Triangular bound written as j < i + 1; C is scaled in a separate statement.
 */
#include "tessel_kernels.h"

#ifndef N
# ifdef SMALL_DATASET
#  define N 90
# else
#  define N 14
# endif
#endif
#ifndef M
# ifdef SMALL_DATASET
#  define M 70
# else
#  define M 10
# endif
#endif
#ifndef DATA_TYPE
# define DATA_TYPE double
#endif

static void init_array(int n, int m, DATA_TYPE *alpha, DATA_TYPE *beta,
                       DATA_TYPE ARR2D(C, N, N, n, n),
                       DATA_TYPE ARR2D(A, N, M, n, m),
                       DATA_TYPE ARR2D(B, N, M, n, m))
{
  int i, j;
  *alpha = SCALAR_VAL(0.9);
  *beta = SCALAR_VAL(1.3);
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++) {
      A[i][j] = (DATA_TYPE)((i * j + 1) % n) / n;
      B[i][j] = (DATA_TYPE)((i + 2 * j + 3) % m) / m;
    }
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      C[i][j] = (DATA_TYPE)((i * 3 + j * 5) % n) / n;
}

static void kernel_syr2k(int n, int m, DATA_TYPE alpha, DATA_TYPE beta,
                         DATA_TYPE ARR2D(C, N, N, n, n),
                         DATA_TYPE ARR2D(A, N, M, n, m),
                         DATA_TYPE ARR2D(B, N, M, n, m))
{
  int i, j, k;
#pragma scop
  for (i = 0; i < n; i++) {
    for (j = 0; j < i + 1; j++)
      C[i][j] *= beta;
    for (k = 0; k < m; k++)
      for (j = 0; j < i + 1; j++)
        C[i][j] += alpha * A[j][k] * B[i][k] + alpha * B[j][k] * A[i][k];
  }
#pragma endscop
}

static void print_array(int n, DATA_TYPE ARR2D(C, N, N, n, n))
{
  int i, j, cnt = 0;
  TESSEL_DUMP_BEGIN("C");
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      fprintf(stderr, "%0.6f ", (double)C[i][j]);
      if (++cnt % 20 == 0)
        fprintf(stderr, "\n");
    }
  TESSEL_DUMP_END("C");
}

int main(void)
{
  int n = N, m = M;
  DATA_TYPE alpha, beta;
  DATA_TYPE (*C)[N][N] = malloc(sizeof(DATA_TYPE[N][N]));
  DATA_TYPE (*A)[N][M] = malloc(sizeof(DATA_TYPE[N][M]));
  DATA_TYPE (*B)[N][M] = malloc(sizeof(DATA_TYPE[N][M]));
  TESSEL_CHECK_ALLOC(C);
  TESSEL_CHECK_ALLOC(A);
  TESSEL_CHECK_ALLOC(B);

  init_array(n, m, &alpha, &beta, *C, *A, *B);
  kernel_syr2k(n, m, alpha, beta, *C, *A, *B);
  print_array(n, *C);

  free(C);
  free(A);
  free(B);
  return 0;
}
