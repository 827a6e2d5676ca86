/* Calls to functions defined in the file are inlined (as pet does): an expression
   function, a function with statements and locals that returns a value, a void function
   that writes a row of a 2-D array through an array parameter, nested calls, an affine
   helper used in a bound and a subscript, and two calls of one function in one
   expression. */
#include <stdio.h>
#define N 24
static double sq(double x) { return x * x; }
static double smooth(double a, double b) {
  double t;
  t = 0.25 * a;
  t = t + 0.75 * b;
  return t;
}
static int lastrow(int n) { return n - 1; }
static void scale_row(int m, double row[N], double f) {
  int j;
  for (j = 0; j < m; j++)
    row[j] = row[j] * f + sq(f);
}
static void kernel_calls(int n, double A[N][N], double B[N][N], double v[N]) {
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      B[i][j] = sq(A[i][j]) + smooth(A[i][j], A[j][i]) - smooth(v[i], v[j]);
  for (i = 0; i < lastrow(n); i++)
    scale_row(n, B[i], v[i]);
  for (i = 1; i < n; i++)
    v[lastrow(i)] = v[i] + sq(smooth(B[i][0], 1.0));
#pragma endscop
}
int main(void) {
  double A[N][N], B[N][N], v[N];
  for (int i = 0; i < N; i++) {
    v[i] = (i % 5) * 0.5;
    for (int j = 0; j < N; j++)
      A[i][j] = ((i * 7 + j * 3) % 11) / 11.0;
  }
  kernel_calls(N, A, B, v);
  for (int i = 0; i < N; i++) {
    fprintf(stderr, "%.8f\n", v[i]);
    for (int j = 0; j < N; j++)
      fprintf(stderr, "%.8f\n", B[i][j]);
  }
  return 0;
}
