/*
 * gemver.c -- rank-2 update followed by two matrix-vector products:
 *             A := A + u1*v1^T + u2*v2^T
 *             x := x + beta*A^T*y + z
 *             w := w + alpha*A*x
 * Family: matrix-vector and rank updates.  Element type: double.
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

static void init_array(int n, DATA_TYPE *alpha, DATA_TYPE *beta,
                       DATA_TYPE ARR2D(A, N, N, n, n),
                       DATA_TYPE ARR1D(u1, N, n), DATA_TYPE ARR1D(v1, N, n),
                       DATA_TYPE ARR1D(u2, N, n), DATA_TYPE ARR1D(v2, N, n),
                       DATA_TYPE ARR1D(w, N, n), DATA_TYPE ARR1D(x, N, n),
                       DATA_TYPE ARR1D(y, N, n), DATA_TYPE ARR1D(z, N, n))
{
  int i, j;
  DATA_TYPE fn = (DATA_TYPE)n;
  *alpha = SCALAR_VAL(0.5);
  *beta = SCALAR_VAL(0.25);
  for (i = 0; i < n; i++) {
    u1[i] = (DATA_TYPE)i / fn;
    u2[i] = (DATA_TYPE)(i + 1) / fn / 3;
    v1[i] = (DATA_TYPE)(i + 2) / fn / 5;
    v2[i] = (DATA_TYPE)(n - i) / fn / 7;
    y[i] = (DATA_TYPE)((i * 3) % n) / fn / 2;
    z[i] = (DATA_TYPE)((i + 5) % n) / fn / 9;
    x[i] = SCALAR_VAL(0.0);
    w[i] = SCALAR_VAL(0.0);
    for (j = 0; j < n; j++)
      A[i][j] = (DATA_TYPE)((i * j + 2) % n) / fn;
  }
}

static void kernel_gemver(int n, DATA_TYPE alpha, DATA_TYPE beta,
                          DATA_TYPE ARR2D(A, N, N, n, n),
                          DATA_TYPE ARR1D(u1, N, n), DATA_TYPE ARR1D(v1, N, n),
                          DATA_TYPE ARR1D(u2, N, n), DATA_TYPE ARR1D(v2, N, n),
                          DATA_TYPE ARR1D(w, N, n), DATA_TYPE ARR1D(x, N, n),
                          DATA_TYPE ARR1D(y, N, n), DATA_TYPE ARR1D(z, N, n))
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      A[i][j] = A[i][j] + u1[i] * v1[j] + u2[i] * v2[j];
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      x[i] = x[i] + beta * A[j][i] * y[j];
  for (i = 0; i < n; i++)
    x[i] = x[i] + z[i];
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      w[i] = w[i] + alpha * A[i][j] * x[j];
#pragma endscop
}

static void print_array(int n, DATA_TYPE ARR1D(w, N, n))
{
  int i, cnt = 0;
  TESSEL_DUMP_BEGIN("w");
  for (i = 0; i < n; i++) {
    fprintf(stderr, "%0.6f ", (double)w[i]);
    if (++cnt % 20 == 0)
      fprintf(stderr, "\n");
  }
  TESSEL_DUMP_END("w");
}

int main(void)
{
  int n = N;
  DATA_TYPE alpha, beta;
  DATA_TYPE (*A)[N][N] = malloc(sizeof(DATA_TYPE[N][N]));
  DATA_TYPE (*u1)[N] = malloc(sizeof(DATA_TYPE[N]));
  DATA_TYPE (*v1)[N] = malloc(sizeof(DATA_TYPE[N]));
  DATA_TYPE (*u2)[N] = malloc(sizeof(DATA_TYPE[N]));
  DATA_TYPE (*v2)[N] = malloc(sizeof(DATA_TYPE[N]));
  DATA_TYPE (*w)[N] = malloc(sizeof(DATA_TYPE[N]));
  DATA_TYPE (*x)[N] = malloc(sizeof(DATA_TYPE[N]));
  DATA_TYPE (*y)[N] = malloc(sizeof(DATA_TYPE[N]));
  DATA_TYPE (*z)[N] = malloc(sizeof(DATA_TYPE[N]));
  TESSEL_CHECK_ALLOC(A);
  TESSEL_CHECK_ALLOC(u1);
  TESSEL_CHECK_ALLOC(v1);
  TESSEL_CHECK_ALLOC(u2);
  TESSEL_CHECK_ALLOC(v2);
  TESSEL_CHECK_ALLOC(w);
  TESSEL_CHECK_ALLOC(x);
  TESSEL_CHECK_ALLOC(y);
  TESSEL_CHECK_ALLOC(z);

  init_array(n, &alpha, &beta, *A, *u1, *v1, *u2, *v2, *w, *x, *y, *z);
  kernel_gemver(n, alpha, beta, *A, *u1, *v1, *u2, *v2, *w, *x, *y, *z);
  print_array(n, *w);

  free(A);
  free(u1);
  free(v1);
  free(u2);
  free(v2);
  free(w);
  free(x);
  free(y);
  free(z);
  return 0;
}
