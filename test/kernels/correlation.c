/*
 * correlation.c -- Pearson correlation matrix of n observations of m
 *                  variables: means, standard deviations (sqrt, with a
 *                  ternary guard replacing tiny deviations by 1), centring
 *                  and scaling, then the symmetric correlation matrix.
 * Family: statistics (covariance/correlation).  Element type: double.
 * Column 1 of the input is constant, so the stddev guard really fires.
 */
#include "tessel_kernels.h"

#ifndef M
# ifdef SMALL_DATASET
#  define M 80
# else
#  define M 12
# endif
#endif
#ifndef N
# ifdef SMALL_DATASET
#  define N 100
# else
#  define N 16
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
      data[i][j] = (DATA_TYPE)((i * (j + 1) + 3 * j) % n) / n + (DATA_TYPE)i / m;
  for (i = 0; i < n; i++)
    data[i][1] = SCALAR_VAL(0.5);   /* zero variance column */
}

static void kernel_correlation(int m, int n, DATA_TYPE fn, DATA_TYPE eps,
                               DATA_TYPE ARR2D(data, N, M, n, m),
                               DATA_TYPE ARR2D(corr, M, M, m, m),
                               DATA_TYPE ARR1D(mean, M, m),
                               DATA_TYPE ARR1D(stddev, M, m))
{
  int i, j, k;
#pragma scop
  for (j = 0; j < m; j++) {
    mean[j] = 0.0;
    for (i = 0; i < n; i++)
      mean[j] += data[i][j];
    mean[j] /= fn;
  }
  for (j = 0; j < m; j++) {
    stddev[j] = 0.0;
    for (i = 0; i < n; i++)
      stddev[j] += (data[i][j] - mean[j]) * (data[i][j] - mean[j]);
    stddev[j] = sqrt(stddev[j] / fn);
    stddev[j] = stddev[j] <= eps ? 1.0 : stddev[j];
  }
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      data[i][j] = (data[i][j] - mean[j]) / (sqrt(fn) * stddev[j]);
  for (i = 0; i < m - 1; i++) {
    corr[i][i] = 1.0;
    for (j = i + 1; j < m; j++) {
      corr[i][j] = 0.0;
      for (k = 0; k < n; k++)
        corr[i][j] += data[k][i] * data[k][j];
      corr[j][i] = corr[i][j];
    }
  }
  corr[m - 1][m - 1] = 1.0;
#pragma endscop
}

static void print_array(int m, DATA_TYPE ARR2D(corr, M, M, m, m))
{
  int i, j, cnt = 0;
  TESSEL_DUMP_BEGIN("corr");
  for (i = 0; i < m; i++)
    for (j = 0; j < m; j++) {
      fprintf(stderr, "%0.6f ", (double)corr[i][j]);
      if (++cnt % 20 == 0)
        fprintf(stderr, "\n");
    }
  TESSEL_DUMP_END("corr");
}

int main(void)
{
  int m = M, n = N;
  DATA_TYPE fn, eps = SCALAR_VAL(1.0e-3);
  DATA_TYPE (*data)[N][M] = malloc(sizeof(DATA_TYPE[N][M]));
  DATA_TYPE (*corr)[M][M] = malloc(sizeof(DATA_TYPE[M][M]));
  DATA_TYPE (*mean)[M] = malloc(sizeof(DATA_TYPE[M]));
  DATA_TYPE (*stddev)[M] = malloc(sizeof(DATA_TYPE[M]));
  TESSEL_CHECK_ALLOC(data);
  TESSEL_CHECK_ALLOC(corr);
  TESSEL_CHECK_ALLOC(mean);
  TESSEL_CHECK_ALLOC(stddev);

  init_array(m, n, &fn, *data);
  kernel_correlation(m, n, fn, eps, *data, *corr, *mean, *stddev);
  print_array(m, *corr);

  free(data);
  free(corr);
  free(mean);
  free(stddev);
  return 0;
}
