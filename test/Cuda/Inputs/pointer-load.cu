__global__ void k(float **rows) { rows[blockIdx.x][threadIdx.x] = 1.0f; }
int main() { return 0; }
