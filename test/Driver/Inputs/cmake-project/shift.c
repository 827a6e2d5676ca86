#define N 8
void shift(int n, int A[N]) {
#pragma scop
  for (int i = 0; i < n; i++)
    A[i] = A[i] + OFFSET + FROM_FLAGS;
#pragma endscop
}
