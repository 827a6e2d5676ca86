/*
 * gesummv.c -- sum of two matrix-vector products:
 *              y := alpha*A*x + beta*B*x.
 * Family: matrix-vector.  Element type: double.
 * Two scalar accumulators (sa, sb) are live across the statements of each
 * row, and are combined after the inner loop.
 */
#include "tessel_kernels.h"

#ifndef N
# ifdef SMALL_DATASET
#  define N 140
# else
#  define N 24
# endif
#endif
#ifndef DATA_TYPE
# define DATA_TYPE double
#endif

static void init_array(int n, DATA_TYPE *alpha, DATA_TYPE *beta,
                       DATA_TYPE ARR2D(A, N, N, n, n), DATA_TYPE ARR2D(B, N, N, n, n),
                       DATA_TYPE ARR1D(x, N, n))
{
  int i, j;
  *alpha = SCALAR_VAL(1.1);
  *beta = SCALAR_VAL(0.4);
  for (i = 0; i < n; i++) {
    x[i] = (DATA_TYPE)(i % 9) / 9;
    for (j = 0; j < n; j++) {
      A[i][j] = (DATA_TYPE)((i * j + 4) % n) / n;
      B[i][j] = (DATA_TYPE)((i + j * 2 + 1) % n) / n;
    }
  }
}

static void kernel_gesummv(int n, DATA_TYPE alpha, DATA_TYPE beta,
                           DATA_TYPE ARR2D(A, N, N, n, n), DATA_TYPE ARR2D(B, N, N, n, n),
                           DATA_TYPE ARR1D(x, N, n), DATA_TYPE ARR1D(y, N, n))
{
  int i, j;
  DATA_TYPE sa, sb;
#pragma scop
  for (i = 0; i < n; i++) {
    sa = 0.0;
    sb = 0.0;
    for (j = 0; j < n; j++) {
      sa += A[i][j] * x[j];
      sb += B[i][j] * x[j];
    }
    y[i] = alpha * sa + beta * sb;
  }
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
  DATA_TYPE (*B)[N][N] = malloc(sizeof(DATA_TYPE[N][N]));
  DATA_TYPE (*x)[N] = malloc(sizeof(DATA_TYPE[N]));
  DATA_TYPE (*y)[N] = malloc(sizeof(DATA_TYPE[N]));
  TESSEL_CHECK_ALLOC(A);
  TESSEL_CHECK_ALLOC(B);
  TESSEL_CHECK_ALLOC(x);
  TESSEL_CHECK_ALLOC(y);

  init_array(n, &alpha, &beta, *A, *B, *x);
  kernel_gesummv(n, alpha, beta, *A, *B, *x, *y);
  print_array(n, *y);

  free(A);
  free(B);
  free(x);
  free(y);
  return 0;
}
