__global__ void sum(int *n) { n[threadIdx.x] = __shfl_down_sync(0xffffffff, n[threadIdx.x], 1); }
int main() { return 0; }
