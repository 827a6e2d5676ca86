/* File-scope arrays, one of them static, used by a SCoP: the program built by tesselc
 * must link the kernels to them. */
#include <stdio.h>
#define N 64
double A[N][N], B[N][N];
static double C[N];
void kernel(int n) {
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      B[i][j] = A[i][j] * 2.0 + C[j];
#pragma endscop
}
int main(void) {
  for (int i = 0; i < N; i++) { C[i] = i; for (int j = 0; j < N; j++) A[i][j] = i + j; }
  kernel(N);
  double s = 0; for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) s += B[i][j];
  printf("%f\n", s);
  return 0;
}
