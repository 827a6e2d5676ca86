/*
 * symm.c -- symmetric matrix times general matrix:
 *           C := alpha*A*B + beta*C, A symmetric (m x m) of which only the
 *           lower triangle (k <= i) is read.
 * Family: matrix products / symmetric kernels.  Element type: double.
 * The scalar 'acc' is live across statements of the j-loop body.
 */
#include "tessel_kernels.h"

#ifndef M
# ifdef SMALL_DATASET
#  define M 80
# else
#  define M 12
# endif
#endif
#ifndef N
# ifdef SMALL_DATASET
#  define N 100
# else
#  define N 16
# endif
#endif
#ifndef DATA_TYPE
# define DATA_TYPE double
#endif

static void init_array(int m, int n, DATA_TYPE *alpha, DATA_TYPE *beta,
                       DATA_TYPE ARR2D(C, M, N, m, n),
                       DATA_TYPE ARR2D(A, M, M, m, m),
                       DATA_TYPE ARR2D(B, M, N, m, n))
{
  int i, j;
  *alpha = SCALAR_VAL(1.2);
  *beta = SCALAR_VAL(0.6);
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      C[i][j] = (DATA_TYPE)((i + j + 1) % 11) / 11;
      B[i][j] = (DATA_TYPE)((2 * n + i - j) % 9) / 9;
    }
  /* only the lower triangle is meaningful; poison the upper one */
  for (i = 0; i < m; i++) {
    for (j = 0; j <= i; j++)
      A[i][j] = (DATA_TYPE)((i * j + i + 2) % m) / m;
    for (j = i + 1; j < m; j++)
      A[i][j] = SCALAR_VAL(-999.0);
  }
}

static void kernel_symm(int m, int n, DATA_TYPE alpha, DATA_TYPE beta,
                        DATA_TYPE ARR2D(C, M, N, m, n),
                        DATA_TYPE ARR2D(A, M, M, m, m),
                        DATA_TYPE ARR2D(B, M, N, m, n))
{
  int i, j, k;
  DATA_TYPE acc;
#pragma scop
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      acc = 0.0;
      for (k = 0; k < i; k++) {
        C[k][j] += alpha * B[i][j] * A[i][k];
        acc += B[k][j] * A[i][k];
      }
      C[i][j] = beta * C[i][j] + alpha * B[i][j] * A[i][i] + alpha * acc;
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
  int m = M, n = N;
  DATA_TYPE alpha, beta;
  DATA_TYPE (*C)[M][N] = malloc(sizeof(DATA_TYPE[M][N]));
  DATA_TYPE (*A)[M][M] = malloc(sizeof(DATA_TYPE[M][M]));
  DATA_TYPE (*B)[M][N] = malloc(sizeof(DATA_TYPE[M][N]));
  TESSEL_CHECK_ALLOC(C);
  TESSEL_CHECK_ALLOC(A);
  TESSEL_CHECK_ALLOC(B);

  init_array(m, n, &alpha, &beta, *C, *A, *B);
  kernel_symm(m, n, alpha, beta, *C, *A, *B);
  print_array(m, n, *C);

  free(C);
  free(A);
  free(B);
  return 0;
}
