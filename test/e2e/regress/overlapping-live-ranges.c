/* randprog seed 91 with the live-range reordering of local scalars (wrong answer): isl
 * fused the loop reading s0's value from before the scop with the statement that sets
 * s0 = 7 and moved that statement before all but its first iteration: the conditional
 * validity constraint was adjacent to a condition (the copy's live range) that crosses
 * the sequence isl split the scop into, which isl forgets. tessel-schedule now checks
 * the result's dataflow on local scalars and schedules again without reordering. */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#define N 12
#define M 10
#define P 1
#define TSTEPS 2

static void kernel_rand(int n, int m, int p, int tsteps, int k0, double A[N], int B[N], float C[M][N])
{
  int i = 0, j = 0, k = 0, l = 0, t = 0;
  int s0 = 0;
  double c0 = 3.0;
  int c1 = 2;
#pragma scop
  for (i = 0; i <= n - 1; i++) {
    B[i] = (s0 % 1000);
  }
  C[1][1] += (i * 0.5);
  s0 = 7;
  for (i = 1; i < n - 1; i++) {
    s0 += (((B[i - 1] % 100) + B[i + 1]) * 3);
  }
  B[2] += ((s0 * 1) + (B[2] - c1));
  for (i = 0; i < n; i++) {
    A[i] = 0.125;
  }
#pragma endscop
  fprintf(stderr, "scalar i int exact: %d\n", i);
}

int main(void)
{
  int n = N, m = M, p = P, tsteps = TSTEPS;
  int i, j, k, c;
  double (*A)[N] = malloc(sizeof(double[N]));
  int (*B)[N] = malloc(sizeof(int[N]));
  float (*C)[M][N] = malloc(sizeof(float[M][N]));
  for (i = 0; i < N; i++)
    (*A)[i] = (double)((i * 5 + 0) % 15 - 0) / 15;
  for (i = 0; i < N; i++)
    (*B)[i] = (i * 2 + 8) % 13 - 6;
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++)
      (*C)[i][j] = (float)((i * 8 + j * 6 + 7) % 16 - 0) / 16;
  kernel_rand(n, m, p, tsteps, 3, *A, *B, *C);
  fprintf(stderr, "begin dump: A double exact\n");
  c = 0;
  for (i = 0; i < N; i++)
    { fprintf(stderr, "%.10g ", (double)(*A)[i]); if (++c % 10 == 0) fprintf(stderr, "\n"); }
  fprintf(stderr, "\nend dump: A\n");
  fprintf(stderr, "begin dump: B int exact\n");
  c = 0;
  for (i = 0; i < N; i++)
    { fprintf(stderr, "%d ", (int)(*B)[i]); if (++c % 10 == 0) fprintf(stderr, "\n"); }
  fprintf(stderr, "\nend dump: B\n");
  fprintf(stderr, "begin dump: C float exact\n");
  c = 0;
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++)
      { fprintf(stderr, "%.10g ", (double)(*C)[i][j]); if (++c % 10 == 0) fprintf(stderr, "\n"); }
  fprintf(stderr, "\nend dump: C\n");
  free(A);
  free(B);
  free(C);
  return 0;
}
