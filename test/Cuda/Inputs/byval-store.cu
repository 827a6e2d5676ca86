struct Weights { float w[4]; };
__global__ void k(Weights s, float *y)
{
  s.w[threadIdx.x % 4] = 0.0f;
  y[threadIdx.x] = s.w[0] + s.w[1] + s.w[2] + s.w[3];
}
int main() { return 0; }
