/* randprog seed 22919 (wrong: scalar s2): with the tile loops of a skewed band both
 * on the grid (the inner one's bounds use the outer one's counter, a box around its
 * tiles), the point loop of C[j][i], of step 3, used the counter of the point loop
 * mapped before it, which had become a loop over the threads; taken for a bound that
 * moves with a loop run in sequence, it was anchored at its tile's origin with step 1,
 * and C was written at every j. The counters of the threads' loops now count as
 * mapped. */
/* randprog.py seed 22919: features iter_after large livein local_array minmax outptr prewrite ro_livein time triangular vla */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#define N 62
#define M 36
#define P 2
#define TSTEPS 3

static void kernel_rand(int n, int m, int p, int tsteps, double alpha, double *res, float A[m][m], float B[m][n], float C[m][m], double D[m][m])
{
  int i = 0, j = 0, k = 0, l = 0, t = 0;
  int q0, q1, q2, c;
  float T[M] = {0};
  double s0 = 0.0;
  float s1 = 0.0f;
  double s2 = 0.0;
  double w0 = alpha * 2.0 + 1.0;
  D[1][1] = alpha;
#pragma scop
  for (t = 0; t < tsteps; t++) {
    for (i = 1; i < m - 1; i++) {
      for (j = (0 > i - 2 ? 0 : i - 2); j < (m < i + 3 ? m : i + 3); j++) {
        if (((j + j) % 3) == 0) {
          C[j][i] = (alpha + B[i + 1][j]);
        }
        A[j][i] = (B[j][i - 1] * 0.5f);
      }
    }
  }
  B[0][0] += (t * 0.5);
  for (i = 1; i < m - 1; i++) {
    s2 = ((T[i] * 3.0) + ((alpha - C[i][i]) + B[i][i]));
    D[i][i] *= (-1.0);
    C[i][i] = (i * 0.1f);
    D[i][i] += (A[m - i - 1][i] / (fabs((T[i - 1] * C[i][i + 1])) + 1.0));
  }
  for (i = 0; i < m; i += 1) {
    for (j = 0; j < i + 1; j++) {
      if (((j + i) % 3) == 0) {
        A[i][j] = (T[j] + D[i][j]);
      } else {
        A[i][j] = ((((0.5f / 4.0f) / 4.0f) + D[i][j]) * 0.5f);
      }
      double tmp1 = ((((w0 * 3.0) + C[i][j]) * 0.5) * (-1.0));
      D[i][j] = (tmp1 - D[i][j]);
    }
  }
  T[0] = (i * 0.5);
  for (i = 0; i < n; i++) {
    s1 -= (alpha - A[m - 1][1]);
  }
#pragma endscop
  *res = s2 + 1.0;
  fprintf(stderr, "scalar s2 double exact: %.10g\n", (double)s2);
  fprintf(stderr, "scalar t int exact: %d\n", t);
  fprintf(stderr, "scalar i int exact: %d\n", i);
  fprintf(stderr, "scalar j int exact: %d\n", j);
  fprintf(stderr, "begin dump: T float exact\n");
  c = 0;
  for (q0 = 0; q0 < M; q0++)
    { fprintf(stderr, "%.10g ", (double)T[q0]); if (++c % 10 == 0) fprintf(stderr, "\n"); }
  fprintf(stderr, "\nend dump: T\n");
}

int main(void)
{
  int n = N, m = M, p = P, tsteps = TSTEPS;
  int i, j, k, c;
  double res = 0.0;
  float (*A)[M][M] = malloc(sizeof(float[M][M]));
  float (*B)[M][N] = malloc(sizeof(float[M][N]));
  float (*C)[M][M] = malloc(sizeof(float[M][M]));
  double (*D)[M][M] = malloc(sizeof(double[M][M]));
  for (i = 0; i < M; i++)
    for (j = 0; j < M; j++)
      (*A)[i][j] = (float)((i * 4 + j * 2 + 6) % 7 - 0) / 7;
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++)
      (*B)[i][j] = (float)((i * 4 + j * 4 + 2) % 14 - 0) / 14;
  for (i = 0; i < M; i++)
    for (j = 0; j < M; j++)
      (*C)[i][j] = (float)((i * 1 + j * 5 + 4) % 10 - 5) / 10;
  for (i = 0; i < M; i++)
    for (j = 0; j < M; j++)
      (*D)[i][j] = (double)((i * 4 + j * 1 + 5) % 12 - 0) / 12;
  kernel_rand(n, m, p, tsteps, 1.5, &res, *A, *B, *C, *D);
  fprintf(stderr, "begin dump: A float exact\n");
  c = 0;
  for (i = 0; i < M; i++)
    for (j = 0; j < M; j++)
      { fprintf(stderr, "%.10g ", (double)(*A)[i][j]); if (++c % 10 == 0) fprintf(stderr, "\n"); }
  fprintf(stderr, "\nend dump: A\n");
  fprintf(stderr, "begin dump: B float exact\n");
  c = 0;
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++)
      { fprintf(stderr, "%.10g ", (double)(*B)[i][j]); if (++c % 10 == 0) fprintf(stderr, "\n"); }
  fprintf(stderr, "\nend dump: B\n");
  fprintf(stderr, "begin dump: C float exact\n");
  c = 0;
  for (i = 0; i < M; i++)
    for (j = 0; j < M; j++)
      { fprintf(stderr, "%.10g ", (double)(*C)[i][j]); if (++c % 10 == 0) fprintf(stderr, "\n"); }
  fprintf(stderr, "\nend dump: C\n");
  fprintf(stderr, "begin dump: D double exact\n");
  c = 0;
  for (i = 0; i < M; i++)
    for (j = 0; j < M; j++)
      { fprintf(stderr, "%.10g ", (double)(*D)[i][j]); if (++c % 10 == 0) fprintf(stderr, "\n"); }
  fprintf(stderr, "\nend dump: D\n");
  fprintf(stderr, "scalar res double exact: %.10g\n", res);
  free(A);
  free(B);
  free(C);
  free(D);
  return 0;
}
