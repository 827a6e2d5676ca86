/* randprog seed 2153 with the tiled mapping (sim: global memory conflict): the lower
 * bound of a point loop mapped to threads moved with the tile loop of another member run
 * in sequence in the kernel, so one point went to thread 7 for one tile and to thread 0
 * for the next, and writes to one element of E came from two threads. Such point loops
 * now start each thread at the tile's origin. */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#define N 237
#define M 15
#define P 2
#define TSTEPS 2

static void kernel_rand(int n, int m, int p, int tsteps, double alpha, int k0, int A[M], int B[N][M], double C[M], int D[M], int E[M][N])
{
  int i = 0, j = 0, k = 0, l = 0, t = 0;
  int s0 = 0;
  double s1 = 0.0;
  double w0 = alpha * 2.0 + 1.0;
  A[1] = 7;
#pragma scop
  for (i = 0; i < m; i++) {
    C[i] = (C[i] / 2.0);
    s0 = (3 * 3);
    B[i][i] -= ((k0 - p) - ((D[i] % 16) * 2));
    A[i] = ((((-1) / 3) - (B[i][i] / 3)) + ((int)((alpha - 0.5) * 2.0)));
  }
  B[1][1] += (i + 1);
  for (i = 1; i < m - 1; i += 1) {
    s0 = (-1);
    for (j = 0; j < i + 1; j++) {
      s0 += (-1);
    }
    E[(i) % 2][i] = ((s0 * 3) + A[i]);
    for (j = i + 1; j < m; j += 1) {
      E[j][(i) / 3] = (((int)(D[i] * 4.0)) & 15);
    }
  }
  C[0] = (i * 0.5);
  for (i = 0; i < m; i++) {
    s0 += (-((int)(0.75 * 10.0)));
  }
  E[1][n - 1] = s0;
#pragma endscop
  D[0] = s0;
  fprintf(stderr, "scalar s0 int exact: %d\n", s0);
  fprintf(stderr, "scalar i int exact: %d\n", i);
  fprintf(stderr, "scalar j int exact: %d\n", j);
}

int main(void)
{
  int n = N, m = M, p = P, tsteps = TSTEPS;
  int i, j, k, c;
  int (*A)[M] = malloc(sizeof(int[M]));
  int (*B)[N][M] = malloc(sizeof(int[N][M]));
  double (*C)[M] = malloc(sizeof(double[M]));
  int (*D)[M] = malloc(sizeof(int[M]));
  int (*E)[M][N] = malloc(sizeof(int[M][N]));
  for (i = 0; i < M; i++)
    (*A)[i] = (i * 7 + 3) % 16 - 0;
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      (*B)[i][j] = (i * 2 + j * 8 + 1) % 7 - 3;
  for (i = 0; i < M; i++)
    (*C)[i] = (double)((i * 3 + 9) % 14 - 0) / 14;
  for (i = 0; i < M; i++)
    (*D)[i] = (i * 5 + 3) % 10 - 5;
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++)
      (*E)[i][j] = (i * 9 + j * 1 + 0) % 12 - 6;
  kernel_rand(n, m, p, tsteps, 1.5, 3, *A, *B, *C, *D, *E);
  fprintf(stderr, "begin dump: A int exact\n");
  c = 0;
  for (i = 0; i < M; i++)
    { fprintf(stderr, "%d ", (int)(*A)[i]); if (++c % 10 == 0) fprintf(stderr, "\n"); }
  fprintf(stderr, "\nend dump: A\n");
  fprintf(stderr, "begin dump: B int exact\n");
  c = 0;
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      { fprintf(stderr, "%d ", (int)(*B)[i][j]); if (++c % 10 == 0) fprintf(stderr, "\n"); }
  fprintf(stderr, "\nend dump: B\n");
  fprintf(stderr, "begin dump: C double inexact\n");
  c = 0;
  for (i = 0; i < M; i++)
    { fprintf(stderr, "%.10g ", (double)(*C)[i]); if (++c % 10 == 0) fprintf(stderr, "\n"); }
  fprintf(stderr, "\nend dump: C\n");
  fprintf(stderr, "begin dump: D int exact\n");
  c = 0;
  for (i = 0; i < M; i++)
    { fprintf(stderr, "%d ", (int)(*D)[i]); if (++c % 10 == 0) fprintf(stderr, "\n"); }
  fprintf(stderr, "\nend dump: D\n");
  fprintf(stderr, "begin dump: E int exact\n");
  c = 0;
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++)
      { fprintf(stderr, "%d ", (int)(*E)[i][j]); if (++c % 10 == 0) fprintf(stderr, "\n"); }
  fprintf(stderr, "\nend dump: E\n");
  free(A);
  free(B);
  free(C);
  free(D);
  free(E);
  return 0;
}
