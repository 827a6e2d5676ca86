/* tessel-time-tile on a stencil whose statements read at uneven offsets (-2 and +1
 * down the rows, -1 and +2 along them), over a domain that starts and ends off the
 * arrays' edges, and use the step and the row in their values: the halos, the boxes
 * and the copies back must follow each offset, and each statement copy its step's
 * value of `t`. */
#include <stdio.h>

#define N 300
#define T 7

static void kernel_steps(int n, int steps, double A[N][N], double B[N][N])
{
  int t, i, j;
#pragma scop
  for (t = 0; t < steps; t++) {
    for (i = 2; i < n - 1; i++)
      for (j = 1; j < n - 2; j++)
        B[i][j] = 0.25 * (A[i - 2][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 2]) + t * 0.001 + i * 0.0001;
    for (i = 2; i < n - 1; i++)
      for (j = 1; j < n - 2; j++)
        A[i][j] = B[i][j] - 0.05 * B[i][j + 1];
  }
#pragma endscop
}

int main(void)
{
  static double A[N][N], B[N][N];
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      A[i][j] = (i * 7 + j * 3) % 13;
      B[i][j] = (i + 2 * j) % 5;
    }
  kernel_steps(N - 3, T, A, B);
  double s = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      s += A[i][j] * ((i + j) % 7) + B[i][j] * ((i * j) % 3);
  fprintf(stderr, "scalar s double: %.10e\n", s);
  return 0;
}
