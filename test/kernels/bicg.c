/*
 * bicg.c -- the two products of a BiCG iteration step:
 *           s := A^T * r ; q := A * p.
 * Family: matrix-vector.  Element type: double.
 */
#include "tessel_kernels.h"

#ifndef M
# ifdef SMALL_DATASET
#  define M 100
# else
#  define M 16
# endif
#endif
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

static void init_array(int m, int n, DATA_TYPE ARR2D(A, N, M, n, m),
                       DATA_TYPE ARR1D(r, N, n), DATA_TYPE ARR1D(p, M, m))
{
  int i, j;
  for (j = 0; j < m; j++)
    p[j] = (DATA_TYPE)((j * 3) % m) / m;
  for (i = 0; i < n; i++) {
    r[i] = (DATA_TYPE)((i * 5 + 1) % n) / n;
    for (j = 0; j < m; j++)
      A[i][j] = (DATA_TYPE)((i * (j + 1) + 2) % n) / n;
  }
}

static void kernel_bicg(int m, int n, DATA_TYPE ARR2D(A, N, M, n, m),
                        DATA_TYPE ARR1D(s, M, m), DATA_TYPE ARR1D(q, N, n),
                        DATA_TYPE ARR1D(p, M, m), DATA_TYPE ARR1D(r, N, n))
{
  int i, j;
#pragma scop
  for (j = 0; j < m; j++)
    s[j] = 0.0;
  for (i = 0; i < n; i++) {
    q[i] = 0.0;
    for (j = 0; j < m; j++) {
      s[j] += r[i] * A[i][j];
      q[i] += A[i][j] * p[j];
    }
  }
#pragma endscop
}

static void print_array(int m, int n, DATA_TYPE ARR1D(s, M, m), DATA_TYPE ARR1D(q, N, n))
{
  int i, cnt = 0;
  TESSEL_DUMP_BEGIN("s");
  for (i = 0; i < m; i++) {
    fprintf(stderr, "%0.6f ", (double)s[i]);
    if (++cnt % 20 == 0)
      fprintf(stderr, "\n");
  }
  TESSEL_DUMP_END("s");
  cnt = 0;
  TESSEL_DUMP_BEGIN("q");
  for (i = 0; i < n; i++) {
    fprintf(stderr, "%0.6f ", (double)q[i]);
    if (++cnt % 20 == 0)
      fprintf(stderr, "\n");
  }
  TESSEL_DUMP_END("q");
}

int main(void)
{
  int m = M, n = N;
  DATA_TYPE (*A)[N][M] = malloc(sizeof(DATA_TYPE[N][M]));
  DATA_TYPE (*s)[M] = malloc(sizeof(DATA_TYPE[M]));
  DATA_TYPE (*q)[N] = malloc(sizeof(DATA_TYPE[N]));
  DATA_TYPE (*p)[M] = malloc(sizeof(DATA_TYPE[M]));
  DATA_TYPE (*r)[N] = malloc(sizeof(DATA_TYPE[N]));
  TESSEL_CHECK_ALLOC(A);
  TESSEL_CHECK_ALLOC(s);
  TESSEL_CHECK_ALLOC(q);
  TESSEL_CHECK_ALLOC(p);
  TESSEL_CHECK_ALLOC(r);

  init_array(m, n, *A, *r, *p);
  kernel_bicg(m, n, *A, *s, *q, *p, *r);
  print_array(m, n, *s, *q);

  free(A);
  free(s);
  free(q);
  free(p);
  free(r);
  return 0;
}
