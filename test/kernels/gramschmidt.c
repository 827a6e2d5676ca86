/*
 * gramschmidt.c -- modified Gram-Schmidt QR factorisation of an m x n
 *                  matrix (m >= n): A = Q*R, Q with orthonormal columns,
 *                  R upper triangular.  A is overwritten.
 * Family: factorizations.  Element type: double.
 * Uses sqrt and division; scalar 'nrm' is live across statements.
 * The input has a dominant diagonal, so its columns are independent.
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
#  define N 100
# else
#  define N 16
# endif
#endif
#ifndef DATA_TYPE
# define DATA_TYPE double
#endif
#if M < N
# error "gramschmidt needs M >= N (at least as many rows as columns)"
#endif

static void init_array(int m, int n, DATA_TYPE ARR2D(A, M, N, m, n),
                       DATA_TYPE ARR2D(R, N, N, n, n), DATA_TYPE ARR2D(Q, M, N, m, n))
{
  int i, j;
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      A[i][j] = (DATA_TYPE)((i + 2 * j) % 7) / 7 + (i == j ? SCALAR_VAL(m) : SCALAR_VAL(0.0));
      Q[i][j] = SCALAR_VAL(0.0);
    }
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      R[i][j] = SCALAR_VAL(0.0);
}

static void kernel_gramschmidt(int m, int n, DATA_TYPE ARR2D(A, M, N, m, n),
                               DATA_TYPE ARR2D(R, N, N, n, n),
                               DATA_TYPE ARR2D(Q, M, N, m, n))
{
  int i, j, k;
  DATA_TYPE nrm;
#pragma scop
  for (k = 0; k < n; k++) {
    nrm = 0.0;
    for (i = 0; i < m; i++)
      nrm += A[i][k] * A[i][k];
    R[k][k] = sqrt(nrm);
    for (i = 0; i < m; i++)
      Q[i][k] = A[i][k] / R[k][k];
    for (j = k + 1; j < n; j++) {
      R[k][j] = 0.0;
      for (i = 0; i < m; i++)
        R[k][j] += Q[i][k] * A[i][j];
      for (i = 0; i < m; i++)
        A[i][j] = A[i][j] - Q[i][k] * R[k][j];
    }
  }
#pragma endscop
}

static void print_array(int m, int n, DATA_TYPE ARR2D(R, N, N, n, n),
                        DATA_TYPE ARR2D(Q, M, N, m, n))
{
  int i, j, cnt = 0;
  TESSEL_DUMP_BEGIN("R");
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      fprintf(stderr, "%0.6f ", (double)R[i][j]);
      if (++cnt % 20 == 0)
        fprintf(stderr, "\n");
    }
  TESSEL_DUMP_END("R");
  cnt = 0;
  TESSEL_DUMP_BEGIN("Q");
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      fprintf(stderr, "%0.6f ", (double)Q[i][j]);
      if (++cnt % 20 == 0)
        fprintf(stderr, "\n");
    }
  TESSEL_DUMP_END("Q");
}

int main(void)
{
  int m = M, n = N;
  DATA_TYPE (*A)[M][N] = malloc(sizeof(DATA_TYPE[M][N]));
  DATA_TYPE (*R)[N][N] = malloc(sizeof(DATA_TYPE[N][N]));
  DATA_TYPE (*Q)[M][N] = malloc(sizeof(DATA_TYPE[M][N]));
  TESSEL_CHECK_ALLOC(A);
  TESSEL_CHECK_ALLOC(R);
  TESSEL_CHECK_ALLOC(Q);

  init_array(m, n, *A, *R, *Q);
  kernel_gramschmidt(m, n, *A, *R, *Q);
  print_array(m, n, *R, *Q);

  free(A);
  free(R);
  free(Q);
  return 0;
}
