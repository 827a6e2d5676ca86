/*
 * 2mm.c -- two chained matrix products: T := alpha*A*B ; D := T*C + beta*D.
 * Family: matrix products and chains.  Element type: double.
 */
#include "tessel_kernels.h"

#ifndef NI
# ifdef SMALL_DATASET
#  define NI 60
# else
#  define NI 10
# endif
#endif
#ifndef NJ
# ifdef SMALL_DATASET
#  define NJ 70
# else
#  define NJ 12
# endif
#endif
#ifndef NK
# ifdef SMALL_DATASET
#  define NK 80
# else
#  define NK 14
# endif
#endif
#ifndef NL
# ifdef SMALL_DATASET
#  define NL 90
# else
#  define NL 16
# endif
#endif
#ifndef DATA_TYPE
# define DATA_TYPE double
#endif

static void init_array(int ni, int nj, int nk, int nl,
                       DATA_TYPE *alpha, DATA_TYPE *beta,
                       DATA_TYPE ARR2D(A, NI, NK, ni, nk),
                       DATA_TYPE ARR2D(B, NK, NJ, nk, nj),
                       DATA_TYPE ARR2D(C, NJ, NL, nj, nl),
                       DATA_TYPE ARR2D(D, NI, NL, ni, nl))
{
  int i, j;
  *alpha = SCALAR_VAL(0.8);
  *beta = SCALAR_VAL(1.1);
  for (i = 0; i < ni; i++)
    for (j = 0; j < nk; j++)
      A[i][j] = (DATA_TYPE)((i + 2 * j + 1) % ni) / ni;
  for (i = 0; i < nk; i++)
    for (j = 0; j < nj; j++)
      B[i][j] = (DATA_TYPE)((i * (j + 3)) % nj) / nj;
  for (i = 0; i < nj; i++)
    for (j = 0; j < nl; j++)
      C[i][j] = (DATA_TYPE)((i * j + 5) % nl) / nl;
  for (i = 0; i < ni; i++)
    for (j = 0; j < nl; j++)
      D[i][j] = (DATA_TYPE)((3 * i + j) % nk) / nk;
}

static void kernel_2mm(int ni, int nj, int nk, int nl,
                       DATA_TYPE alpha, DATA_TYPE beta,
                       DATA_TYPE ARR2D(T, NI, NJ, ni, nj),
                       DATA_TYPE ARR2D(A, NI, NK, ni, nk),
                       DATA_TYPE ARR2D(B, NK, NJ, nk, nj),
                       DATA_TYPE ARR2D(C, NJ, NL, nj, nl),
                       DATA_TYPE ARR2D(D, NI, NL, ni, nl))
{
  int i, j, k;
#pragma scop
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++) {
      T[i][j] = 0.0;
      for (k = 0; k < nk; k++)
        T[i][j] += alpha * A[i][k] * B[k][j];
    }
  for (i = 0; i < ni; i++)
    for (j = 0; j < nl; j++) {
      D[i][j] *= beta;
      for (k = 0; k < nj; k++)
        D[i][j] += T[i][k] * C[k][j];
    }
#pragma endscop
}

static void print_array(int ni, int nl, DATA_TYPE ARR2D(D, NI, NL, ni, nl))
{
  int i, j, cnt = 0;
  TESSEL_DUMP_BEGIN("D");
  for (i = 0; i < ni; i++)
    for (j = 0; j < nl; j++) {
      fprintf(stderr, "%0.6f ", (double)D[i][j]);
      if (++cnt % 20 == 0)
        fprintf(stderr, "\n");
    }
  TESSEL_DUMP_END("D");
}

int main(void)
{
  int ni = NI, nj = NJ, nk = NK, nl = NL;
  DATA_TYPE alpha, beta;
  DATA_TYPE (*T)[NI][NJ] = malloc(sizeof(DATA_TYPE[NI][NJ]));
  DATA_TYPE (*A)[NI][NK] = malloc(sizeof(DATA_TYPE[NI][NK]));
  DATA_TYPE (*B)[NK][NJ] = malloc(sizeof(DATA_TYPE[NK][NJ]));
  DATA_TYPE (*C)[NJ][NL] = malloc(sizeof(DATA_TYPE[NJ][NL]));
  DATA_TYPE (*D)[NI][NL] = malloc(sizeof(DATA_TYPE[NI][NL]));
  TESSEL_CHECK_ALLOC(T);
  TESSEL_CHECK_ALLOC(A);
  TESSEL_CHECK_ALLOC(B);
  TESSEL_CHECK_ALLOC(C);
  TESSEL_CHECK_ALLOC(D);

  init_array(ni, nj, nk, nl, &alpha, &beta, *A, *B, *C, *D);
  kernel_2mm(ni, nj, nk, nl, alpha, beta, *T, *A, *B, *C, *D);
  print_array(ni, nl, *D);

  free(T);
  free(A);
  free(B);
  free(C);
  free(D);
  return 0;
}
