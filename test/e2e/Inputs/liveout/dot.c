#include <stdio.h>
#define N 100
static double kernel_dot(int n, double x[N], double y[N]) {
  int i;
  double s;
#pragma scop
  s = 0;
  for (i = 0; i < n; i++)
    s += x[i] * y[i];
#pragma endscop
  return s;
}
int main(void) {
  double x[N], y[N];
  for (int i = 0; i < N; i++) { x[i] = i; y[i] = 2; }
  fprintf(stderr, "%f\n", kernel_dot(N, x, y));
  return 0;
}
