/* randprog seeds 7127 and 7412 with --passes=tessel-schedule,tessel-tile,tessel-map-to-gpu
 * (sim error: a global memory conflict between threads). isl splits the time-loop nest
 * by conditions on the parameters, and in a piece where a band member has one value
 * it generates no loop for it; the rebuild counted band members by loop nesting, so
 * the time loop below took the coincidence of the member before it and was mapped to
 * threads. Members are now read off the AST iterator (cD, D the schedule depth). */
/* randprog.py seed 7127: features affif calls chain consts livein narrow quasi ro_livein select stride time toplevel triangular */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#define N 11
#define M 4
#define P 3
#define TSTEPS 3

static void kernel_rand(int n, int m, int p, int tsteps, long A[N], double B[M], double C[M][N], int D[N][N])
{
  int i, j, k, l, t;
  double s0 = C[0][0] * 0.5 + 1.0;
  double s1 = 0.0;
  double s2 = 0.0;
  double c0 = 0.25;
  double w0 = n * 2.0 + 1.0;
#pragma scop
  for (i = 0; i < 4; i++) {
    s0 = B[(i) / 3];
    s0 += s0;
    B[(i) % 4] = A[i + 2];
    C[(i) / 4][n - 1] -= C[i][i];
  }
  B[0] = ((c0 / 2.0) + (C[1][1] / (fabs(B[0]) + 1.0)));
  for (t = 0; t < tsteps; t++) {
    for (i = 0; i < m; i++) {
      for (j = 0; j < n; j++) {
        C[i][j] = ((double)(D[j][(i) / 3] - A[j]));
      }
    }
    s0 = ((w0 * 0.125) / 3.0);
  }
#pragma endscop
}

int main(void)
{
  int n = N, m = M, p = P, tsteps = TSTEPS;
  int i, j, k, c;
  long (*A)[N] = malloc(sizeof(long[N]));
  double (*B)[M] = malloc(sizeof(double[M]));
  double (*C)[M][N] = malloc(sizeof(double[M][N]));
  int (*D)[N][N] = malloc(sizeof(int[N][N]));
  for (i = 0; i < N; i++)
    (*A)[i] = (i * 5 + 9) % 11 - 5;
  for (i = 0; i < M; i++)
    (*B)[i] = (double)((i * 5 + 7) % 16 - 0) / 16;
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++)
      (*C)[i][j] = (double)((i * 8 + j * 9 + 8) % 14 - 7) / 14;
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      (*D)[i][j] = (i * 3 + j * 5 + 9) % 12 - 6;
  kernel_rand(n, m, p, tsteps, *A, *B, *C, *D);
  fprintf(stderr, "begin dump: A long exact\n");
  c = 0;
  for (i = 0; i < N; i++)
    { fprintf(stderr, "%ld ", (*A)[i]); if (++c % 10 == 0) fprintf(stderr, "\n"); }
  fprintf(stderr, "\nend dump: A\n");
  fprintf(stderr, "begin dump: B double exact\n");
  c = 0;
  for (i = 0; i < M; i++)
    { fprintf(stderr, "%.10g ", (double)(*B)[i]); if (++c % 10 == 0) fprintf(stderr, "\n"); }
  fprintf(stderr, "\nend dump: B\n");
  fprintf(stderr, "begin dump: C double exact\n");
  c = 0;
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++)
      { fprintf(stderr, "%.10g ", (double)(*C)[i][j]); if (++c % 10 == 0) fprintf(stderr, "\n"); }
  fprintf(stderr, "\nend dump: C\n");
  fprintf(stderr, "begin dump: D int exact\n");
  c = 0;
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      { fprintf(stderr, "%d ", (int)(*D)[i][j]); if (++c % 10 == 0) fprintf(stderr, "\n"); }
  fprintf(stderr, "\nend dump: D\n");
  free(A);
  free(B);
  free(C);
  free(D);
  return 0;
}
