/*
 * sgemm_share.c -- C := alpha*A*B + beta*C in single precision, with paper 000's share
 * pragma of Fig. 2(a): a block's working set is TBY rows of A and TBX columns of B, the
 * extent along k left to the compiler.
 * Family: matrix products.  Element type: float.
 */
#include "tessel_kernels.h"

#ifndef NI
# ifdef SMALL_DATASET
#  define NI 72
# else
#  define NI 20
# endif
#endif
#ifndef NJ
# ifdef SMALL_DATASET
#  define NJ 66
# else
#  define NJ 36
# endif
#endif
#ifndef NK
# ifdef SMALL_DATASET
#  define NK 50
# else
#  define NK 40
# endif
#endif
#ifndef DATA_TYPE
# define DATA_TYPE float
#endif

static void init_array(int ni, int nj, int nk, DATA_TYPE *alpha, DATA_TYPE *beta,
                       DATA_TYPE ARR2D(C, NI, NJ, ni, nj),
                       DATA_TYPE ARR2D(A, NI, NK, ni, nk),
                       DATA_TYPE ARR2D(B, NK, NJ, nk, nj))
{
  int i, j;
  *alpha = SCALAR_VAL(1.5);
  *beta = SCALAR_VAL(0.5);
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++)
      C[i][j] = (DATA_TYPE)((3 * i + j + 1) % 7) / 7;
  for (i = 0; i < ni; i++)
    for (j = 0; j < nk; j++)
      A[i][j] = (DATA_TYPE)((i + 2 * j + 3) % 9) / 9;
  for (i = 0; i < nk; i++)
    for (j = 0; j < nj; j++)
      B[i][j] = (DATA_TYPE)((i * j + 5) % 11) / 11;
}

static void kernel_sgemm_share(int ni, int nj, int nk, DATA_TYPE alpha, DATA_TYPE beta,
                               DATA_TYPE ARR2D(C, NI, NJ, ni, nj),
                               DATA_TYPE ARR2D(A, NI, NK, ni, nk),
                               DATA_TYPE ARR2D(B, NK, NJ, nk, nj))
{
  int i, j, k;
#pragma acc share(A[TBY][*], B[*][TBX])
#pragma scop
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++) {
      C[i][j] *= beta;
      for (k = 0; k < nk; k++)
        C[i][j] += alpha * A[i][k] * B[k][j];
    }
#pragma endscop
}

static void print_array(int ni, int nj, DATA_TYPE ARR2D(C, NI, NJ, ni, nj))
{
  int i, j, cnt = 0;
  TESSEL_DUMP_BEGIN("C");
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++) {
      fprintf(stderr, "%0.5f ", (double)C[i][j]);
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
  kernel_sgemm_share(ni, nj, nk, alpha, beta, *C, *A, *B);
  print_array(ni, nj, *C);

  free(C);
  free(A);
  free(B);
  return 0;
}
