/* A temporary declared outside the region, written in every iteration of a parallel
   loop and read after the region: its final value is the last iteration's. */
#include <stdio.h>
#define N 50
int main(void) {
  double A[N], B[N], t = -1;
  int i;
  for (i = 0; i < N; i++)
    A[i] = i * 0.25;
#pragma scop
  for (i = 0; i < N; i++) {
    t = A[i] * A[i];
    B[i] = t + 1;
  }
#pragma endscop
  fprintf(stderr, "t=%.4f\n", t);
  for (i = 0; i < N; i++)
    fprintf(stderr, "%.4f\n", B[i]);
  return 0;
}
