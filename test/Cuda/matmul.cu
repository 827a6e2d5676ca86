// A CUDA program in the style of hand-written GPU benchmarks: a tiled matrix product
// through static shared memory, a row sum through dynamic shared memory, a host check
// against a CPU loop, events timing the kernels and the device's properties. Built by
// tesselc with clang's CUDA support and run on sim.
//
// RUN: tesselc %s -o %t
// RUN: env TESSEL_DEVICE=sim %t | FileCheck %s
// RUN: env TESSEL_DEVICE=sim TESSEL_GPU=gtx690 %t | FileCheck %s --check-prefix=KEPLER
// RUN: env TESSEL_DEVICE=sim TESSEL_PROFILE=%t.json %t > /dev/null
// RUN: FileCheck %s --check-prefix=PROFILE < %t.json
//
// CHECK: device: NVIDIA H100 SXM5 (Tessel sim model), 132 SMs, compute capability 9.0
// CHECK: matmul: 0 mismatches
// CHECK: rowsum: 0 mismatches
// CHECK: memset: ok
// CHECK: time: positive
// KEPLER: device: {{.*}}GTX 690{{.*}}, 8 SMs, compute capability 3.0
// PROFILE: "kernel": "_Z6matmuliPKfS0_Pf"
// PROFILE: "device": "sim"
// PROFILE: "grid": [4, 3, 1]
// PROFILE: "block": [16, 16, 1]
// PROFILE: "kernel": "_Z6rowsumiiPKfPf"
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#ifndef N
#define N 48
#endif
#define M 64
#define TILE 16

__global__ void matmul(int n, const float *a, const float *b, float *c) {
  __shared__ float as[TILE][TILE];
  __shared__ float bs[TILE][TILE + 1];
  int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  float sum = 0;
  for (int t = 0; t < n / TILE; t++) {
    as[threadIdx.y][threadIdx.x] = a[row * n + t * TILE + threadIdx.x];
    bs[threadIdx.y][threadIdx.x] = col < M ? b[(t * TILE + threadIdx.y) * M + col] : 0;
    __syncthreads();
    for (int k = 0; k < TILE; k++)
      sum += as[threadIdx.y][k] * bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < n && col < M)
    c[row * M + col] = sum;
}

// One block per row; a tree reduction in dynamic shared memory.
__global__ void rowsum(int n, int m, const float *c, float *out) {
  extern __shared__ float part[];
  float s = 0;
  for (int j = threadIdx.x; j < m; j += blockDim.x)
    s += sqrtf(fabsf(c[blockIdx.x * m + j]));
  part[threadIdx.x] = s;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w)
      part[threadIdx.x] += part[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = part[0];
}

static int mismatches(const float *x, const float *y, int n) {
  int bad = 0;
  for (int i = 0; i < n; i++)
    if (fabsf(x[i] - y[i]) > 1e-3f * fabsf(x[i]) + 1e-4f)
      bad++;
  return bad;
}

int main(void) {
  cudaDeviceProp p;
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess)
    return 1;
  printf("device: %s, %d SMs, compute capability %d.%d\n", p.name, p.multiProcessorCount,
         p.major, p.minor);
  static float a[N * N], b[N * M], c[N * M], ref[N * M], sums[N], refsums[N];
  for (int i = 0; i < N * N; i++)
    a[i] = (float)(i % 7) - 3.0f;
  for (int i = 0; i < N * M; i++)
    b[i] = (float)(i % 5) * 0.5f;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) {
      float s = 0;
      for (int k = 0; k < N; k++)
        s += a[i * N + k] * b[k * M + j];
      ref[i * M + j] = s;
    }
  for (int i = 0; i < N; i++) {
    float s = 0;
    for (int j = 0; j < M; j++)
      s += sqrtf(fabsf(ref[i * M + j]));
    refsums[i] = s;
  }
  float *da, *db, *dc, *ds;
  cudaMalloc((void **)&da, sizeof a);
  cudaMalloc((void **)&db, sizeof b);
  cudaMalloc((void **)&dc, sizeof c);
  cudaMalloc((void **)&ds, sizeof sums);
  cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b, sizeof b, cudaMemcpyHostToDevice);
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start, 0);
  dim3 block(TILE, TILE), grid((M + TILE - 1) / TILE, N / TILE);
  matmul<<<grid, block>>>(N, da, db, dc);
  rowsum<<<N, 32, 32 * sizeof(float)>>>(N, M, dc, ds);
  cudaEventRecord(stop, 0);
  cudaEventSynchronize(stop);
  if (cudaGetLastError() != cudaSuccess)
    return 1;
  cudaMemcpy(c, dc, sizeof c, cudaMemcpyDeviceToHost);
  cudaMemcpy(sums, ds, sizeof sums, cudaMemcpyDeviceToHost);
  printf("matmul: %d mismatches\n", mismatches(ref, c, N * M));
  printf("rowsum: %d mismatches\n", mismatches(refsums, sums, N));
  cudaMemset(dc, 0, sizeof c);
  cudaMemcpy(c, dc, sizeof c, cudaMemcpyDeviceToHost);
  int zero = 1;
  for (int i = 0; i < N * M; i++)
    zero &= c[i] == 0.0f;
  printf("memset: %s\n", zero ? "ok" : "wrong");
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  printf("time: %s\n", ms > 0 ? "positive" : "zero");
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  cudaFree(ds);
  return 0;
}
