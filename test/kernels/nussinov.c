/*
 * nussinov.c -- RNA secondary-structure style dynamic programming: the
 *               maximum number of complementary base pairs (bases coded
 *               0..3, a pair is two bases summing to 3) in every
 *               sub-sequence [i, j], with a minimum hairpin length of 3.
 *               The outer loop runs backwards (i--), the split loop k
 *               combines two smaller intervals.
 * Family: dynamic programming.  Element type: int.
 * Uses ternary max on data, a ternary select on a data comparison, an
 * affine if (j - i >= 4), a decreasing loop and a scalar 'best' that is
 * live across statements.
 */
#include "tessel_kernels.h"

#ifndef N
# ifdef SMALL_DATASET
#  define N 180
# else
#  define N 30
# endif
#endif
#ifndef DATA_TYPE
# define DATA_TYPE int
#endif
#ifndef BASE_TYPE
# define BASE_TYPE int
#endif

static void init_array(int n, BASE_TYPE ARR1D(seq, N, n), DATA_TYPE ARR2D(table, N, N, n, n))
{
  int i, j;
  for (i = 0; i < n; i++)
    seq[i] = (BASE_TYPE)((i * 7 + (i / 3) + 1) % 4);
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      table[i][j] = 0;
}

static void kernel_nussinov(int n, BASE_TYPE ARR1D(seq, N, n),
                            DATA_TYPE ARR2D(table, N, N, n, n))
{
  int i, j, k;
  DATA_TYPE best;
#pragma scop
  for (i = n - 1; i >= 0; i--)
    for (j = i + 1; j < n; j++) {
      best = table[i][j - 1];
      best = best > table[i + 1][j] ? best : table[i + 1][j];
      if (j - i >= 4)
        best = best > table[i + 1][j - 1] + (seq[i] + seq[j] == 3 ? 1 : 0)
             ? best : table[i + 1][j - 1] + (seq[i] + seq[j] == 3 ? 1 : 0);
      for (k = i + 1; k < j; k++)
        best = best > table[i][k] + table[k + 1][j] ? best : table[i][k] + table[k + 1][j];
      table[i][j] = best;
    }
#pragma endscop
}

static void print_array(int n, DATA_TYPE ARR2D(table, N, N, n, n))
{
  int i, j, cnt = 0;
  TESSEL_DUMP_BEGIN("table");
  for (i = 0; i < n; i++)
    for (j = i; j < n; j++) {
      fprintf(stderr, "%0.6f ", (double)table[i][j]);
      if (++cnt % 20 == 0)
        fprintf(stderr, "\n");
    }
  TESSEL_DUMP_END("table");
}

int main(void)
{
  int n = N;
  BASE_TYPE (*seq)[N] = malloc(sizeof(BASE_TYPE[N]));
  DATA_TYPE (*table)[N][N] = malloc(sizeof(DATA_TYPE[N][N]));
  TESSEL_CHECK_ALLOC(seq);
  TESSEL_CHECK_ALLOC(table);

  init_array(n, *seq, *table);
  kernel_nussinov(n, *seq, *table);
  print_array(n, *table);

  free(seq);
  free(table);
  return 0;
}
