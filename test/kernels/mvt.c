/*
 * mvt.c -- two matrix-vector products sharing one matrix:
 *          x1 += A * y1 ; x2 += A^T * y2.
 * Family: matrix-vector.  Element type: double.
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

static void init_array(int n,
                       DATA_TYPE ARR1D(x1, N, n), DATA_TYPE ARR1D(x2, N, n),
                       DATA_TYPE ARR1D(y1, N, n), DATA_TYPE ARR1D(y2, N, n),
                       DATA_TYPE ARR2D(A, N, N, n, n))
{
  int i, j;
  for (i = 0; i < n; i++) {
    x1[i] = (DATA_TYPE)(i % 7) / 7;
    x2[i] = (DATA_TYPE)((i + 3) % 5) / 5;
    y1[i] = (DATA_TYPE)((2 * i + 1) % n) / n;
    y2[i] = (DATA_TYPE)((3 * i + 2) % n) / n;
    for (j = 0; j < n; j++)
      A[i][j] = (DATA_TYPE)((i * j + j + 1) % n) / n;
  }
}

static void kernel_mvt(int n,
                       DATA_TYPE ARR1D(x1, N, n), DATA_TYPE ARR1D(x2, N, n),
                       DATA_TYPE ARR1D(y1, N, n), DATA_TYPE ARR1D(y2, N, n),
                       DATA_TYPE ARR2D(A, N, N, n, n))
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      x1[i] += A[i][j] * y1[j];
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      x2[i] += A[j][i] * y2[j];
#pragma endscop
}

static void print_array(int n, DATA_TYPE ARR1D(x1, N, n), DATA_TYPE ARR1D(x2, N, n))
{
  int i, cnt = 0;
  TESSEL_DUMP_BEGIN("x1");
  for (i = 0; i < n; i++) {
    fprintf(stderr, "%0.6f ", (double)x1[i]);
    if (++cnt % 20 == 0)
      fprintf(stderr, "\n");
  }
  TESSEL_DUMP_END("x1");
  cnt = 0;
  TESSEL_DUMP_BEGIN("x2");
  for (i = 0; i < n; i++) {
    fprintf(stderr, "%0.6f ", (double)x2[i]);
    if (++cnt % 20 == 0)
      fprintf(stderr, "\n");
  }
  TESSEL_DUMP_END("x2");
}

int main(void)
{
  int n = N;
  DATA_TYPE (*x1)[N] = malloc(sizeof(DATA_TYPE[N]));
  DATA_TYPE (*x2)[N] = malloc(sizeof(DATA_TYPE[N]));
  DATA_TYPE (*y1)[N] = malloc(sizeof(DATA_TYPE[N]));
  DATA_TYPE (*y2)[N] = malloc(sizeof(DATA_TYPE[N]));
  DATA_TYPE (*A)[N][N] = malloc(sizeof(DATA_TYPE[N][N]));
  TESSEL_CHECK_ALLOC(x1);
  TESSEL_CHECK_ALLOC(x2);
  TESSEL_CHECK_ALLOC(y1);
  TESSEL_CHECK_ALLOC(y2);
  TESSEL_CHECK_ALLOC(A);

  init_array(n, *x1, *x2, *y1, *y2, *A);
  kernel_mvt(n, *x1, *x2, *y1, *y2, *A);
  print_array(n, *x1, *x2);

  free(x1);
  free(x2);
  free(y1);
  free(y2);
  free(A);
  return 0;
}
