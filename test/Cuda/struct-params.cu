// Structures passed to kernels by value (clang gives the parameter `byval`): sim copies
// each launch's structure to device memory of its own, which the kernel reads through
// the parameter; fields of mixed sizes and alignments, an array field indexed at run
// time, and a structure and pointers side by side. The launches must give what the CPU
// computes.
//
// RUN: tesselc %s -o %t
// RUN: env TESSEL_DEVICE=sim %t | FileCheck %s
//
// CHECK: affine: ok
// CHECK: mixed: ok
// CHECK: stencil: ok
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>

#define N 1000

struct Affine {
  float a;
  int n;
  float b;
};

struct Mixed {
  char flag;
  double scale;
  short offset;
  long long count;
};

struct Stencil {
  int radius;
  float w[5];
};

__global__ void affine(Affine p, const float *x, float *y)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < p.n)
    y[i] = p.a * x[i] + p.b;
}

__global__ void mixed(const double *x, Mixed m, double *y)
{
  long long i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m.count)
    y[i] = m.flag ? m.scale * x[i] + m.offset : x[i];
}

__global__ void stencil(const float *x, float *y, int n, Stencil s)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < s.radius || i >= n - s.radius)
    return;
  float acc = 0.0f;
  for (int k = -s.radius; k <= s.radius; k++)
    acc += s.w[k + s.radius] * x[i + k];
  y[i] = acc;
}

static void report(const char *name, int bad) { printf("%s: %s\n", name, bad ? "WRONG" : "ok"); }

int main(void)
{
  static float hx[N], hy[N];
  static double dxh[N], dyh[N];
  for (int i = 0; i < N; i++) {
    hx[i] = (float)(i % 17) - 8.0f;
    dxh[i] = (double)(i % 13) * 0.5;
  }
  float *x, *y;
  double *dx, *dy;
  cudaMalloc(&x, N * sizeof(float));
  cudaMalloc(&y, N * sizeof(float));
  cudaMalloc(&dx, N * sizeof(double));
  cudaMalloc(&dy, N * sizeof(double));
  cudaMemcpy(x, hx, N * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(dx, dxh, N * sizeof(double), cudaMemcpyHostToDevice);

  Affine p = {2.0f, N - 3, 1.0f};
  cudaMemset(y, 0, N * sizeof(float));
  affine<<<(N + 127) / 128, 128>>>(p, x, y);
  cudaMemcpy(hy, y, N * sizeof(float), cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += hy[i] != (i < N - 3 ? 2.0f * hx[i] + 1.0f : 0.0f);
  report("affine", bad);

  Mixed m = {1, 1.5, -3, N};
  mixed<<<(N + 255) / 256, 256>>>(dx, m, dy);
  cudaMemcpy(dyh, dy, N * sizeof(double), cudaMemcpyDeviceToHost);
  bad = 0;
  for (int i = 0; i < N; i++)
    bad += dyh[i] != 1.5 * dxh[i] - 3;
  report("mixed", bad);

  Stencil s = {2, {0.1f, 0.2f, 0.4f, 0.2f, 0.1f}};
  cudaMemset(y, 0, N * sizeof(float));
  stencil<<<(N + 63) / 64, 64>>>(x, y, N, s);
  cudaMemcpy(hy, y, N * sizeof(float), cudaMemcpyDeviceToHost);
  bad = 0;
  for (int i = 0; i < N; i++) {
    float want = 0.0f;
    if (i >= 2 && i < N - 2)
      for (int k = -2; k <= 2; k++)
        want += s.w[k + 2] * hx[i + k];
    bad += fabsf(hy[i] - want) > 1e-5f;
  }
  report("stencil", bad);
  return 0;
}
