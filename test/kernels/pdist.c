/*
 * pdist.c -- pairwise distances between n points in the plane: the
 *            Euclidean distance (sqrtf) for j > i and the Manhattan
 *            distance (fabsf) for j < i, both in one matrix; the diagonal
 *            is 0.  Then the mean Euclidean distance of every point to
 *            the points after it (division by n - 1 - i, guarded by the
 *            loop bound i < n - 1).
 * Family: point-wise math / triangular kernels.  Element type: float.
 * Uses sqrtf and fabsf; triangular bounds on both sides of the diagonal.
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
# define DATA_TYPE float
#endif

static void init_array(int n, DATA_TYPE ARR1D(px, N, n), DATA_TYPE ARR1D(py, N, n),
                       DATA_TYPE ARR1D(cnt, N, n))
{
  int i;
  for (i = 0; i < n; i++) {
    px[i] = (DATA_TYPE)((i * 7 + 3) % 19) / 19;
    py[i] = (DATA_TYPE)((i * 11 + 5) % 23) / 23;
    cnt[i] = (DATA_TYPE)(n - 1 - i);
  }
}

static void kernel_pdist(int n, DATA_TYPE ARR1D(px, N, n), DATA_TYPE ARR1D(py, N, n),
                         DATA_TYPE ARR1D(cnt, N, n), DATA_TYPE ARR2D(D, N, N, n, n),
                         DATA_TYPE ARR1D(mean, N, n))
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    D[i][i] = 0.0f;
    for (j = i + 1; j < n; j++)
      D[i][j] = sqrtf((px[i] - px[j]) * (px[i] - px[j]) + (py[i] - py[j]) * (py[i] - py[j]));
    for (j = 0; j < i; j++)
      D[i][j] = fabsf(px[i] - px[j]) + fabsf(py[i] - py[j]);
  }
  for (i = 0; i < n - 1; i++) {
    mean[i] = 0.0f;
    for (j = i + 1; j < n; j++)
      mean[i] += D[i][j];
    mean[i] /= cnt[i];
  }
  mean[n - 1] = 0.0f;
#pragma endscop
}

static void print_array(int n, DATA_TYPE ARR2D(D, N, N, n, n), DATA_TYPE ARR1D(mean, N, n))
{
  int i, j, c = 0;
  TESSEL_DUMP_BEGIN("D");
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      fprintf(stderr, "%0.6f ", (double)D[i][j]);
      if (++c % 20 == 0)
        fprintf(stderr, "\n");
    }
  TESSEL_DUMP_END("D");
  c = 0;
  TESSEL_DUMP_BEGIN("mean");
  for (i = 0; i < n; i++) {
    fprintf(stderr, "%0.6f ", (double)mean[i]);
    if (++c % 20 == 0)
      fprintf(stderr, "\n");
  }
  TESSEL_DUMP_END("mean");
}

int main(void)
{
  int n = N;
  DATA_TYPE (*px)[N] = malloc(sizeof(DATA_TYPE[N]));
  DATA_TYPE (*py)[N] = malloc(sizeof(DATA_TYPE[N]));
  DATA_TYPE (*cnt)[N] = malloc(sizeof(DATA_TYPE[N]));
  DATA_TYPE (*D)[N][N] = malloc(sizeof(DATA_TYPE[N][N]));
  DATA_TYPE (*mean)[N] = malloc(sizeof(DATA_TYPE[N]));
  TESSEL_CHECK_ALLOC(px);
  TESSEL_CHECK_ALLOC(py);
  TESSEL_CHECK_ALLOC(cnt);
  TESSEL_CHECK_ALLOC(D);
  TESSEL_CHECK_ALLOC(mean);

  init_array(n, *px, *py, *cnt);
  kernel_pdist(n, *px, *py, *cnt, *D, *mean);
  print_array(n, *D, *mean);

  free(px);
  free(py);
  free(cnt);
  free(D);
  free(mean);
  return 0;
}
