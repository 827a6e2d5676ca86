#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>
// Three faults a GPU would not report: reading past an allocation, two threads of a
// warp writing one element, and a launch with an empty grid.
__global__ void past_end(const float *a, float *b, int n) {
  int i = threadIdx.x;
  b[i] = a[i + n];
}
__global__ void racy(float *a) { a[threadIdx.x / 2] = threadIdx.x; }
__global__ void nothing(float *a) { a[0] = 1; }
int main(int argc, char **argv) {
  float *a, *b;
  cudaMalloc((void **)&a, 32 * sizeof(float));
  cudaMalloc((void **)&b, 32 * sizeof(float));
  const char *what = argc > 1 ? argv[1] : "";
  if (!strcmp(what, "oob"))
    past_end<<<1, 32>>>(a, b, 8);
  if (!strcmp(what, "race"))
    racy<<<1, 32>>>(a);
  if (!strcmp(what, "empty")) {
    nothing<<<0, 32>>>(a);
    printf("launch: %s\n", cudaGetErrorString(cudaGetLastError()));
  }
  cudaDeviceSynchronize();
  printf("done\n");
  return 0;
}
