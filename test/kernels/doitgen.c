/*
 * doitgen.c -- multiresolution-analysis style kernel on a 3D array:
 *              for every (r, q): A[r][q][:] := A[r][q][:] * W, using a
 *              1D staging buffer.
 * Family: matrix-vector / tensor contraction (3D).  Element type: double.
 */
#include "tessel_kernels.h"

#ifndef NR
# ifdef SMALL_DATASET
#  define NR 40
# else
#  define NR 8
# endif
#endif
#ifndef NQ
# ifdef SMALL_DATASET
#  define NQ 50
# else
#  define NQ 10
# endif
#endif
#ifndef NP
# ifdef SMALL_DATASET
#  define NP 60
# else
#  define NP 12
# endif
#endif
#ifndef DATA_TYPE
# define DATA_TYPE double
#endif

static void init_array(int nr, int nq, int np,
                       DATA_TYPE ARR3D(A, NR, NQ, NP, nr, nq, np),
                       DATA_TYPE ARR2D(W, NP, NP, np, np))
{
  int r, q, p, s;
  for (r = 0; r < nr; r++)
    for (q = 0; q < nq; q++)
      for (p = 0; p < np; p++)
        A[r][q][p] = (DATA_TYPE)((r * q + 2 * p + 1) % np) / np;
  for (p = 0; p < np; p++)
    for (s = 0; s < np; s++)
      W[p][s] = (DATA_TYPE)((p * s + 3) % np) / (2 * np);
}

static void kernel_doitgen(int nr, int nq, int np,
                           DATA_TYPE ARR3D(A, NR, NQ, NP, nr, nq, np),
                           DATA_TYPE ARR2D(W, NP, NP, np, np),
                           DATA_TYPE ARR1D(buf, NP, np))
{
  int r, q, p, s;
#pragma scop
  for (r = 0; r < nr; r++)
    for (q = 0; q < nq; q++) {
      for (p = 0; p < np; p++) {
        buf[p] = 0.0;
        for (s = 0; s < np; s++)
          buf[p] += A[r][q][s] * W[s][p];
      }
      for (p = 0; p < np; p++)
        A[r][q][p] = buf[p];
    }
#pragma endscop
}

static void print_array(int nr, int nq, int np,
                        DATA_TYPE ARR3D(A, NR, NQ, NP, nr, nq, np))
{
  int r, q, p, cnt = 0;
  TESSEL_DUMP_BEGIN("A");
  for (r = 0; r < nr; r++)
    for (q = 0; q < nq; q++)
      for (p = 0; p < np; p++) {
        fprintf(stderr, "%0.6f ", (double)A[r][q][p]);
        if (++cnt % 20 == 0)
          fprintf(stderr, "\n");
      }
  TESSEL_DUMP_END("A");
}

int main(void)
{
  int nr = NR, nq = NQ, np = NP;
  DATA_TYPE (*A)[NR][NQ][NP] = malloc(sizeof(DATA_TYPE[NR][NQ][NP]));
  DATA_TYPE (*W)[NP][NP] = malloc(sizeof(DATA_TYPE[NP][NP]));
  DATA_TYPE (*buf)[NP] = malloc(sizeof(DATA_TYPE[NP]));
  TESSEL_CHECK_ALLOC(A);
  TESSEL_CHECK_ALLOC(W);
  TESSEL_CHECK_ALLOC(buf);

  init_array(nr, nq, np, *A, *W);
  kernel_doitgen(nr, nq, np, *A, *W, *buf);
  print_array(nr, nq, np, *A);

  free(A);
  free(W);
  free(buf);
  return 0;
}
