/* A function's static locals in the region, on sim, compared with clang: an array and a
   scalar declared `static` in the kernel's function keep their values from one call to
   the next, and the region reads and writes them by reference as other locals (they
   were taken for file-scope arrays, whose names the compiled region cannot reach). */
#include <stdio.h>

#define N 40

static void kernel(int n, double A[N][N], double x[N], double y[N]) {
  int i, j;
  static double acc[N];
  static double calls;
#pragma scop
  for (i = 0; i < n; i++) {
    acc[i] = acc[i] * 0.5;
    for (j = 0; j < n; j++)
      acc[i] += A[i][j] * x[j];
    y[i] = acc[i] + calls;
  }
  calls = calls + 1.0;
#pragma endscop
}

int main(void) {
  static double A[N][N], x[N], y[N];
  int i, j, call;
  for (i = 0; i < N; i++) {
    x[i] = (i % 7) * 0.25;
    for (j = 0; j < N; j++)
      A[i][j] = ((i * j) % 11) * 0.125 - 0.5;
  }
  for (call = 0; call < 3; call++) {
    kernel(N - call, A, x, y);
    for (i = 0; i < N; i += 5)
      fprintf(stderr, "%d %d %.6f\n", call, i, y[i]);
  }
  return 0;
}
