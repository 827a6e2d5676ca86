/*
 * rownorm.c -- four norms of every row of an m x n matrix: L1 (sum of
 *              fabs), L2 (sqrt of the sum of squares), Lp for a run-time
 *              exponent p (pow of fabs, then pow with 1/p) and L-infinity
 *              (ternary max of fabs).  Entries are signed and some are 0.
 * Family: reductions / point-wise math.  Element type: double.
 * Uses fabs, sqrt and pow.
 */
#include "tessel_kernels.h"

#ifndef M
# ifdef SMALL_DATASET
#  define M 120
# else
#  define M 20
# endif
#endif
#ifndef N
# ifdef SMALL_DATASET
#  define N 90
# else
#  define N 14
# endif
#endif
#ifndef DATA_TYPE
# define DATA_TYPE double
#endif

static void init_array(int m, int n, DATA_TYPE ARR2D(A, M, N, m, n))
{
  int i, j;
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++)
      A[i][j] = (DATA_TYPE)((i * 3 + j * 7 + 2) % 13 - 6) / 6;
}

static void kernel_rownorm(int m, int n, DATA_TYPE p, DATA_TYPE ARR2D(A, M, N, m, n),
                           DATA_TYPE ARR1D(l1, M, m), DATA_TYPE ARR1D(l2, M, m),
                           DATA_TYPE ARR1D(lp, M, m), DATA_TYPE ARR1D(linf, M, m))
{
  int i, j;
#pragma scop
  for (i = 0; i < m; i++) {
    l1[i] = 0.0;
    l2[i] = 0.0;
    lp[i] = 0.0;
    linf[i] = 0.0;
    for (j = 0; j < n; j++) {
      l1[i] += fabs(A[i][j]);
      l2[i] += A[i][j] * A[i][j];
      lp[i] += pow(fabs(A[i][j]), p);
      linf[i] = fabs(A[i][j]) > linf[i] ? fabs(A[i][j]) : linf[i];
    }
    l2[i] = sqrt(l2[i]);
    lp[i] = pow(lp[i], 1.0 / p);
  }
#pragma endscop
}

static void print_array(int m, DATA_TYPE ARR1D(l1, M, m), DATA_TYPE ARR1D(l2, M, m),
                        DATA_TYPE ARR1D(lp, M, m), DATA_TYPE ARR1D(linf, M, m))
{
  int i, cnt = 0;
  TESSEL_DUMP_BEGIN("norms");
  for (i = 0; i < m; i++) {
    fprintf(stderr, "%0.6f ", (double)l1[i]);
    fprintf(stderr, "%0.6f ", (double)l2[i]);
    fprintf(stderr, "%0.6f ", (double)lp[i]);
    fprintf(stderr, "%0.6f ", (double)linf[i]);
    cnt += 4;
    if (cnt % 20 == 0)
      fprintf(stderr, "\n");
  }
  TESSEL_DUMP_END("norms");
}

int main(void)
{
  int m = M, n = N;
  DATA_TYPE p = SCALAR_VAL(3.0);
  DATA_TYPE (*A)[M][N] = malloc(sizeof(DATA_TYPE[M][N]));
  DATA_TYPE (*l1)[M] = malloc(sizeof(DATA_TYPE[M]));
  DATA_TYPE (*l2)[M] = malloc(sizeof(DATA_TYPE[M]));
  DATA_TYPE (*lp)[M] = malloc(sizeof(DATA_TYPE[M]));
  DATA_TYPE (*linf)[M] = malloc(sizeof(DATA_TYPE[M]));
  TESSEL_CHECK_ALLOC(A);
  TESSEL_CHECK_ALLOC(l1);
  TESSEL_CHECK_ALLOC(l2);
  TESSEL_CHECK_ALLOC(lp);
  TESSEL_CHECK_ALLOC(linf);

  init_array(m, n, *A);
  kernel_rownorm(m, n, p, *A, *l1, *l2, *lp, *linf);
  print_array(m, *l1, *l2, *lp, *linf);

  free(A);
  free(l1);
  free(l2);
  free(lp);
  free(linf);
  return 0;
}
