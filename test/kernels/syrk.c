/*
 * syrk.c -- symmetric rank-k update on the lower triangle:
 *           C := alpha*A*A^T + beta*C   (only j <= i is computed).
 * Family: matrix products / symmetric kernels.  Element type: double.
 * Triangular bound (j <= i); scalar accumulator.
 */
#include "tessel_kernels.h"

#ifndef N
# ifdef SMALL_DATASET
#  define N 100
# else
#  define N 16
# endif
#endif
#ifndef M
# ifdef SMALL_DATASET
#  define M 80
# else
#  define M 12
# endif
#endif
#ifndef DATA_TYPE
# define DATA_TYPE double
#endif

static void init_array(int n, int m, DATA_TYPE *alpha, DATA_TYPE *beta,
                       DATA_TYPE ARR2D(C, N, N, n, n),
                       DATA_TYPE ARR2D(A, N, M, n, m))
{
  int i, j;
  *alpha = SCALAR_VAL(1.5);
  *beta = SCALAR_VAL(0.5);
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      A[i][j] = (DATA_TYPE)((i * j + 2 * i + 1) % n) / n;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      C[i][j] = (DATA_TYPE)((i + j + 7) % m) / m;
}

static void kernel_syrk(int n, int m, DATA_TYPE alpha, DATA_TYPE beta,
                        DATA_TYPE ARR2D(C, N, N, n, n),
                        DATA_TYPE ARR2D(A, N, M, n, m))
{
  int i, j, k;
  DATA_TYPE s;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j <= i; j++) {
      s = 0.0;
      for (k = 0; k < m; k++)
        s += A[i][k] * A[j][k];
      C[i][j] = beta * C[i][j] + alpha * s;
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
  TESSEL_CHECK_ALLOC(C);
  TESSEL_CHECK_ALLOC(A);

  init_array(n, m, &alpha, &beta, *C, *A);
  kernel_syrk(n, m, alpha, beta, *C, *A);
  print_array(n, *C);

  free(C);
  free(A);
  return 0;
}
