__global__ void k(float *a) { a[threadIdx.x] = 1.0f }
int main() { return 0; }
