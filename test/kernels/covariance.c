/*
 * covariance.c -- sample covariance matrix of n observations of m
 *                 variables: column means, centring, then the upper
 *                 triangle of cov (j >= i) mirrored into the lower one.
 * Family: statistics (covariance/correlation).  Element type: double.
 * Triangular bound j = i .. m-1; division by (n - 1).
 */
#include "tessel_kernels.h"

#ifndef M
# ifdef SMALL_DATASET
#  define M 80
# else
#  define M 14
# endif
#endif
#ifndef N
# ifdef SMALL_DATASET
#  define N 100
# else
#  define N 18
# endif
#endif
#ifndef DATA_TYPE
# define DATA_TYPE double
#endif

static void init_array(int m, int n, DATA_TYPE *fn, DATA_TYPE ARR2D(data, N, M, n, m))
{
  int i, j;
  *fn = (DATA_TYPE)n;
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      data[i][j] = (DATA_TYPE)((i * j + 2 * i + j) % m) / m;
}

static void kernel_covariance(int m, int n, DATA_TYPE fn,
                              DATA_TYPE ARR2D(data, N, M, n, m),
                              DATA_TYPE ARR2D(cov, M, M, m, m),
                              DATA_TYPE ARR1D(mean, M, m))
{
  int i, j, k;
#pragma scop
  for (j = 0; j < m; j++) {
    mean[j] = 0.0;
    for (i = 0; i < n; i++)
      mean[j] += data[i][j];
    mean[j] /= fn;
  }
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      data[i][j] -= mean[j];
  for (i = 0; i < m; i++)
    for (j = i; j < m; j++) {
      cov[i][j] = 0.0;
      for (k = 0; k < n; k++)
        cov[i][j] += data[k][i] * data[k][j];
      cov[i][j] /= (fn - 1.0);
      cov[j][i] = cov[i][j];
    }
#pragma endscop
}

static void print_array(int m, DATA_TYPE ARR2D(cov, M, M, m, m))
{
  int i, j, cnt = 0;
  TESSEL_DUMP_BEGIN("cov");
  for (i = 0; i < m; i++)
    for (j = 0; j < m; j++) {
      fprintf(stderr, "%0.6f ", (double)cov[i][j]);
      if (++cnt % 20 == 0)
        fprintf(stderr, "\n");
    }
  TESSEL_DUMP_END("cov");
}

int main(void)
{
  int m = M, n = N;
  DATA_TYPE fn;
  DATA_TYPE (*data)[N][M] = malloc(sizeof(DATA_TYPE[N][M]));
  DATA_TYPE (*cov)[M][M] = malloc(sizeof(DATA_TYPE[M][M]));
  DATA_TYPE (*mean)[M] = malloc(sizeof(DATA_TYPE[M]));
  TESSEL_CHECK_ALLOC(data);
  TESSEL_CHECK_ALLOC(cov);
  TESSEL_CHECK_ALLOC(mean);

  init_array(m, n, &fn, *data);
  kernel_covariance(m, n, fn, *data, *cov, *mean);
  print_array(m, *cov);

  free(data);
  free(cov);
  free(mean);
  return 0;
}
