#include <stdio.h>
#define N 16
static void kernel_p(int n, double A[N][N], double B[N][N]) {
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      int t;
      if (A[i][j] > 0.5) t = 1; else t = 0;
      if (t == 1) B[i][j] = A[i][j] * 2;
    }
  for (i = 0; i < n; i++) {
    double u = 0;
    for (j = 0; j < n; j++) {
      if (A[i][j] > 0.3) u = A[i][j];
      if (u > 0.6) B[j][i] += u;
    }
  }
#pragma endscop
}
int main(void) {
  double A[N][N], B[N][N];
  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) { A[i][j] = ((i*7+j*3)%13)/13.0; B[i][j] = 0; }
  kernel_p(N, A, B);
  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) fprintf(stderr, "%g ", B[i][j]);
  fprintf(stderr, "\n");
  return 0;
}
