/*
 * gemm.c -- general matrix-matrix product: C := alpha*A*B + beta*C.
 * Family: matrix products.  Element type: double.
 * The dot product of each (i, j) pair is accumulated in a scalar.
 */
#include "tessel_kernels.h"

#ifndef NI
# ifdef SMALL_DATASET
#  define NI 70
# else
#  define NI 12
# endif
#endif
#ifndef NJ
# ifdef SMALL_DATASET
#  define NJ 80
# else
#  define NJ 14
# endif
#endif
#ifndef NK
# ifdef SMALL_DATASET
#  define NK 90
# else
#  define NK 16
# endif
#endif
#ifndef DATA_TYPE
# define DATA_TYPE double
#endif

static void init_array(int ni, int nj, int nk, DATA_TYPE *alpha, DATA_TYPE *beta,
                       DATA_TYPE ARR2D(C, NI, NJ, ni, nj),
                       DATA_TYPE ARR2D(A, NI, NK, ni, nk),
                       DATA_TYPE ARR2D(B, NK, NJ, nk, nj))
{
  int i, j;
  *alpha = SCALAR_VAL(1.25);
  *beta = SCALAR_VAL(0.75);
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++)
      C[i][j] = (DATA_TYPE)((i * j + 3) % ni) / ni;
  for (i = 0; i < ni; i++)
    for (j = 0; j < nk; j++)
      A[i][j] = (DATA_TYPE)((i * (j + 2) + 1) % nk) / nk;
  for (i = 0; i < nk; i++)
    for (j = 0; j < nj; j++)
      B[i][j] = (DATA_TYPE)((2 * i + j * (i + 1)) % nj) / nj;
}

static void kernel_gemm(int ni, int nj, int nk, DATA_TYPE alpha, DATA_TYPE beta,
                        DATA_TYPE ARR2D(C, NI, NJ, ni, nj),
                        DATA_TYPE ARR2D(A, NI, NK, ni, nk),
                        DATA_TYPE ARR2D(B, NK, NJ, nk, nj))
{
  int i, j, k;
  DATA_TYPE acc;
#pragma scop
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++) {
      acc = 0.0;
      for (k = 0; k < nk; k++)
        acc += A[i][k] * B[k][j];
      C[i][j] = alpha * acc + beta * C[i][j];
    }
#pragma endscop
}

static void print_array(int ni, int nj, DATA_TYPE ARR2D(C, NI, NJ, ni, nj))
{
  int i, j, cnt = 0;
  TESSEL_DUMP_BEGIN("C");
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++) {
      fprintf(stderr, "%0.6f ", (double)C[i][j]);
      if (++cnt % 20 == 0)
        fprintf(stderr, "\n");
    }
  TESSEL_DUMP_END("C");
}

int main(void)
{
  int ni = NI, nj = NJ, nk = NK;
  DATA_TYPE alpha, beta;
  DATA_TYPE (*C)[NI][NJ] = malloc(sizeof(DATA_TYPE[NI][NJ]));
  DATA_TYPE (*A)[NI][NK] = malloc(sizeof(DATA_TYPE[NI][NK]));
  DATA_TYPE (*B)[NK][NJ] = malloc(sizeof(DATA_TYPE[NK][NJ]));
  TESSEL_CHECK_ALLOC(C);
  TESSEL_CHECK_ALLOC(A);
  TESSEL_CHECK_ALLOC(B);

  init_array(ni, nj, nk, &alpha, &beta, *C, *A, *B);
  kernel_gemm(ni, nj, nk, alpha, beta, *C, *A, *B);
  print_array(ni, nj, *C);

  free(C);
  free(A);
  free(B);
  return 0;
}
