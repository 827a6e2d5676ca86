/*
 * segsum.c -- weighted sums of the fixed-length segments of a 1-D integer
 *             signal, out[i] = sum_k (k + 1) * sig[S*i + k], and their
 *             exclusive-or checksums.
 * Family: reductions.  Element type: int.
 */
#include "tessel_kernels.h"

#ifndef N
# ifdef SMALL_DATASET
#  define N 1024
# else
#  define N 40
# endif
#endif
#define S 16
#ifndef DATA_TYPE
# define DATA_TYPE int
#endif

static void init_array(int n, DATA_TYPE ARR1D(sig, N * S, n * S))
{
  int i;
  for (i = 0; i < n * S; i++)
    sig[i] = (DATA_TYPE)((i * 37 + i / 5) % 101 - 50);
}

static void kernel_segsum(int n, DATA_TYPE ARR1D(sig, N * S, n * S),
                          DATA_TYPE ARR1D(out, N, n), DATA_TYPE ARR1D(top, N, n))
{
  int i, k;
  /* Each thread reads its own segment of the signal: staged through shared memory
     on request, the segments are S words apart (16 lanes in one bank) until each
     thread starts its sums at its own offset (paper 000 Fig. 4: access reordering;
     integer sums and exclusive-ors do not depend on the order). */
#pragma tessel share(sig)
#pragma scop
  for (i = 0; i < n; i++) {
    out[i] = 0;
    top[i] = sig[S * i];
    for (k = 0; k < S; k++) {
      out[i] += (k + 1) * sig[S * i + k];
      top[i] ^= sig[S * i + k];
    }
  }
#pragma endscop
}

static void print_array(int n, DATA_TYPE ARR1D(out, N, n), DATA_TYPE ARR1D(top, N, n))
{
  int i;
  TESSEL_DUMP_BEGIN("out");
  for (i = 0; i < n; i++) {
    fprintf(stderr, "%d ", out[i]);
    if (i % 20 == 19)
      fprintf(stderr, "\n");
  }
  TESSEL_DUMP_END("out");
  TESSEL_DUMP_BEGIN("top");
  for (i = 0; i < n; i++) {
    fprintf(stderr, "%d ", top[i]);
    if (i % 20 == 19)
      fprintf(stderr, "\n");
  }
  TESSEL_DUMP_END("top");
}

int main(void)
{
  int n = N;
  DATA_TYPE (*sig)[N * S] = malloc(sizeof(DATA_TYPE[N * S]));
  DATA_TYPE (*out)[N] = malloc(sizeof(DATA_TYPE[N]));
  DATA_TYPE (*top)[N] = malloc(sizeof(DATA_TYPE[N]));
  TESSEL_CHECK_ALLOC(sig);
  TESSEL_CHECK_ALLOC(out);
  TESSEL_CHECK_ALLOC(top);

  init_array(n, *sig);
  kernel_segsum(n, *sig, *out, *top);
  print_array(n, *out, *top);

  free(sig);
  free(out);
  free(top);
  return 0;
}
