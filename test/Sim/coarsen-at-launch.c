// The y extent of a tiled kernel's blocks is chosen at launch from the device
// (tessel-map-to-gpu's coarsen=auto, the runtime's tessel_block_extent): the 64 tiles
// of 32 x 32 points of this 256 x 256 stencil are 65,536 threads at one per point, four
// times what sim's gtx690 holds resident (8 SMs x 2048), so there each block has 32 x 8
// threads covering 4 rows each; sim's H100 (132 x 2048) is not filled even at one
// thread per point, and keeps 32 x 32. Both print what clang's build prints.
// RUN: tesselc %s -o %t
// RUN: clang -w %s -o %t.host
// RUN: %t.host > %t.expected
// RUN: env TESSEL_GPU=gtx690 TESSEL_PROFILE=%t.gtx690.json %t > %t.gtx690.out
// RUN: diff %t.expected %t.gtx690.out
// RUN: FileCheck %s --input-file=%t.gtx690.json --check-prefix=GTX690
// RUN: env TESSEL_GPU=h100 TESSEL_PROFILE=%t.h100.json %t > %t.h100.out
// RUN: diff %t.expected %t.h100.out
// RUN: FileCheck %s --input-file=%t.h100.json --check-prefix=H100
// GTX690: "grid": [8, 8, 1], "block": [32, 8, 1]
// H100: "grid": [8, 8, 1], "block": [32, 32, 1]
#include <stdio.h>

#define N 256

static void smooth(int n, float A[N][N], float B[N][N])
{
#pragma scop
  for (int i = 1; i < n - 1; i++)
    for (int j = 1; j < n - 1; j++)
      B[i][j] = 0.25f * (A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]);
#pragma endscop
}

static float A[N][N], B[N][N];

int main(void)
{
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      A[i][j] = (float)((i * 7 + j * 3) % 17);
  smooth(N, A, B);
  double s = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      s += B[i][j] * ((i + j) % 5 + 1);
  printf("%.3f %.3f %.3f\n", s, B[1][1], B[N - 2][N - 3]);
  return 0;
}
