__device__ float table[4];
__global__ void k(float *a) { a[threadIdx.x] = table[threadIdx.x % 4]; }
int main() { return 0; }
