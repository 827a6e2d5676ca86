#include <stdio.h>
#define N 37
int main(void) {
  double A[N], B[N];
  int i, j, k, m, last;
  for (i = 0; i < N; i++) { A[i] = i * 0.5; B[i] = 0; }
  k = 5;
#pragma scop
  for (i = 0; i < N; i++)
    B[i] = A[i] * 2;
  for (j = N - 1; j >= 3; j -= 4)
    B[j] += 1;
  for (m = 10; m < 3; m++)
    B[m] = 0;
  for (k = 2; k < N && k < 20; k += 3)
    B[k] -= 1;
  last = k;
#pragma endscop
  fprintf(stderr, "%d %d %d %d %d\n", i, j, k, m, last);
  for (i = 0; i < N; i++) fprintf(stderr, "%g ", B[i]);
  fprintf(stderr, "\n");
  return 0;
}
