#include "common.h"
void scale(int n, int A[N]) {
#pragma scop
  for (int i = 0; i < n; i++)
    A[i] = A[i] * FACTOR;
#pragma endscop
}
