// Atomics on global and shared memory: a histogram in shared memory merged into global
// bins, a grid-wide counter, a compare-and-swap loop (a float maximum, as CUDA's
// programming guide builds atomicMax for floats), atomicInc wrapping, atomicExch, and
// the bitwise and min/max forms.
//
// RUN: tesselc %s -o %t
// RUN: env TESSEL_DEVICE=sim %t | FileCheck %s
//
// CHECK: histogram: ok
// CHECK: counter: 4096
// CHECK: fmax: 99.5
// CHECK: inc: 6
// CHECK: exch: ok
// CHECK: bits: and 0 or 255 xor 0 min 0 max 199 umin 0 umax 199 sub -256
#include <cuda_runtime.h>
#include <stdio.h>

#define N 4096
#define BINS 16

__global__ void histogram(const int *v, int n, unsigned *bins) {
  __shared__ unsigned local[BINS];
  if (threadIdx.x < BINS)
    local[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&local[v[i] % BINS], 1u);
  __syncthreads();
  if (threadIdx.x < BINS)
    atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}

__device__ float atomic_fmax(float *addr, float x) {
  int *p = (int *)addr, old = *p, seen;
  do {
    seen = old;
    old = atomicCAS(p, seen, __float_as_int(fmaxf(x, __int_as_float(seen))));
  } while (seen != old);
  return __int_as_float(old);
}

__global__ void many(const int *v, int n, int *counter, float *mx, unsigned *wrap, int *slot,
                     int *bits) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  atomicAdd(counter, 1);
  atomic_fmax(mx, v[i] * 0.5f);
  if (i < 20)
    atomicInc(wrap, 6u);
  atomicExch(slot, 1);
  int x = v[i] & 255;
  atomicAnd(&bits[0], x);
  atomicOr(&bits[1], x);
  if (i < 2)
    atomicXor(&bits[2], 255);
  atomicMin(&bits[3], x);
  atomicMax(&bits[4], x);
  atomicMin((unsigned *)&bits[5], (unsigned)x);
  atomicMax((unsigned *)&bits[6], (unsigned)x);
  if (i < 256)
    atomicSub(&bits[7], 1);
}

int main() {
  int v[N];
  unsigned ref[BINS] = {0};
  for (int i = 0; i < N; i++) {
    v[i] = (i * 7919) % 200;
    ref[v[i] % BINS]++;
  }
  int *dv;
  unsigned *db;
  cudaMalloc((void **)&dv, sizeof v);
  cudaMalloc((void **)&db, BINS * sizeof(unsigned));
  cudaMemcpy(dv, v, sizeof v, cudaMemcpyHostToDevice);
  cudaMemset(db, 0, BINS * sizeof(unsigned));
  histogram<<<8, 128>>>(dv, N, db);
  unsigned bins[BINS];
  cudaMemcpy(bins, db, sizeof bins, cudaMemcpyDeviceToHost);
  bool ok = true;
  for (int b = 0; b < BINS; b++)
    ok &= bins[b] == ref[b];
  printf("histogram: %s\n", ok ? "ok" : "WRONG");

  int *dc, *ds, *dbits;
  float *dm;
  unsigned *dw;
  cudaMalloc((void **)&dc, sizeof(int));
  cudaMalloc((void **)&ds, sizeof(int));
  cudaMalloc((void **)&dm, sizeof(float));
  cudaMalloc((void **)&dw, sizeof(unsigned));
  cudaMalloc((void **)&dbits, 8 * sizeof(int));
  int bits0[8] = {255, 0, 0, 255, 0, 255, 0, 0};
  cudaMemset(dc, 0, sizeof(int));
  cudaMemset(ds, 0, sizeof(int));
  cudaMemset(dm, 0, sizeof(float));
  cudaMemset(dw, 0, sizeof(unsigned));
  cudaMemcpy(dbits, bits0, sizeof bits0, cudaMemcpyHostToDevice);
  many<<<N / 256, 256>>>(dv, N, dc, dm, dw, ds, dbits);
  int counter, slot, bits[8];
  float mx;
  unsigned wrap;
  cudaMemcpy(&counter, dc, sizeof counter, cudaMemcpyDeviceToHost);
  cudaMemcpy(&mx, dm, sizeof mx, cudaMemcpyDeviceToHost);
  cudaMemcpy(&wrap, dw, sizeof wrap, cudaMemcpyDeviceToHost);
  cudaMemcpy(&slot, ds, sizeof slot, cudaMemcpyDeviceToHost);
  cudaMemcpy(bits, dbits, sizeof bits, cudaMemcpyDeviceToHost);
  printf("counter: %d\n", counter);
  printf("fmax: %.1f\n", mx);
  // 20 increments wrapping after 6: 0 1 .. 6 0 1 .. : 20 mod 7 = 6.
  printf("inc: %u\n", wrap);
  printf("exch: %s\n", slot == 1 ? "ok" : "WRONG");
  printf("bits: and %d or %d xor %d min %d max %d umin %u umax %u sub %d\n", bits[0], bits[1],
         bits[2], bits[3], bits[4], (unsigned)bits[5], (unsigned)bits[6], bits[7]);
  return 0;
}
