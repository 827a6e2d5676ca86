/* A local array set before the region, updated in it and read after it; a scalar
   parameter assigned in the region and read after it. */
#include <stdio.h>
#define N 40
static void kernel_local(int n, int shift, double out[N]) {
  int i;
  double T[N];
  for (i = 0; i < N; i++)
    T[i] = i;
#pragma scop
  for (i = 1; i < n; i++)
    T[i] = T[i] + 0.5 * T[i - 1];
  shift = shift * 2 + n;
#pragma endscop
  for (i = 0; i < N; i++)
    out[i] = T[i] + shift;
}
int main(void) {
  double out[N];
  kernel_local(N, 3, out);
  for (int i = 0; i < N; i++)
    fprintf(stderr, "%.6f\n", out[i]);
  return 0;
}
