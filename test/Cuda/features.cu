// C++ and C features of CUDA kernels that reach sim through the llvm dialect: device
// functions, templates, kernels in a namespace, `static` and `extern "C"` kernels,
// structures through pointers, a private array indexed at run time, a loop over a
// pointer, `switch`, doubles, bytes, integer division and remainder, a loop that
// LLVM versions on whether two parameters overlap (pointers into different arrays
// compared), and -c objects linked into a program.
//
// RUN: tesselc %s -o %t
// RUN: env TESSEL_DEVICE=sim %t | FileCheck %s
// RUN: tesselc -c %s -o %t.o
// RUN: tesselc %t.o -o %t.linked
// RUN: env TESSEL_DEVICE=sim %t.linked | FileCheck %s
//
// CHECK: scale<double>: ok
// CHECK: ns::histogram: ok
// CHECK: particles: ok
// CHECK: private: ok
// CHECK: walk: ok
// CHECK: classify: ok
// CHECK: blur: ok
// CHECK: sweep: ok
// CHECK: optional: ok
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>

#define N 200

template <typename T> __device__ T twice(T x) { return x + x; }

template <typename T> __global__ void scale(T *x, T f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = twice(x[i]) * f;
}

namespace ns {
// Each block counts its own values, so blocks never write the same bin.
__global__ void histogram(const int *v, int n, int *bins) {
  __shared__ int local[8];
  if (threadIdx.x < 8)
    local[threadIdx.x] = 0;
  __syncthreads();
  if (threadIdx.x == 0)
    for (int i = blockIdx.x * 25; i < (blockIdx.x + 1) * 25 && i < n; i++)
      local[(unsigned)v[i] % 8u]++;
  __syncthreads();
  if (threadIdx.x < 8)
    bins[blockIdx.x * 8 + threadIdx.x] = local[threadIdx.x];
}
} // namespace ns

struct Particle {
  float x, y;
  double mass;
  int id;
};

static __global__ void particles(Particle *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    p[i].x += p[i].y * 0.5f;
    p[i].mass *= 2.0;
    p[i].id = -p[i].id / 3;
  }
}

extern "C" __global__ void private_array(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int t[16];
  for (int k = 0; k < 16; k++)
    t[k] = k * k;
  if (i < n)
    out[i] = t[in[i] & 15] + t[(in[i] >> 4) & 15];
}

__global__ void walk(float *x, int n) {
  if (threadIdx.x == 0 && blockIdx.x == 0)
    for (float *p = x; p < x + n; p += 2)
      *p = -*p;
}

__global__ void classify(const int *v, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  switch (v[i] % 5) {
  case 0: out[i] = 10; break;
  case 1: out[i] = v[i] * 3; break;
  case 3: out[i] = -1; break;
  default: out[i] = v[i] / 7;
  }
}

__global__ void blur(const unsigned char *in, unsigned char *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1)
    out[i] = (unsigned char)((in[i - 1] + 2 * in[i] + in[i + 1]) / 4);
}

// Row sweeps with a fixed row length: clang -O3 versions the loop on a run-time test of
// whether x and b overlap (`icmp ult ptr` between two parameters).
#define W 64
__global__ void sweep(int n, const float *a, float *b, float *x) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < n)
    for (int c = 1; c < n; c++) {
      x[r * W + c] = x[r * W + c] - x[r * W + c - 1] * a[r * W + c] / b[r * W + c - 1];
      b[r * W + c] = b[r * W + c] - a[r * W + c] * a[r * W + c] / b[r * W + c - 1];
    }
}

// An optional input: a null pointer parameter tested in the kernel.
__global__ void optional(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in ? in[i] * 2 : -1;
}

template <typename T> static T *to_device(const T *h, int n) {
  T *d;
  cudaMalloc((void **)&d, n * sizeof(T));
  cudaMemcpy(d, h, n * sizeof(T), cudaMemcpyHostToDevice);
  return d;
}

template <typename T> static void back(T *h, const T *d, int n) {
  cudaMemcpy(h, d, n * sizeof(T), cudaMemcpyDeviceToHost);
}

static void report(const char *what, bool ok) { printf("%s: %s\n", what, ok ? "ok" : "WRONG"); }

int main() {
  double x[N];
  int v[N];
  for (int i = 0; i < N; i++) {
    x[i] = i * 0.25;
    v[i] = (i * 37) % 101;
  }
  double *dx = to_device(x, N);
  scale<double><<<(N + 63) / 64, 64>>>(dx, 3.0, N);
  double rx[N];
  back(rx, dx, N);
  bool ok = true;
  for (int i = 0; i < N; i++)
    ok &= rx[i] == x[i] * 2 * 3.0;
  report("scale<double>", ok);

  int *dv = to_device(v, N), *db;
  const int blocks = (N + 24) / 25;
  cudaMalloc((void **)&db, blocks * 8 * sizeof(int));
  ns::histogram<<<blocks, 32>>>(dv, N, db);
  int bins[blocks * 8], ref[8] = {0};
  back(bins, db, blocks * 8);
  for (int i = 0; i < N; i++)
    ref[v[i] % 8]++;
  ok = true;
  for (int b = 0; b < 8; b++) {
    int s = 0;
    for (int k = 0; k < blocks; k++)
      s += bins[k * 8 + b];
    ok &= s == ref[b];
  }
  report("ns::histogram", ok);

  Particle p[N];
  for (int i = 0; i < N; i++)
    p[i] = Particle{(float)i, 2.0f, i * 1.5, i};
  Particle *dp = to_device(p, N);
  particles<<<(N + 127) / 128, 128>>>(dp, N);
  Particle rp[N];
  back(rp, dp, N);
  ok = true;
  for (int i = 0; i < N; i++)
    ok &= rp[i].x == i + 1.0f && rp[i].y == 2.0f && rp[i].mass == i * 3.0 && rp[i].id == -i / 3;
  report("particles", ok);

  int *dout;
  cudaMalloc((void **)&dout, N * sizeof(int));
  private_array<<<(N + 31) / 32, 32>>>(dv, dout, N);
  int out[N];
  back(out, dout, N);
  ok = true;
  for (int i = 0; i < N; i++)
    ok &= out[i] == (v[i] & 15) * (v[i] & 15) + ((v[i] >> 4) & 15) * ((v[i] >> 4) & 15);
  report("private", ok);

  float f[N];
  for (int i = 0; i < N; i++)
    f[i] = (float)i;
  float *df = to_device(f, N);
  walk<<<1, 32>>>(df, N);
  back(f, df, N);
  ok = true;
  for (int i = 0; i < N; i++)
    ok &= f[i] == (i % 2 ? (float)i : -(float)i);
  report("walk", ok);

  classify<<<(N + 63) / 64, 64>>>(dv, dout, N);
  back(out, dout, N);
  ok = true;
  for (int i = 0; i < N; i++) {
    int r = v[i] % 5 == 0 ? 10 : v[i] % 5 == 1 ? v[i] * 3 : v[i] % 5 == 3 ? -1 : v[i] / 7;
    ok &= out[i] == r;
  }
  report("classify", ok);

  unsigned char img[N], res[N] = {0};
  for (int i = 0; i < N; i++)
    img[i] = (unsigned char)(i * 13);
  unsigned char *di = to_device(img, N), *dr = to_device(res, N);
  blur<<<(N + 63) / 64, 64>>>(di, dr, N);
  back(res, dr, N);
  ok = res[0] == 0 && res[N - 1] == 0;
  for (int i = 1; i < N - 1; i++)
    ok &= res[i] == (unsigned char)((img[i - 1] + 2 * img[i] + img[i + 1]) / 4);
  report("blur", ok);

  static float wa[W * W], wb[W * W], wx[W * W], qb[W * W], qx[W * W];
  for (int i = 0; i < W * W; i++) {
    wa[i] = ((float)(i % 9) + 1) * 0.1f;
    qb[i] = wb[i] = (float)(i % 7) + 20;
    qx[i] = wx[i] = (float)(i % 5);
  }
  for (int r = 0; r < W; r++)
    for (int c = 1; c < W; c++) {
      qx[r * W + c] = qx[r * W + c] - qx[r * W + c - 1] * wa[r * W + c] / qb[r * W + c - 1];
      qb[r * W + c] = qb[r * W + c] - wa[r * W + c] * wa[r * W + c] / qb[r * W + c - 1];
    }
  float *da = to_device(wa, W * W), *dsb = to_device(wb, W * W), *dsx = to_device(wx, W * W);
  sweep<<<2, 32>>>(W, da, dsb, dsx);
  back(wb, dsb, W * W);
  back(wx, dsx, W * W);
  ok = true;
  // Device code contracts a * b - c into fma (clang's CUDA default): compare closely,
  // not exactly.
  for (int i = 0; i < W * W; i++)
    ok &= fabsf(wb[i] - qb[i]) <= 1e-3f * fabsf(qb[i]) + 1e-3f &&
          fabsf(wx[i] - qx[i]) <= 1e-3f * fabsf(qx[i]) + 1e-3f;
  report("sweep", ok);

  optional<<<(N + 63) / 64, 64>>>(dv, dout, N);
  back(out, dout, N);
  ok = true;
  for (int i = 0; i < N; i++)
    ok &= out[i] == v[i] * 2;
  optional<<<(N + 63) / 64, 64>>>(nullptr, dout, N);
  back(out, dout, N);
  for (int i = 0; i < N; i++)
    ok &= out[i] == -1;
  report("optional", ok);
  return 0;
}
