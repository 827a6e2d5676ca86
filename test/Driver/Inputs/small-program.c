#include <stdio.h>
static void scale(int n, double A[16]) {
#pragma scop
  for (int i = 0; i < n; i++)
    A[i] = 2.0 * A[i];
#pragma endscop
}
int main(void) {
  double A[16];
  for (int i = 0; i < 16; i++)
    A[i] = i;
  scale(16, A);
  printf("%g\n", A[15]);
  return 0;
}
