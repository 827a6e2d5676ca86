/* randprog seed 8301 with --passes=tessel-schedule (crash, SIGSEGV): the dependences
 * of this scop exceed the isl operation bound; coalescing then failed with a quota
 * error, and printing the relation after it gave isl-rs a null string. The scop now
 * keeps its order with a remark, and isl prints nothing of its own. */
/* randprog.py seed 8301: features dataif decl iter_after livein quasi reverse stride time vla */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#define N 10
#define M 11
#define P 2
#define TSTEPS 1

static void kernel_rand(int n, int m, int p, int tsteps, int A[n], int B[n][n], double C[n], float D[m][n])
{
  int i = 0, j = 0, k = 0, l = 0, t = 0;
  float s0 = 0.0f;
#pragma scop
  for (i = n - 1; i >= 0; i -= 2) {
    A[(i) / 4] = (i - 3);
    for (j = 0; j < n; j++) {
      D[i][n - j - 1] = C[i];
      if ((m % 2) == 0) {
        B[(j) / 4][i] += ((int)((D[(j) / 3][i] + C[j]) * 4.0));
        double tmp1 = (((C[i] - C[i]) + (D[m - j - 1][n - i - 1] / (fabs(A[i]) + 1.0))) * 0.5);
        C[(j) / 2] = ((C[i] * 0.75) + (((i * 0.25) + (j * 0.25)) * 0.5));
        D[j][i] = ((D[(j) / 3][i] + (B[n - i - 1][j] * s0)) * 0.5f);
      }
      B[(n - j - 1) / 3][(i) / 3] += (j / 2);
    }
  }
  A[1] = (i + 1);
  for (i = 0; i < n; i++) {
    D[(i) / 4][i] = (s0 * 0.75f);
  }
#pragma endscop
  fprintf(stderr, "scalar i int exact: %d\n", i);
  fprintf(stderr, "scalar j int exact: %d\n", j);
}

int main(void)
{
  int n = N, m = M, p = P, tsteps = TSTEPS;
  int i, j, k, c;
  int (*A)[N] = malloc(sizeof(int[N]));
  int (*B)[N][N] = malloc(sizeof(int[N][N]));
  double (*C)[N] = malloc(sizeof(double[N]));
  float (*D)[M][N] = malloc(sizeof(float[M][N]));
  for (i = 0; i < N; i++)
    (*A)[i] = (i * 5 + 8) % 8 - 0;
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      (*B)[i][j] = (i * 3 + j * 3 + 6) % 11 - 5;
  for (i = 0; i < N; i++)
    (*C)[i] = (double)((i * 3 + 7) % 13 - 0) / 13;
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++)
      (*D)[i][j] = (float)((i * 4 + j * 9 + 9) % 9 - 0) / 9;
  kernel_rand(n, m, p, tsteps, *A, *B, *C, *D);
  fprintf(stderr, "begin dump: A int exact\n");
  c = 0;
  for (i = 0; i < N; i++)
    { fprintf(stderr, "%d ", (int)(*A)[i]); if (++c % 10 == 0) fprintf(stderr, "\n"); }
  fprintf(stderr, "\nend dump: A\n");
  fprintf(stderr, "begin dump: B int exact\n");
  c = 0;
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      { fprintf(stderr, "%d ", (int)(*B)[i][j]); if (++c % 10 == 0) fprintf(stderr, "\n"); }
  fprintf(stderr, "\nend dump: B\n");
  fprintf(stderr, "begin dump: C double exact\n");
  c = 0;
  for (i = 0; i < N; i++)
    { fprintf(stderr, "%.10g ", (double)(*C)[i]); if (++c % 10 == 0) fprintf(stderr, "\n"); }
  fprintf(stderr, "\nend dump: C\n");
  fprintf(stderr, "begin dump: D float exact\n");
  c = 0;
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++)
      { fprintf(stderr, "%.10g ", (double)(*D)[i][j]); if (++c % 10 == 0) fprintf(stderr, "\n"); }
  fprintf(stderr, "\nend dump: D\n");
  free(A);
  free(B);
  free(C);
  free(D);
  return 0;
}
