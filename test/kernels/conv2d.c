/*
 * conv2d.c -- 2D convolution of a matrix with a fixed 3x3 stencil of
 *             constant (non-symmetric) coefficients; the border of the
 *             output keeps its initial value.
 * Family: convolution.  Element type: double.
 */
#include "tessel_kernels.h"

#ifndef NI
# ifdef SMALL_DATASET
#  define NI 140
# else
#  define NI 24
# endif
#endif
#ifndef NJ
# ifdef SMALL_DATASET
#  define NJ 120
# else
#  define NJ 20
# endif
#endif
#ifndef DATA_TYPE
# define DATA_TYPE double
#endif

static void init_array(int ni, int nj, DATA_TYPE ARR2D(A, NI, NJ, ni, nj),
                       DATA_TYPE ARR2D(B, NI, NJ, ni, nj))
{
  int i, j;
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++) {
      A[i][j] = (DATA_TYPE)((i * 9 + j * 4 + 1) % 23) / 23;
      B[i][j] = SCALAR_VAL(0.0);
    }
}

static void kernel_conv2d(int ni, int nj, DATA_TYPE ARR2D(A, NI, NJ, ni, nj),
                          DATA_TYPE ARR2D(B, NI, NJ, ni, nj))
{
  int i, j;
#pragma scop
  for (i = 1; i < ni - 1; i++)
    for (j = 1; j < nj - 1; j++)
      B[i][j] = 0.05 * A[i - 1][j - 1] + 0.15 * A[i - 1][j] - 0.10 * A[i - 1][j + 1]
              + 0.25 * A[i][j - 1]     + 0.40 * A[i][j]     + 0.30 * A[i][j + 1]
              - 0.20 * A[i + 1][j - 1] + 0.35 * A[i + 1][j] + 0.10 * A[i + 1][j + 1];
#pragma endscop
}

static void print_array(int ni, int nj, DATA_TYPE ARR2D(B, NI, NJ, ni, nj))
{
  int i, j, cnt = 0;
  TESSEL_DUMP_BEGIN("B");
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++) {
      fprintf(stderr, "%0.6f ", (double)B[i][j]);
      if (++cnt % 20 == 0)
        fprintf(stderr, "\n");
    }
  TESSEL_DUMP_END("B");
}

int main(void)
{
  int ni = NI, nj = NJ;
  DATA_TYPE (*A)[NI][NJ] = malloc(sizeof(DATA_TYPE[NI][NJ]));
  DATA_TYPE (*B)[NI][NJ] = malloc(sizeof(DATA_TYPE[NI][NJ]));
  TESSEL_CHECK_ALLOC(A);
  TESSEL_CHECK_ALLOC(B);

  init_array(ni, nj, *A, *B);
  kernel_conv2d(ni, nj, *A, *B);
  print_array(ni, nj, *B);

  free(A);
  free(B);
  return 0;
}
