/* blur5x5.c -- a 5x5 box blur of an 8-bit image (paper 000's blur on unsigned char). */
#include "bench.h"

#ifndef H
# define H 2048
#endif
#ifndef W
# define W 2048
#endif

static void kernel_blur(int h, int w, unsigned char in[H][W], unsigned char out[H][W])
{
  int i, j;
#pragma scop
  for (i = 2; i < h - 2; i++)
    for (j = 2; j < w - 2; j++)
      out[i][j] = (in[i - 2][j - 2] + in[i - 2][j - 1] + in[i - 2][j] + in[i - 2][j + 1] + in[i - 2][j + 2]
                 + in[i - 1][j - 2] + in[i - 1][j - 1] + in[i - 1][j] + in[i - 1][j + 1] + in[i - 1][j + 2]
                 + in[i][j - 2] + in[i][j - 1] + in[i][j] + in[i][j + 1] + in[i][j + 2]
                 + in[i + 1][j - 2] + in[i + 1][j - 1] + in[i + 1][j] + in[i + 1][j + 1] + in[i + 1][j + 2]
                 + in[i + 2][j - 2] + in[i + 2][j - 1] + in[i + 2][j] + in[i + 2][j + 1] + in[i + 2][j + 2]) / 25;
#pragma endscop
}

int main(void)
{
  unsigned char (*in)[H][W] = malloc(sizeof *in);
  BENCH_CHECK(in);
  unsigned char (*out)[H][W] = malloc(sizeof *out);
  BENCH_CHECK(out);
  for (int i = 0; i < H; i++)
    for (int j = 0; j < W; j++) {
      (*in)[i][j] = (unsigned char)((i * 13 + j * 7) % 256);
      (*out)[i][j] = 0;
    }
  kernel_blur(H, W, *in, *out);
  printf("%.6e\n", bench_checksum(*out, (long)H * W, 0, 1));
  free(in);
  free(out);
  return 0;
}
