/*
 * 3mm.c -- three matrix products: E := A*B ; F := C*D ; G := E*F.
 * Family: matrix products and chains.  Element type: double.
 */
#include "tessel_kernels.h"

#ifndef NI
# ifdef SMALL_DATASET
#  define NI 60
# else
#  define NI 8
# endif
#endif
#ifndef NJ
# ifdef SMALL_DATASET
#  define NJ 70
# else
#  define NJ 10
# endif
#endif
#ifndef NK
# ifdef SMALL_DATASET
#  define NK 80
# else
#  define NK 12
# endif
#endif
#ifndef NL
# ifdef SMALL_DATASET
#  define NL 90
# else
#  define NL 14
# endif
#endif
#ifndef NM
# ifdef SMALL_DATASET
#  define NM 100
# else
#  define NM 16
# endif
#endif
#ifndef DATA_TYPE
# define DATA_TYPE double
#endif

static void init_array(int ni, int nj, int nk, int nl, int nm,
                       DATA_TYPE ARR2D(A, NI, NK, ni, nk),
                       DATA_TYPE ARR2D(B, NK, NJ, nk, nj),
                       DATA_TYPE ARR2D(C, NJ, NM, nj, nm),
                       DATA_TYPE ARR2D(D, NM, NL, nm, nl))
{
  int i, j;
  for (i = 0; i < ni; i++)
    for (j = 0; j < nk; j++)
      A[i][j] = (DATA_TYPE)((i * j + 2) % ni) / (5 * ni);
  for (i = 0; i < nk; i++)
    for (j = 0; j < nj; j++)
      B[i][j] = (DATA_TYPE)((i + 3 * j + 1) % nj) / (5 * nj);
  for (i = 0; i < nj; i++)
    for (j = 0; j < nm; j++)
      C[i][j] = (DATA_TYPE)((i * (j + 1) + 4) % nl) / (5 * nl);
  for (i = 0; i < nm; i++)
    for (j = 0; j < nl; j++)
      D[i][j] = (DATA_TYPE)((2 * i * j + 1) % nk) / (5 * nk);
}

static void kernel_3mm(int ni, int nj, int nk, int nl, int nm,
                       DATA_TYPE ARR2D(E, NI, NJ, ni, nj),
                       DATA_TYPE ARR2D(A, NI, NK, ni, nk),
                       DATA_TYPE ARR2D(B, NK, NJ, nk, nj),
                       DATA_TYPE ARR2D(F, NJ, NL, nj, nl),
                       DATA_TYPE ARR2D(C, NJ, NM, nj, nm),
                       DATA_TYPE ARR2D(D, NM, NL, nm, nl),
                       DATA_TYPE ARR2D(G, NI, NL, ni, nl))
{
  int i, j, k;
#pragma scop
  /* E := A*B */
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++) {
      E[i][j] = 0.0;
      for (k = 0; k < nk; k++)
        E[i][j] += A[i][k] * B[k][j];
    }
  /* F := C*D */
  for (i = 0; i < nj; i++)
    for (j = 0; j < nl; j++) {
      F[i][j] = 0.0;
      for (k = 0; k < nm; k++)
        F[i][j] += C[i][k] * D[k][j];
    }
  /* G := E*F */
  for (i = 0; i < ni; i++)
    for (j = 0; j < nl; j++) {
      G[i][j] = 0.0;
      for (k = 0; k < nj; k++)
        G[i][j] += E[i][k] * F[k][j];
    }
#pragma endscop
}

static void print_array(int ni, int nl, DATA_TYPE ARR2D(G, NI, NL, ni, nl))
{
  int i, j, cnt = 0;
  TESSEL_DUMP_BEGIN("G");
  for (i = 0; i < ni; i++)
    for (j = 0; j < nl; j++) {
      fprintf(stderr, "%0.6f ", (double)G[i][j]);
      if (++cnt % 20 == 0)
        fprintf(stderr, "\n");
    }
  TESSEL_DUMP_END("G");
}

int main(void)
{
  int ni = NI, nj = NJ, nk = NK, nl = NL, nm = NM;
  DATA_TYPE (*E)[NI][NJ] = malloc(sizeof(DATA_TYPE[NI][NJ]));
  DATA_TYPE (*A)[NI][NK] = malloc(sizeof(DATA_TYPE[NI][NK]));
  DATA_TYPE (*B)[NK][NJ] = malloc(sizeof(DATA_TYPE[NK][NJ]));
  DATA_TYPE (*F)[NJ][NL] = malloc(sizeof(DATA_TYPE[NJ][NL]));
  DATA_TYPE (*C)[NJ][NM] = malloc(sizeof(DATA_TYPE[NJ][NM]));
  DATA_TYPE (*D)[NM][NL] = malloc(sizeof(DATA_TYPE[NM][NL]));
  DATA_TYPE (*G)[NI][NL] = malloc(sizeof(DATA_TYPE[NI][NL]));
  TESSEL_CHECK_ALLOC(E);
  TESSEL_CHECK_ALLOC(A);
  TESSEL_CHECK_ALLOC(B);
  TESSEL_CHECK_ALLOC(F);
  TESSEL_CHECK_ALLOC(C);
  TESSEL_CHECK_ALLOC(D);
  TESSEL_CHECK_ALLOC(G);

  init_array(ni, nj, nk, nl, nm, *A, *B, *C, *D);
  kernel_3mm(ni, nj, nk, nl, nm, *E, *A, *B, *F, *C, *D, *G);
  print_array(ni, nl, *G);

  free(E);
  free(A);
  free(B);
  free(F);
  free(C);
  free(D);
  free(G);
  return 0;
}
