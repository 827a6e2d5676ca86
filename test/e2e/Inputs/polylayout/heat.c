/* A 2-D heat stencil in a benchmark suite's program layout: arrays on the heap, passed
 * as VLA parameters, the kernel in a #pragma scop, the output dumped to stderr through
 * a separately compiled utility file. */
#include <stdio.h>
#include "benchutil.h"

#ifndef N
# define N 40
#endif
#ifndef TSTEPS
# define TSTEPS 10
#endif

static void init_array(int n, double A[n][n], double B[n][n])
{
  int i, j;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      A[i][j] = (double)((i * (j + 2) + 3) % n) / n;
      B[i][j] = 0.0;
    }
}

static void kernel_heat(int tsteps, int n, double A[n][n], double B[n][n])
{
  int t, i, j;
#pragma scop
  for (t = 0; t < tsteps; t++) {
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        B[i][j] = 0.25 * (A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]);
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        A[i][j] = B[i][j];
  }
#pragma endscop
}

static void print_array(int n, double A[n][n])
{
  int i, j;
  bench_dump_begin("A");
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      if ((i * n + j) % 20 == 0)
        fprintf(stderr, "\n");
      fprintf(stderr, "%0.6lf ", A[i][j]);
    }
  bench_dump_end("A");
}

int main(void)
{
  int n = N;
  double (*A)[n][n] = (double (*)[n][n])bench_alloc((size_t)n * n, sizeof(double));
  double (*B)[n][n] = (double (*)[n][n])bench_alloc((size_t)n * n, sizeof(double));
  init_array(n, *A, *B);
  kernel_heat(TSTEPS, n, *A, *B);
  print_array(n, *A);
  bench_free(A);
  bench_free(B);
  return 0;
}
