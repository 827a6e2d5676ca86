__global__ void count(int *n) { atomicAdd(n, 1); }
int main() { return 0; }
