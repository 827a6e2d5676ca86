// Integer intrinsics (__popc, __clz, __brev; __ffs is inline PTX, which sim refuses), the cycle counter (clock64: on sim,
// the cycles the time model counted for the warp), cooperative groups' block barrier,
// and a C++ host file (Inputs/gold.cpp) built into the program.
//
// RUN: tesselc %s %S/Inputs/gold.cpp -o %t
// RUN: env TESSEL_DEVICE=sim %t | FileCheck %s
//
// CHECK: bits: ok
// CHECK: clock: ok
// CHECK: groups: ok
// CHECK: sms: 132
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <stdio.h>

namespace cg = cooperative_groups;

extern "C" unsigned bits_gold(unsigned x);
extern "C" int device_sms();

__global__ void bits(const unsigned *in, unsigned *out, unsigned *rev, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = __popc(in[i]) + __clz(in[i] | 1);
    rev[i] = __brev(in[i]);
  }
}

__global__ void timed(const float *in, float *out, long long *cycles) {
  long long start = clock64();
  float s = 0;
  for (int k = 0; k < 64; k++)
    s += in[(threadIdx.x + k) % 64];
  out[threadIdx.x] = s;
  if (threadIdx.x == 0)
    cycles[blockIdx.x] = clock64() - start;
}

__global__ void rotate(const int *in, int *out) {
  __shared__ int tile[64];
  cg::thread_block block = cg::this_thread_block();
  tile[block.thread_rank()] = in[blockIdx.x * 64 + block.thread_rank()];
  block.sync();
  out[blockIdx.x * 64 + block.thread_rank()] = tile[(block.thread_rank() + 1) % 64];
}

int main() {
  const int n = 256;
  unsigned in[n], out[n], rev[n];
  for (int i = 0; i < n; i++)
    in[i] = (unsigned)i * 2654435761u;
  unsigned *din, *dout, *drev;
  cudaMalloc((void **)&din, sizeof in);
  cudaMalloc((void **)&dout, sizeof out);
  cudaMalloc((void **)&drev, sizeof rev);
  cudaMemcpy(din, in, sizeof in, cudaMemcpyHostToDevice);
  bits<<<n / 64, 64>>>(din, dout, drev, n);
  cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost);
  cudaMemcpy(rev, drev, sizeof rev, cudaMemcpyDeviceToHost);
  bool ok = true;
  for (int i = 0; i < n; i++) {
    unsigned r = 0;
    for (int b = 0; b < 32; b++)
      r |= ((in[i] >> b) & 1u) << (31 - b);
    ok &= out[i] == bits_gold(in[i]) && rev[i] == r;
  }
  printf("bits: %s\n", ok ? "ok" : "WRONG");

  float f[64], *df, *dg;
  long long cycles[2], *dc;
  for (int i = 0; i < 64; i++)
    f[i] = (float)i;
  cudaMalloc((void **)&df, sizeof f);
  cudaMalloc((void **)&dg, sizeof f);
  cudaMalloc((void **)&dc, sizeof cycles);
  cudaMemcpy(df, f, sizeof f, cudaMemcpyHostToDevice);
  timed<<<1, 64>>>(df, dg, dc);
  cudaMemcpy(cycles, dc, sizeof(long long), cudaMemcpyDeviceToHost);
  // 64 loads and adds, each waiting at least an ALU latency.
  printf("clock: %s\n", cycles[0] > 64 * 4 ? "ok" : "WRONG");

  int a[128], b[128], *da, *db;
  for (int i = 0; i < 128; i++)
    a[i] = i * 3;
  cudaMalloc((void **)&da, sizeof a);
  cudaMalloc((void **)&db, sizeof b);
  cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice);
  rotate<<<2, 64>>>(da, db);
  cudaMemcpy(b, db, sizeof b, cudaMemcpyDeviceToHost);
  ok = true;
  for (int i = 0; i < 128; i++)
    ok &= b[i] == a[(i / 64) * 64 + (i % 64 + 1) % 64];
  printf("groups: %s\n", ok ? "ok" : "WRONG");
  printf("sms: %d\n", device_sms());
  return 0;
}
