// Warp-level primitives, as PTX's shfl.sync and vote.sync define them: a reduction with
// __shfl_down_sync, a butterfly with __shfl_xor_sync, an inclusive scan with
// __shfl_up_sync, a broadcast within segments of 8 lanes, the votes, the sm_80
// reductions (__reduce_add_sync, __reduce_max_sync), and the sm_70 matches
// (__match_any_sync on 32- and 64-bit keys, __match_all_sync). A shuffle that
// a lane named in its member mask does not reach is an error on sim.
//
// RUN: tesselc %s -o %t
// RUN: env TESSEL_DEVICE=sim %t | FileCheck %s
// RUN: env TESSEL_DEVICE=sim not %t diverge 2>&1 | FileCheck %s --check-prefix=DIVERGE
//
// CHECK: reduce: 32 64 96 128
// CHECK: butterfly: ok
// CHECK: scan: ok
// CHECK: segments: ok
// CHECK: ballot: 0x55555555 all: 0 any: 1 all-even: 1
// CHECK: redux: 32 64 96 128 max 31
// CHECK: match-any: ok
// CHECK: match-all: 0xffffffff 1 0 0
// DIVERGE: error: tessel runtime: kernel '_Z7divergePi' block (0, 0, 0) thread (16, 0, 0): divergent warp operation: lane 16 is named in the member mask 0xffffffff but is not at the ShflDown
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

__global__ void warps(const int *in, int *sum, int *bfly, int *scan, int *seg, int *votes,
                      int *redux) {
  int t = threadIdx.x, lane = t % 32, v = in[t];
  int s = v;
  for (int o = 16; o > 0; o /= 2)
    s += __shfl_down_sync(0xffffffff, s, o);
  if (lane == 0)
    sum[t / 32] = s;
  int b = v;
  for (int o = 1; o < 32; o *= 2)
    b += __shfl_xor_sync(0xffffffff, b, o);
  bfly[t] = b;
  int x = v;
  for (int o = 1; o < 32; o *= 2) {
    int y = __shfl_up_sync(0xffffffff, x, o);
    if (lane >= o)
      x += y;
  }
  scan[t] = x;
  seg[t] = __shfl_sync(0xffffffff, v * 10 + lane, 3, 8);
  unsigned ballot = __ballot_sync(0xffffffff, lane % 2 == 0);
  int all = __all_sync(0xffffffff, lane < 31), any = __any_sync(0xffffffff, lane == 31);
  // The even lanes alone, all of them present: a member mask need not be the whole warp.
  int even = 0;
  if (lane % 2 == 0)
    even = __all_sync(0x55555555u, lane < 32);
  int total = __reduce_add_sync(0xffffffff, v);
  unsigned top = __reduce_max_sync(0xffffffff, (unsigned)lane);
  if (lane == 0)
    redux[t / 32] = total;
  if (t == 0)
    redux[4] = (int)top;
  if (t == 0) {
    votes[0] = (int)ballot;
    votes[1] = all;
    votes[2] = any;
    votes[3] = even;
  }
}

// Lanes grouped by key: each gets the mask of the lanes whose key equals its own.
__global__ void matches(const int *in, unsigned *any, unsigned *any64, unsigned *all) {
  int t = threadIdx.x, lane = t % 32;
  any[t] = __match_any_sync(0xffffffff, lane % 5);
  any64[t] = __match_any_sync(0xffffffff, (long long)(lane / 8) << 40);
  int same, mixed;
  unsigned a = __match_all_sync(0xffffffff, in[t], &same);
  unsigned b = __match_all_sync(0xffffffff, lane, &mixed);
  if (t == 0) {
    all[0] = a;
    all[1] = (unsigned)same;
    all[2] = b;
    all[3] = (unsigned)mixed;
  }
}

__global__ void diverge(int *a) {
  int v = a[threadIdx.x];
  if (threadIdx.x < 16)
    v = __shfl_down_sync(0xffffffff, v, 1);
  a[threadIdx.x] = v;
}

int main(int argc, char **argv) {
  const int n = 128;
  int in[n], *d[7];
  for (int i = 0; i < n; i++)
    in[i] = 1 + i / 32;
  for (int k = 0; k < 7; k++)
    cudaMalloc((void **)&d[k], n * sizeof(int));
  cudaMemcpy(d[0], in, sizeof in, cudaMemcpyHostToDevice);
  if (argc > 1 && !strcmp(argv[1], "diverge")) {
    diverge<<<1, 32>>>(d[0]);
    cudaDeviceSynchronize();
    return 0;
  }
  warps<<<1, n>>>(d[0], d[1], d[2], d[3], d[4], d[5], d[6]);
  int sum[4], bfly[n], scan[n], seg[n], votes[4], redux[5];
  cudaMemcpy(redux, d[6], sizeof redux, cudaMemcpyDeviceToHost);
  cudaMemcpy(sum, d[1], sizeof sum, cudaMemcpyDeviceToHost);
  cudaMemcpy(bfly, d[2], sizeof bfly, cudaMemcpyDeviceToHost);
  cudaMemcpy(scan, d[3], sizeof scan, cudaMemcpyDeviceToHost);
  cudaMemcpy(seg, d[4], sizeof seg, cudaMemcpyDeviceToHost);
  cudaMemcpy(votes, d[5], sizeof votes, cudaMemcpyDeviceToHost);
  printf("reduce: %d %d %d %d\n", sum[0], sum[1], sum[2], sum[3]);
  bool ok = true, sc = true, sg = true;
  for (int i = 0; i < n; i++) {
    ok &= bfly[i] == 32 * in[i];
    sc &= scan[i] == (i % 32 + 1) * in[i];
    int src = (i / 8) * 8 + 3;
    sg &= seg[i] == in[src] * 10 + src % 32;
  }
  printf("butterfly: %s\nscan: %s\nsegments: %s\n", ok ? "ok" : "WRONG", sc ? "ok" : "WRONG",
         sg ? "ok" : "WRONG");
  printf("ballot: %#x all: %d any: %d all-even: %d\n", (unsigned)votes[0], votes[1], votes[2],
         votes[3]);
  printf("redux: %d %d %d %d max %d\n", redux[0], redux[1], redux[2], redux[3], redux[4]);
  unsigned *m[3], any[n], any64[n], all[4];
  for (int k = 0; k < 3; k++)
    cudaMalloc((void **)&m[k], n * sizeof(unsigned));
  matches<<<1, n>>>(d[0], m[0], m[1], m[2]);
  cudaMemcpy(any, m[0], sizeof any, cudaMemcpyDeviceToHost);
  cudaMemcpy(any64, m[1], sizeof any64, cudaMemcpyDeviceToHost);
  cudaMemcpy(all, m[2], sizeof all, cudaMemcpyDeviceToHost);
  bool mt = true;
  for (int i = 0; i < n; i++) {
    unsigned want = 0, want64 = 0;
    for (int l = 0; l < 32; l++) {
      want |= (unsigned)(l % 5 == (i % 32) % 5) << l;
      want64 |= (unsigned)(l / 8 == (i % 32) / 8) << l;
    }
    mt &= any[i] == want && any64[i] == want64;
  }
  printf("match-any: %s\n", mt ? "ok" : "WRONG");
  printf("match-all: %#x %u %#x %u\n", all[0], all[1], all[2], all[3]);
  return 0;
}
