/*
 * symv.c -- symmetric matrix-vector product y := alpha*A*x + beta*y where
 *           only the lower triangle of A (j <= i) is stored and read.
 *           Each stored off-diagonal entry is used twice: once for row i
 *           (through the scalar 'acc') and once, transposed, for row j.
 * Family: symmetric kernels.  Element type: double.
 * Scalar 'acc' live across statements; triangular bound j < i.
 */
#include "tessel_kernels.h"

#ifndef N
# ifdef SMALL_DATASET
#  define N 150
# else
#  define N 24
# endif
#endif
#ifndef DATA_TYPE
# define DATA_TYPE double
#endif

static void init_array(int n, DATA_TYPE *alpha, DATA_TYPE *beta,
                       DATA_TYPE ARR2D(A, N, N, n, n),
                       DATA_TYPE ARR1D(x, N, n), DATA_TYPE ARR1D(y, N, n))
{
  int i, j;
  *alpha = SCALAR_VAL(1.0);
  *beta = SCALAR_VAL(0.5);
  for (i = 0; i < n; i++) {
    x[i] = (DATA_TYPE)((i * 7 + 2) % n) / n;
    y[i] = (DATA_TYPE)(i % 4) / 4;
    for (j = 0; j <= i; j++)
      A[i][j] = (DATA_TYPE)((i + j + i * j) % n) / n;
    for (j = i + 1; j < n; j++)
      A[i][j] = SCALAR_VAL(-999.0);   /* never read */
  }
}

static void kernel_symv(int n, DATA_TYPE alpha, DATA_TYPE beta,
                        DATA_TYPE ARR2D(A, N, N, n, n),
                        DATA_TYPE ARR1D(x, N, n), DATA_TYPE ARR1D(y, N, n),
                        DATA_TYPE ARR1D(t, N, n))
{
  int i, j;
  DATA_TYPE acc;
#pragma scop
  for (i = 0; i < n; i++)
    t[i] = 0.0;
  for (i = 0; i < n; i++) {
    acc = A[i][i] * x[i];
    for (j = 0; j < i; j++) {
      acc += A[i][j] * x[j];
      t[j] += A[i][j] * x[i];
    }
    t[i] += acc;
  }
  for (i = 0; i < n; i++)
    y[i] = alpha * t[i] + beta * y[i];
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
  int n = N;
  DATA_TYPE alpha, beta;
  DATA_TYPE (*A)[N][N] = malloc(sizeof(DATA_TYPE[N][N]));
  DATA_TYPE (*x)[N] = malloc(sizeof(DATA_TYPE[N]));
  DATA_TYPE (*y)[N] = malloc(sizeof(DATA_TYPE[N]));
  DATA_TYPE (*t)[N] = malloc(sizeof(DATA_TYPE[N]));
  TESSEL_CHECK_ALLOC(A);
  TESSEL_CHECK_ALLOC(x);
  TESSEL_CHECK_ALLOC(y);
  TESSEL_CHECK_ALLOC(t);

  init_array(n, &alpha, &beta, *A, *x, *y);
  kernel_symv(n, alpha, beta, *A, *x, *y, *t);
  print_array(n, *y);

  free(A);
  free(x);
  free(y);
  free(t);
  return 0;
}
