/* Array parameters given less than their declared extent, as C allows: rows of a
 * larger array whose declared extents overlap (the copy back of B's whole extent wrote
 * over A's rows), the last rows of an array (the copy in read past its end), and
 * allocations of the n rows used (the copies ran past them). The host moves only the
 * elements up to the last one a scop may touch. */
#include <stdio.h>
#include <stdlib.h>

#define N 30

static double M[12][4];
static double G[N][N];

static void rows(int n, double A[8][4], double B[8][4])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < 4; j++) {
      A[i][j] = A[i][j] + 1.0;
      B[i][j] = 2.0 * B[i][j];
    }
#pragma endscop
}

static void tail(int n, double A[N][N], double v[N])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      A[i][j] = A[i][j] * 2.0 + v[j];
#pragma endscop
}

int main(void)
{
  int i, j, n = 4;
  double (*X)[N] = malloc(sizeof(double[N]) * n);
  double (*Y)[N] = malloc(sizeof(double[N]) * n);
  for (i = 0; i < 12; i++)
    for (j = 0; j < 4; j++)
      M[i][j] = i * 4 + j;
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      G[i][j] = i * N + j;
  for (i = 0; i < n; i++)
    for (j = 0; j < N; j++) {
      X[i][j] = i;
      Y[i][j] = j;
    }
  rows(2, M + 4, M);
  rows(3, M + 9, M + 6);
  tail(7, G + 20, G[29]);
  tail(n, X, Y[3]);
  tail(n, Y, X[2]);
  for (i = 0; i < 12; i++)
    for (j = 0; j < 4; j++)
      fprintf(stderr, "%g\n", M[i][j]);
  for (i = 18; i < N; i++)
    for (j = 0; j < N; j += 3)
      fprintf(stderr, "%g\n", G[i][j]);
  for (i = 0; i < n; i++)
    for (j = 0; j < N; j += 5)
      fprintf(stderr, "%g %g\n", X[i][j], Y[i][j]);
  free(X);
  free(Y);
  return 0;
}
