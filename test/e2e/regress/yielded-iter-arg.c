/* randprog.py seed 32269: a kernel loop that carries s1 and yields it unchanged (scf.yield %arg) while tessel-forward-stores forwards E[i] to E[i - 1]: the new loop yielded the old loop's block argument, and tesselc crashed in the verifier. */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#define N 5
#define M 6
#define P 2
#define TSTEPS 2

static void kernel_rand(int n, int m, int p, int tsteps, double alpha, int k0, double A[M], double B[m][n], double C[m], int D[N][M], float E[M])
{
  int i = 0, j = 0, k = 0, l = 0, t = 0;
  int q0, q1, q2, c;
  double T[M] = {0};
  float s0 = 0.0f;
  float s1 = 0.0f;
  float s2 = 0.0f;
#pragma scop
  for (i = 1; i < n - 1; i++) {
    s1 = 3.0f;
    for (j = 0; j < i + 1; j++) {
      s1 += sinf(B[j][n - i - 1]);
    }
    T[i - 1] += ((s1 * 0.75) + (s1 * 3.0));
    s1 = fabsf(D[i + 1][i - 1]);
    E[i] *= 1.25f;
    A[m - i - 1] += (alpha * 0.75);
  }
  A[0] = (i * 0.5);
  for (i = 0; i < m; i += 1) {
    double tmp1 = (D[4][m - i - 1] + ((alpha / (fabs(A[i]) + 1.0)) * 0.5));
    C[i] = (tmp1 + (C[i] - alpha));
  }
  for (i = 1; i < m - 1; i++) {
    s1 = s1;
    E[i] -= fabs(((-1.5f) + (1.5f / (fabsf(E[i - 1]) + 1.0f))));
    T[i] += s1;
    D[i][i] += (((i % 16) * (-2)) - (k0 / 4));
    if (i < n - 2) {
      double tmp2 = (((D[i][i + 1] * 2.0) - A[m - i - 1]) * (-1.0));
      C[i + 1] += (((-0.5) - C[i + 1]) + (E[i] - E[i + 1]));
    }
  }
#pragma endscop
  fprintf(stderr, "scalar s1 float inexact: %.10g\n", (double)s1);
  fprintf(stderr, "scalar i int exact: %d\n", i);
  fprintf(stderr, "scalar j int exact: %d\n", j);
  fprintf(stderr, "begin dump: T double inexact\n");
  c = 0;
  for (q0 = 0; q0 < M; q0++)
    { fprintf(stderr, "%.10g ", (double)T[q0]); if (++c % 10 == 0) fprintf(stderr, "\n"); }
  fprintf(stderr, "\nend dump: T\n");
}

int main(void)
{
  int n = N, m = M, p = P, tsteps = TSTEPS;
  int i, j, k, c;
  double (*A)[M] = malloc(sizeof(double[M]));
  double (*B)[M][N] = malloc(sizeof(double[M][N]));
  double (*C)[M] = malloc(sizeof(double[M]));
  int (*D)[N][M] = malloc(sizeof(int[N][M]));
  float (*E)[M] = malloc(sizeof(float[M]));
  for (i = 0; i < M; i++)
    (*A)[i] = (double)((i * 8 + 3) % 17 - 0) / 17;
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++)
      (*B)[i][j] = (double)((i * 6 + j * 6 + 6) % 15 - 7) / 15;
  for (i = 0; i < M; i++)
    (*C)[i] = (double)((i * 2 + 6) % 13 - 0) / 13;
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      (*D)[i][j] = (i * 6 + j * 4 + 4) % 10 - 0;
  for (i = 0; i < M; i++)
    (*E)[i] = (float)((i * 8 + 1) % 12 - 0) / 12;
  kernel_rand(n, m, p, tsteps, 1.5, 3, *A, *B, *C, *D, *E);
  fprintf(stderr, "begin dump: A double exact\n");
  c = 0;
  for (i = 0; i < M; i++)
    { fprintf(stderr, "%.10g ", (double)(*A)[i]); if (++c % 10 == 0) fprintf(stderr, "\n"); }
  fprintf(stderr, "\nend dump: A\n");
  fprintf(stderr, "begin dump: B double inexact\n");
  c = 0;
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++)
      { fprintf(stderr, "%.10g ", (double)(*B)[i][j]); if (++c % 10 == 0) fprintf(stderr, "\n"); }
  fprintf(stderr, "\nend dump: B\n");
  fprintf(stderr, "begin dump: C double exact\n");
  c = 0;
  for (i = 0; i < M; i++)
    { fprintf(stderr, "%.10g ", (double)(*C)[i]); if (++c % 10 == 0) fprintf(stderr, "\n"); }
  fprintf(stderr, "\nend dump: C\n");
  fprintf(stderr, "begin dump: D int exact\n");
  c = 0;
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      { fprintf(stderr, "%d ", (int)(*D)[i][j]); if (++c % 10 == 0) fprintf(stderr, "\n"); }
  fprintf(stderr, "\nend dump: D\n");
  fprintf(stderr, "begin dump: E float exact\n");
  c = 0;
  for (i = 0; i < M; i++)
    { fprintf(stderr, "%.10g ", (double)(*E)[i]); if (++c % 10 == 0) fprintf(stderr, "\n"); }
  fprintf(stderr, "\nend dump: E\n");
  free(A);
  free(B);
  free(C);
  free(D);
  free(E);
  return 0;
}
