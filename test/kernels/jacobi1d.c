/*
 * jacobi1d.c -- time-iterated 1D three-point smoothing (weights 1/4, 1/2,
 *               1/4), ping-ponging between two buffers each time step.
 * Family: stencils (1D, time-iterated).  Element type: float.
 */
#include "tessel_kernels.h"

#ifndef TSTEPS
# ifdef SMALL_DATASET
#  define TSTEPS 40
# else
#  define TSTEPS 8
# endif
#endif
#ifndef N
# ifdef SMALL_DATASET
#  define N 200
# else
#  define N 30
# endif
#endif
#ifndef DATA_TYPE
# define DATA_TYPE float
#endif

static void init_array(int n, DATA_TYPE ARR1D(A, N, n), DATA_TYPE ARR1D(B, N, n))
{
  int i;
  for (i = 0; i < n; i++) {
    A[i] = (DATA_TYPE)((i * i + 3) % n) / n;
    B[i] = (DATA_TYPE)((i + 1) % 4) / 4;
  }
}

static void kernel_jacobi1d(int tsteps, int n, DATA_TYPE ARR1D(A, N, n),
                            DATA_TYPE ARR1D(B, N, n))
{
  int t, i;
#pragma scop
  for (t = 0; t < tsteps; t++) {
    for (i = 1; i < n - 1; i++)
      B[i] = 0.25f * A[i - 1] + 0.5f * A[i] + 0.25f * A[i + 1];
    for (i = 1; i < n - 1; i++)
      A[i] = 0.25f * B[i - 1] + 0.5f * B[i] + 0.25f * B[i + 1];
  }
#pragma endscop
}

static void print_array(int n, DATA_TYPE ARR1D(A, N, n))
{
  int i, cnt = 0;
  TESSEL_DUMP_BEGIN("A");
  for (i = 0; i < n; i++) {
    fprintf(stderr, "%0.6f ", (double)A[i]);
    if (++cnt % 20 == 0)
      fprintf(stderr, "\n");
  }
  TESSEL_DUMP_END("A");
}

int main(void)
{
  int tsteps = TSTEPS, n = N;
  DATA_TYPE (*A)[N] = malloc(sizeof(DATA_TYPE[N]));
  DATA_TYPE (*B)[N] = malloc(sizeof(DATA_TYPE[N]));
  TESSEL_CHECK_ALLOC(A);
  TESSEL_CHECK_ALLOC(B);

  init_array(n, *A, *B);
  kernel_jacobi1d(tsteps, n, *A, *B);
  print_array(n, *A);

  free(A);
  free(B);
  return 0;
}
