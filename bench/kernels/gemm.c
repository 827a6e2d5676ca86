/* gemm.c -- C := C + A * B (paper 000 Fig. 2's matrix product), accumulated in C.
 * 1024x1024: the smallest of paper 000's sizes for gemm (Table 2: 1M to 64M elements). */
#include "bench.h"

#ifndef N
# define N 1024
#endif

static void kernel_gemm(int n, float A[N][N], float B[N][N], float C[N][N])
{
  int i, j, k;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      for (k = 0; k < n; k++)
        C[i][j] += A[i][k] * B[k][j];
#pragma endscop
}

int main(void)
{
  float (*A)[N][N] = malloc(sizeof *A);
  BENCH_CHECK(A);
  float (*B)[N][N] = malloc(sizeof *B);
  BENCH_CHECK(B);
  float (*C)[N][N] = malloc(sizeof *C);
  BENCH_CHECK(C);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      (*A)[i][j] = (float)((i + 2 * j) % 13) / 13.0f;
      (*B)[i][j] = (float)((3 * i + j) % 11) / 11.0f;
      (*C)[i][j] = 0.0f;
    }
  kernel_gemm(N, *A, *B, *C);
  printf("%.6e\n", bench_checksum(*C, (long)N * N, 1, 4));
  free(A);
  free(B);
  free(C);
  return 0;
}
