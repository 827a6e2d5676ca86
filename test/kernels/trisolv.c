/*
 * trisolv.c -- forward substitution: solve L*x = b for lower triangular L.
 * Family: triangular solves.  Element type: double.
 * Triangular bound (j < i) and a division by the diagonal.
 */
#include "tessel_kernels.h"

#ifndef N
# ifdef SMALL_DATASET
#  define N 160
# else
#  define N 28
# endif
#endif
#ifndef DATA_TYPE
# define DATA_TYPE double
#endif

static void init_array(int n, DATA_TYPE ARR2D(L, N, N, n, n),
                       DATA_TYPE ARR1D(x, N, n), DATA_TYPE ARR1D(b, N, n))
{
  int i, j;
  for (i = 0; i < n; i++) {
    x[i] = SCALAR_VAL(-1.0);
    b[i] = (DATA_TYPE)((i * 3 + 1) % 10) / 10;
    for (j = 0; j < i; j++)
      L[i][j] = (DATA_TYPE)((i + j + 1) % 7) / (7 * n);
    L[i][i] = SCALAR_VAL(1.0) + (DATA_TYPE)(i % 3) / 3;
    for (j = i + 1; j < n; j++)
      L[i][j] = SCALAR_VAL(0.0);
  }
}

static void kernel_trisolv(int n, DATA_TYPE ARR2D(L, N, N, n, n),
                           DATA_TYPE ARR1D(x, N, n), DATA_TYPE ARR1D(b, N, n))
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    x[i] = b[i];
    for (j = 0; j < i; j++)
      x[i] -= L[i][j] * x[j];
    x[i] = x[i] / L[i][i];
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
  DATA_TYPE (*L)[N][N] = malloc(sizeof(DATA_TYPE[N][N]));
  DATA_TYPE (*x)[N] = malloc(sizeof(DATA_TYPE[N]));
  DATA_TYPE (*b)[N] = malloc(sizeof(DATA_TYPE[N]));
  TESSEL_CHECK_ALLOC(L);
  TESSEL_CHECK_ALLOC(x);
  TESSEL_CHECK_ALLOC(b);

  init_array(n, *L, *x, *b);
  kernel_trisolv(n, *L, *x, *b);
  print_array(n, *x);

  free(L);
  free(x);
  free(b);
  return 0;
}
