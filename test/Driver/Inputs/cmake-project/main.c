#include <stdio.h>
#include "common.h"
void scale(int n, int A[N]);
void shift(int n, int A[N]);
int main(void) {
  int A[N];
  for (int i = 0; i < N; i++)
    A[i] = i;
  scale(N, A);
  shift(N, A);
  for (int i = 0; i < N; i++)
    printf("%d ", A[i]);
  printf("\n");
  return 0;
}
