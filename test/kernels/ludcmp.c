/*
 * ludcmp.c -- solve A*x = b: Doolittle LU factorisation in place (row by
 *             row), then forward substitution L*y = b and backward
 *             substitution U*x = y.  The backward sweep runs with a
 *             decreasing loop (i--).
 * Family: factorizations and triangular solves.  Element type: double.
 * Scalar 'w' is live across statements in every phase.
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

static void init_array(int n, DATA_TYPE ARR2D(A, N, N, n, n),
                       DATA_TYPE ARR1D(b, N, n), DATA_TYPE ARR1D(x, N, n),
                       DATA_TYPE ARR1D(y, N, n))
{
  int i, j;
  for (i = 0; i < n; i++) {
    b[i] = (DATA_TYPE)(i + 1) / n;
    x[i] = SCALAR_VAL(0.0);
    y[i] = SCALAR_VAL(0.0);
    for (j = 0; j < n; j++)
      A[i][j] = (DATA_TYPE)((i * j + 3 * i + 2) % n) / (2 * n * n);
    A[i][i] = SCALAR_VAL(1.5) + (DATA_TYPE)(i % 3) / 6;
  }
}

static void kernel_ludcmp(int n, DATA_TYPE ARR2D(A, N, N, n, n),
                          DATA_TYPE ARR1D(b, N, n), DATA_TYPE ARR1D(x, N, n),
                          DATA_TYPE ARR1D(y, N, n))
{
  int i, j, k;
  DATA_TYPE w;
#pragma scop
  /* factorisation */
  for (i = 0; i < n; i++) {
    for (j = 0; j < i; j++) {
      w = A[i][j];
      for (k = 0; k < j; k++)
        w -= A[i][k] * A[k][j];
      A[i][j] = w / A[j][j];
    }
    for (j = i; j < n; j++) {
      w = A[i][j];
      for (k = 0; k < i; k++)
        w -= A[i][k] * A[k][j];
      A[i][j] = w;
    }
  }
  /* forward substitution, unit lower triangle */
  for (i = 0; i < n; i++) {
    w = b[i];
    for (j = 0; j < i; j++)
      w -= A[i][j] * y[j];
    y[i] = w;
  }
  /* backward substitution, decreasing i */
  for (i = n - 1; i >= 0; i--) {
    w = y[i];
    for (j = i + 1; j < n; j++)
      w -= A[i][j] * x[j];
    x[i] = w / A[i][i];
  }
#pragma endscop
}

static void print_array(int n, DATA_TYPE ARR1D(x, N, n))
{
  int i, cnt = 0;
  TESSEL_DUMP_BEGIN("x");
  for (i = 0; i < n; i++) {
    fprintf(stderr, "%0.6f ", (double)x[i]);
    if (++cnt % 20 == 0)
      fprintf(stderr, "\n");
  }
  TESSEL_DUMP_END("x");
}

int main(void)
{
  int n = N;
  DATA_TYPE (*A)[N][N] = malloc(sizeof(DATA_TYPE[N][N]));
  DATA_TYPE (*b)[N] = malloc(sizeof(DATA_TYPE[N]));
  DATA_TYPE (*x)[N] = malloc(sizeof(DATA_TYPE[N]));
  DATA_TYPE (*y)[N] = malloc(sizeof(DATA_TYPE[N]));
  TESSEL_CHECK_ALLOC(A);
  TESSEL_CHECK_ALLOC(b);
  TESSEL_CHECK_ALLOC(x);
  TESSEL_CHECK_ALLOC(y);

  init_array(n, *A, *b, *x, *y);
  kernel_ludcmp(n, *A, *b, *x, *y);
  print_array(n, *x);

  free(A);
  free(b);
  free(x);
  free(y);
  return 0;
}
