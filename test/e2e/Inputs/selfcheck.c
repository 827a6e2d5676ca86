/* A self-checking program: the SCoP runs on the device, main recomputes it in plain C
 * and exits 1 on any difference. */
#include <math.h>
#include <stdio.h>

#define N 100
#define M 70

static void kernel_mv_update(int n, int m, double A[N][M], double x[M], double y[N])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    y[i] = 0.0;
    for (j = 0; j < m; j++)
      y[i] = y[i] + A[i][j] * x[j];
  }
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      A[i][j] = A[i][j] * 0.5 + y[i];
#pragma endscop
}

static double A[N][M], A0[N][M], x[M], y[N], yref[N];

int main(void)
{
  int i, j;
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      A[i][j] = A0[i][j] = (double)((i * 7 + j * 3) % 11) / 11.0;
  for (j = 0; j < M; j++)
    x[j] = (double)(j % 5) / 5.0;
  kernel_mv_update(N, M, A, x, y);
  for (i = 0; i < N; i++) {
    yref[i] = 0.0;
    for (j = 0; j < M; j++)
      yref[i] = yref[i] + A0[i][j] * x[j];
  }
  for (i = 0; i < N; i++) {
    if (fabs(y[i] - yref[i]) > 1e-12) {
      printf("selfcheck: y[%d] = %g, expected %g\n", i, y[i], yref[i]);
      return 1;
    }
    for (j = 0; j < M; j++)
      if (fabs(A[i][j] - (A0[i][j] * 0.5 + yref[i])) > 1e-12) {
        printf("selfcheck: A[%d][%d] differs\n", i, j);
        return 1;
      }
  }
  printf("selfcheck: ok\n");
  return 0;
}
