// The host side in the generated style: device arrays allocated and copied in a block,
// one launch with named dim3 shapes, error checks around every call.
#include <assert.h>
#include <math.h>
#include "ppcg_mm_kernel.hu"

static float A[NI][NK], B[NK][NJ], C[NI][NJ], R[NI][NJ];

int main() {
  float alpha = 1.5f, beta = 0.5f;
  for (int i = 0; i < NI; i++)
    for (int k = 0; k < NK; k++)
      A[i][k] = (float)((i * k + 1) % 11) / 11;
  for (int k = 0; k < NK; k++)
    for (int j = 0; j < NJ; j++)
      B[k][j] = (float)((k * j + 2) % 13) / 13;
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++)
      R[i][j] = C[i][j] = (float)((i + j) % 7);
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++) {
      R[i][j] *= beta;
      for (int k = 0; k < NK; k++)
        R[i][j] += alpha * A[i][k] * B[k][j];
    }
  {
    float *dev_A, *dev_B, *dev_C;
    cudaCheckReturn(cudaMalloc((void **)&dev_A, (NI) * (NK) * sizeof(float)));
    cudaCheckReturn(cudaMalloc((void **)&dev_B, (NK) * (NJ) * sizeof(float)));
    cudaCheckReturn(cudaMalloc((void **)&dev_C, (NI) * (NJ) * sizeof(float)));
    cudaCheckReturn(cudaMemcpy(dev_A, A, (NI) * (NK) * sizeof(float), cudaMemcpyHostToDevice));
    cudaCheckReturn(cudaMemcpy(dev_B, B, (NK) * (NJ) * sizeof(float), cudaMemcpyHostToDevice));
    cudaCheckReturn(cudaMemcpy(dev_C, C, (NI) * (NJ) * sizeof(float), cudaMemcpyHostToDevice));
    {
      dim3 k0_dimBlock(16, 32);
      dim3 k0_dimGrid((NJ + 31) / 32, (NI + 31) / 32);
      kernel0<<<k0_dimGrid, k0_dimBlock>>>(dev_A, dev_B, dev_C, alpha, beta);
      cudaCheckKernel();
    }
    cudaCheckReturn(cudaMemcpy(C, dev_C, (NI) * (NJ) * sizeof(float), cudaMemcpyDeviceToHost));
    cudaCheckReturn(cudaFree(dev_A));
    cudaCheckReturn(cudaFree(dev_B));
    cudaCheckReturn(cudaFree(dev_C));
  }
  int bad = 0;
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++)
      bad += fabsf(C[i][j] - R[i][j]) > 1e-4f * fabsf(R[i][j]) + 1e-5f;
  printf("mismatches: %d\n", bad);
  return bad != 0;
}
