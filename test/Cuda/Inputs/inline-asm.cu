__global__ void k(int *a) { a[threadIdx.x] = __ffs(a[threadIdx.x]); }
int main() { return 0; }
