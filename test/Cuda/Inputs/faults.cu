#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>
// Faults a GPU would not report: reading past an allocation, two threads of a warp
// writing one element or overlapping ones (a double and a float inside it), and a
// launch with an empty grid. Neighbouring doubles, then neighbouring floats of the
// same buffer, written by different threads are no conflict.
__global__ void past_end(const float *a, float *b, int n) {
  int i = threadIdx.x;
  b[i] = a[i + n];
}
__global__ void racy(float *a) { a[threadIdx.x / 2] = threadIdx.x; }
__global__ void nothing(float *a) { a[0] = 1; }
__global__ void doubles(double *d) { d[threadIdx.x] = threadIdx.x; }
__global__ void floats(float *a) { a[threadIdx.x] = threadIdx.x; }
__global__ void overlap(double *d) {
  if (threadIdx.x == 0)
    d[0] = 1;
  else if (threadIdx.x == 1)
    ((float *)d)[1] = 2;
}
int main(int argc, char **argv) {
  float *a, *b;
  cudaMalloc((void **)&a, 32 * sizeof(float));
  cudaMalloc((void **)&b, 32 * sizeof(float));
  const char *what = argc > 1 ? argv[1] : "";
  if (!strcmp(what, "oob"))
    past_end<<<1, 32>>>(a, b, 8);
  if (!strcmp(what, "race"))
    racy<<<1, 32>>>(a);
  if (!strcmp(what, "overlap"))
    overlap<<<1, 32>>>((double *)a);
  if (!strcmp(what, "")) {
    doubles<<<1, 16>>>((double *)a);
    floats<<<1, 32>>>(a);
  }
  if (!strcmp(what, "empty")) {
    nothing<<<0, 32>>>(a);
    printf("launch: %s\n", cudaGetErrorString(cudaGetLastError()));
  }
  cudaDeviceSynchronize();
  printf("done\n");
  return 0;
}
