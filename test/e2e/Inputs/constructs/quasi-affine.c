/* Quasi-affine subscripts, bounds and conditions (`/` and `%` by constants) on sim,
   compared with clang: gathers, a strided reversed loop, a condition on the remainder,
   an upper bound `n / 2` called with a negative n, and an inlined affine helper. */
#include <stdio.h>

#define N 48
#define DATA_TYPE double

static int half(int x) { return x / 2; }

void kernel(int n, DATA_TYPE A[N], DATA_TYPE B[N], DATA_TYPE C[N / 4][4], int M[N]) {
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    B[i / 3] = B[i / 3] + A[i / 3] * i;
  for (i = 0; i < n / 4; i++)
    for (j = 0; j < 4; j++)
      C[i][j] = A[(4 * i + j + 5) % N] + C[(i + j) / 2 % (N / 4)][j];
  for (i = 0; i < n; i++)
    if (i % 3 == 1)
      M[i] = half(i) + i % 5;
    else
      M[i] = -(i / 7);
  for (i = n - 1; i >= 0; i -= 3)
    A[i / 2] = A[i / 2] + B[(i + 1) / 3];
  for (i = 0; i < n / 2; i++)
    A[half(i) + 1] += 0.5 * B[2 * i / 2];
#pragma endscop
}

int main(void) {
  static DATA_TYPE A[N], B[N], C[N / 4][4];
  static int M[N];
  int i, j;
  for (i = 0; i < N; i++) {
    A[i] = (DATA_TYPE)((i * 7) % 11) / 3;
    B[i] = (DATA_TYPE)(i % 5);
    M[i] = 9;
  }
  for (i = 0; i < N / 4; i++)
    for (j = 0; j < 4; j++)
      C[i][j] = i - j;
  kernel(N, A, B, C, M);
  kernel(-7, A, B, C, M);
  kernel(N - 5, A, B, C, M);
  for (i = 0; i < N; i++)
    fprintf(stderr, "%d %.6f %.6f %d\n", i, A[i], B[i], M[i]);
  for (i = 0; i < N / 4; i++)
    for (j = 0; j < 4; j++)
      fprintf(stderr, "%.6f\n", C[i][j]);
  return 0;
}
