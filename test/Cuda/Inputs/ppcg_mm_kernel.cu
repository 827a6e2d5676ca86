// C = alpha * A * B + beta * C in the generated style: block and thread ids copied into
// b0/b1/t0/t1, tiles of A and B staged in shared memory, each thread keeping two
// elements of C in a private array, partial tiles guarded by min/max bounds.
#include "ppcg_mm_kernel.hu"

__global__ void kernel0(float *A, float *B, float *C, float alpha, float beta) {
  int b0 = blockIdx.y, b1 = blockIdx.x;
  int t0 = threadIdx.y, t1 = threadIdx.x;
  __shared__ float shared_A[32][32];
  __shared__ float shared_B[32][32];
  float private_C[1][2];

  for (int c0 = 32 * b0; c0 < NI; c0 += 8192)
    for (int c1 = 32 * b1; c1 < NJ; c1 += 8192) {
      if (c0 + t0 < NI) {
        if (c1 + t1 < NJ)
          private_C[0][0] = beta * C[(c0 + t0) * NJ + (c1 + t1)];
        if (c1 + t1 + 16 < NJ)
          private_C[0][1] = beta * C[(c0 + t0) * NJ + (c1 + t1 + 16)];
      }
      for (int c2 = 0; c2 < NK; c2 += 32) {
        if (c0 + t0 < NI)
          for (int c4 = t1; c4 <= min(31, NK - c2 - 1); c4 += 16)
            shared_A[t0][c4] = A[(c0 + t0) * NK + (c2 + c4)];
        for (int c3 = t0; c3 <= min(31, NK - c2 - 1); c3 += 32)
          for (int c4 = t1; c4 <= min(31, NJ - c1 - 1); c4 += 16)
            shared_B[c3][c4] = B[(c2 + c3) * NJ + (c1 + c4)];
        __syncthreads();
        if (c0 + t0 < NI)
          for (int c3 = 0; c3 <= min(31, NK - c2 - 1); c3 += 1) {
            if (c1 + t1 < NJ)
              private_C[0][0] += alpha * shared_A[t0][c3] * shared_B[c3][t1];
            if (c1 + t1 + 16 < NJ)
              private_C[0][1] += alpha * shared_A[t0][c3] * shared_B[c3][t1 + 16];
          }
        __syncthreads();
      }
      if (c0 + t0 < NI) {
        if (c1 + t1 < NJ)
          C[(c0 + t0) * NJ + (c1 + t1)] = private_C[0][0];
        if (c1 + t1 + 16 < NJ)
          C[(c0 + t0) * NJ + (c1 + t1 + 16)] = private_C[0][1];
      }
      __syncthreads();
    }
}
