__global__ void group(unsigned *n) { n[threadIdx.x] = __match_any_sync(0xffffffff, n[threadIdx.x]); }
int main() { return 0; }
