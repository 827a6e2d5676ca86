// Managed memory (cudaMallocManaged): the host writes the inputs and reads the results
// in place, with no cudaMemcpy; kernels see what the host wrote, and the host sees what
// they wrote after cudaDeviceSynchronize. On sim it is device memory, which is host
// memory; on a GPU, the driver's managed memory.
//
// RUN: tesselc %s -o %t
// RUN: env TESSEL_DEVICE=sim %t | FileCheck %s
//
// CHECK: managed: ok 499500
#include <cuda_runtime.h>
#include <stdio.h>

#define N 1000

__global__ void square_plus(const int *in, int *out, int n, int add)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] * in[i] + add;
}

__global__ void sum_into(const int *v, unsigned long long *total, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(total, (unsigned long long)v[i]);
}

int main(void)
{
  int *in, *out;
  unsigned long long *total;
  cudaMallocManaged(&in, N * sizeof(int));
  cudaMallocManaged(&out, N * sizeof(int));
  cudaMallocManaged(&total, sizeof(unsigned long long));
  for (int i = 0; i < N; i++)
    in[i] = i % 37;
  *total = 0;
  square_plus<<<(N + 127) / 128, 128>>>(in, out, N, 3);
  cudaDeviceSynchronize();
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += out[i] != (i % 37) * (i % 37) + 3;
  // The host changes the input in place; the next launch sees it.
  for (int i = 0; i < N; i++)
    in[i] = i;
  sum_into<<<(N + 255) / 256, 256>>>(in, total, N);
  cudaDeviceSynchronize();
  printf("managed: %s %llu\n", bad ? "WRONG" : "ok", *total);
  cudaFree(in);
  cudaFree(out);
  cudaFree(total);
  return bad != 0;
}
