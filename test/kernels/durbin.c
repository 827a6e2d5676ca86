/*
 * durbin.c -- Levinson-Durbin recursion: solves the Yule-Walker system
 *             T*y = -r for the symmetric Toeplitz matrix T whose first row
 *             is (1, r[0], ..., r[n-2]).  Each step updates a reflection
 *             coefficient from a dot product against the reversed
 *             solution (subscript k - i - 1), then updates y through the
 *             temporary z.
 * Family: recurrences.  Element type: double.
 * Scalars 'alpha', 'beta' and 'sum' are live across statements and across
 * iterations of the outer loop; division by beta.
 * r[k] = 1/(k+2) makes (1, 1/2, 1/3, ...) convex and decreasing, so T is
 * positive definite and |alpha| < 1 at every step.
 */
#include "tessel_kernels.h"

#ifndef N
# ifdef SMALL_DATASET
#  define N 150
# else
#  define N 20
# endif
#endif
#ifndef DATA_TYPE
# define DATA_TYPE double
#endif

static void init_array(int n, DATA_TYPE ARR1D(r, N, n))
{
  int i;
  for (i = 0; i < n; i++)
    r[i] = SCALAR_VAL(1.0) / (i + 2);
}

static void kernel_durbin(int n, DATA_TYPE ARR1D(r, N, n), DATA_TYPE ARR1D(y, N, n),
                          DATA_TYPE ARR1D(z, N, n))
{
  int i, k;
  DATA_TYPE alpha, beta, sum;
#pragma scop
  y[0] = -r[0];
  beta = 1.0;
  alpha = -r[0];
  for (k = 1; k < n; k++) {
    beta = (1.0 - alpha * alpha) * beta;
    sum = 0.0;
    for (i = 0; i < k; i++)
      sum += r[k - i - 1] * y[i];
    alpha = -(r[k] + sum) / beta;
    for (i = 0; i < k; i++)
      z[i] = y[i] + alpha * y[k - i - 1];
    for (i = 0; i < k; i++)
      y[i] = z[i];
    y[k] = alpha;
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
  DATA_TYPE (*r)[N] = malloc(sizeof(DATA_TYPE[N]));
  DATA_TYPE (*y)[N] = malloc(sizeof(DATA_TYPE[N]));
  DATA_TYPE (*z)[N] = malloc(sizeof(DATA_TYPE[N]));
  TESSEL_CHECK_ALLOC(r);
  TESSEL_CHECK_ALLOC(y);
  TESSEL_CHECK_ALLOC(z);

  init_array(n, *r);
  kernel_durbin(n, *r, *y, *z);
  print_array(n, *y);

  free(r);
  free(y);
  free(z);
  return 0;
}
