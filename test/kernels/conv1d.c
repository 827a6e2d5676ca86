/*
 * conv1d.c -- full 1D convolution y = w * x of a length-n signal with a
 *             length-m kernel (output length n + m - 1).  The inner loop
 *             bounds are max/min expressions written as ternaries:
 *             k from max(0, i-n+1) to min(i, m-1).
 * Family: convolution.  Element type: float.
 */
#include "tessel_kernels.h"

#ifndef N
# ifdef SMALL_DATASET
#  define N 200
# else
#  define N 32
# endif
#endif
#ifndef M
# ifdef SMALL_DATASET
#  define M 9
# else
#  define M 5
# endif
#endif
#ifndef DATA_TYPE
# define DATA_TYPE float
#endif

static void init_array(int n, int m, DATA_TYPE ARR1D(x, N, n), DATA_TYPE ARR1D(wt, M, m))
{
  int i;
  for (i = 0; i < n; i++)
    x[i] = (DATA_TYPE)((i * 5 + 2) % 13) / 13;
  for (i = 0; i < m; i++)
    wt[i] = (DATA_TYPE)(i + 1) / (m * (m + 1) / 2);
}

static void kernel_conv1d(int n, int m, DATA_TYPE ARR1D(x, N, n),
                          DATA_TYPE ARR1D(wt, M, m),
                          DATA_TYPE ARR1D(y, N + M - 1, n + m - 1))
{
  int i, k;
#pragma scop
  for (i = 0; i < n + m - 1; i++) {
    y[i] = 0.0f;
    for (k = (i - n + 1 > 0 ? i - n + 1 : 0); k <= (i < m - 1 ? i : m - 1); k++)
      y[i] += wt[k] * x[i - k];
  }
#pragma endscop
}

static void print_array(int n, int m, DATA_TYPE ARR1D(y, N + M - 1, n + m - 1))
{
  int i, cnt = 0;
  TESSEL_DUMP_BEGIN("y");
  for (i = 0; i < n + m - 1; i++) {
    fprintf(stderr, "%0.6f ", (double)y[i]);
    if (++cnt % 20 == 0)
      fprintf(stderr, "\n");
  }
  TESSEL_DUMP_END("y");
}

int main(void)
{
  int n = N, m = M;
  DATA_TYPE (*x)[N] = malloc(sizeof(DATA_TYPE[N]));
  DATA_TYPE (*wt)[M] = malloc(sizeof(DATA_TYPE[M]));
  DATA_TYPE (*y)[N + M - 1] = malloc(sizeof(DATA_TYPE[N + M - 1]));
  TESSEL_CHECK_ALLOC(x);
  TESSEL_CHECK_ALLOC(wt);
  TESSEL_CHECK_ALLOC(y);

  init_array(n, m, *x, *wt);
  kernel_conv1d(n, m, *x, *wt, *y);
  print_array(n, m, *y);

  free(x);
  free(wt);
  free(y);
  return 0;
}
