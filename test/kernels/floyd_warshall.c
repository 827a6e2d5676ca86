/*
 * floyd_warshall.c -- all-pairs shortest paths on a dense weighted graph;
 *                     missing edges carry a large finite weight (NO_EDGE)
 *                     so sums never overflow.
 * Family: dynamic programming / graph.  Element type: int.
 * Ternary min on data; k-loop carries the dependence.
 */
#include "tessel_kernels.h"

#ifndef N
# ifdef SMALL_DATASET
#  define N 120
# else
#  define N 20
# endif
#endif
#ifndef DATA_TYPE
# define DATA_TYPE int
#endif
#define NO_EDGE 9999

static void init_array(int n, DATA_TYPE ARR2D(path, N, N, n, n))
{
  int i, j;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      path[i][j] = (DATA_TYPE)((i * j) % 9 + 1 + (i + 2 * j) % 5);
      if ((i + j) % 3 == 0 || (i * j) % 7 == 3)
        path[i][j] = NO_EDGE;
    }
  for (i = 0; i < n; i++)
    path[i][i] = 0;
}

static void kernel_floyd_warshall(int n, DATA_TYPE ARR2D(path, N, N, n, n))
{
  int i, j, k;
#pragma scop
  for (k = 0; k < n; k++)
    for (i = 0; i < n; i++)
      for (j = 0; j < n; j++)
        path[i][j] = path[i][j] < path[i][k] + path[k][j]
                   ? path[i][j] : path[i][k] + path[k][j];
#pragma endscop
}

static void print_array(int n, DATA_TYPE ARR2D(path, N, N, n, n))
{
  int i, j, cnt = 0;
  TESSEL_DUMP_BEGIN("path");
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      fprintf(stderr, "%0.6f ", (double)path[i][j]);
      if (++cnt % 20 == 0)
        fprintf(stderr, "\n");
    }
  TESSEL_DUMP_END("path");
}

int main(void)
{
  int n = N;
  DATA_TYPE (*path)[N][N] = malloc(sizeof(DATA_TYPE[N][N]));
  TESSEL_CHECK_ALLOC(path);

  init_array(n, *path);
  kernel_floyd_warshall(n, *path);
  print_array(n, *path);

  free(path);
  return 0;
}
