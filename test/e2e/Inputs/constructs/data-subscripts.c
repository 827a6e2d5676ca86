/* Subscripts computed from data on sim, compared with clang: a gather through an index
   array, a scatter through a permutation, a histogram (a may-write in every iteration,
   so the loop must stay sequential), a subscript from a scalar the region computes, a
   product of iterators, and divisions whose dividend goes negative (C's truncation). */
#include <stdio.h>

#define N 64
#define DATA_TYPE double

void kernel(int n, DATA_TYPE A[N], DATA_TYPE B[N], int P[N], int H[8], DATA_TYPE T[N][N]) {
  int i, j, k;
#pragma scop
  for (i = 0; i < n; i++)
    B[i] = A[P[i]] * 2 + B[i];
  for (i = 0; i < n; i++)
    A[P[i]] = A[P[i]] + i;
  for (i = 0; i < n; i++)
    H[P[i] % 8] += P[i] & 3;
  for (i = 0; i < 8; i++) {
    k = (i * 5 + 3) % n;
    B[k] = B[k] + A[i];
  }
  for (i = 0; i < 8; i++)
    for (j = 0; j < 8; j++)
      T[i][i * j] += B[(i - 3) / 2 + 1] - A[(j - 5) % 4 + 4];
#pragma endscop
}

int main(void) {
  static DATA_TYPE A[N], B[N], T[N][N];
  static int P[N], H[8];
  int i, j;
  for (i = 0; i < N; i++) {
    A[i] = (DATA_TYPE)((i * 13) % 17) / 4;
    B[i] = (DATA_TYPE)(i % 7);
    P[i] = (i * 37 + 11) % N; /* a permutation: 37 and 64 are coprime */
  }
  for (i = 0; i < 8; i++)
    H[i] = i;
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      T[i][j] = 0;
  kernel(N, A, B, P, H, T);
  kernel(N / 2, A, B, P, H, T);
  for (i = 0; i < N; i++)
    fprintf(stderr, "%d %.6f %.6f\n", i, A[i], B[i]);
  for (i = 0; i < 8; i++)
    fprintf(stderr, "%d\n", H[i]);
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      if (T[i][j] != 0)
        fprintf(stderr, "%d %d %.6f\n", i, j, T[i][j]);
  return 0;
}
