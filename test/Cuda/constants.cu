// Module variables: a `__constant__` filter set with cudaMemcpyToSymbol, a `static
// __constant__` table and a `__device__` scalar with initializers, a `__device__` array
// a kernel writes and the host reads back with cudaMemcpyFromSymbol and through
// cudaGetSymbolAddress.
//
// RUN: tesselc %s -o %t
// RUN: env TESSEL_DEVICE=sim %t | FileCheck %s
// RUN: env TESSEL_DEVICE=sim TESSEL_PROFILE=%t.json %t > /dev/null
// RUN: FileCheck %s --check-prefix=PROFILE < %t.json
//
// CHECK: convolve: ok
// CHECK: table: ok
// CHECK: symbol: ok
// CHECK: size: 256
// CHECK: bad symbol: invalid device symbol
// PROFILE: "kernel": "_Z8convolvePKfPfi"
#include <cuda_runtime.h>
#include <stdio.h>

#define N 256
#define R 2

__constant__ float filter[2 * R + 1];
static __constant__ int table[4] = {3, 1, 4, 1};
__device__ int scale = 7;
__device__ int results[N / 4];

__global__ void convolve(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= R && i < n - R) {
    float s = 0;
    for (int k = -R; k <= R; k++)
      s += filter[k + R] * in[i + k];
    out[i] = s;
  }
}

__global__ void lookup(const int *in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N / 4)
    results[i] = table[in[i] & 3] * scale;
}

int main() {
  float in[N], out[N] = {0}, f[2 * R + 1] = {0.1f, 0.2f, 0.4f, 0.2f, 0.1f};
  for (int i = 0; i < N; i++)
    in[i] = (float)(i % 13);
  cudaMemcpyToSymbol(filter, f, sizeof f);
  float *din, *dout;
  cudaMalloc((void **)&din, sizeof in);
  cudaMalloc((void **)&dout, sizeof out);
  cudaMemcpy(din, in, sizeof in, cudaMemcpyHostToDevice);
  cudaMemcpy(dout, out, sizeof out, cudaMemcpyHostToDevice);
  convolve<<<N / 64, 64>>>(din, dout, N);
  cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost);
  bool ok = true;
  for (int i = R; i < N - R; i++) {
    float s = 0;
    for (int k = -R; k <= R; k++)
      s += f[k + R] * in[i + k];
    ok &= out[i] > s - 1e-4f && out[i] < s + 1e-4f;
  }
  printf("convolve: %s\n", ok ? "ok" : "WRONG");

  int keys[N / 4], got[N / 4], *dk;
  for (int i = 0; i < N / 4; i++)
    keys[i] = i * 5;
  cudaMalloc((void **)&dk, sizeof keys);
  cudaMemcpy(dk, keys, sizeof keys, cudaMemcpyHostToDevice);
  lookup<<<1, N / 4>>>(dk);
  cudaMemcpyFromSymbol(got, results, sizeof got);
  const int ref[4] = {3, 1, 4, 1};
  ok = true;
  for (int i = 0; i < N / 4; i++)
    ok &= got[i] == ref[keys[i] & 3] * 7;
  printf("table: %s\n", ok ? "ok" : "WRONG");

  int *dres;
  size_t size = 0;
  cudaGetSymbolAddress((void **)&dres, results);
  cudaGetSymbolSize(&size, results);
  int again[N / 4];
  cudaMemcpy(again, dres, sizeof again, cudaMemcpyDeviceToHost);
  ok = true;
  for (int i = 0; i < N / 4; i++)
    ok &= again[i] == got[i];
  printf("symbol: %s\n", ok ? "ok" : "WRONG");
  printf("size: %zu\n", size);
  int not_a_symbol;
  printf("bad symbol: %s\n",
         cudaGetErrorString(cudaMemcpyToSymbol(not_a_symbol, &size, sizeof(int))));
  return 0;
}
