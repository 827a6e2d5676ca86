/* Stencils over 8-bit and 16-bit arrays, which tessel-tile widens along x to a word's
 * worth of elements per thread and tessel-ilp-unroll runs as consecutive columns: a 5x5
 * box filter whose columns share their loads, a 16-bit row filter at uneven offsets
 * (-3, +1), a signed 8-bit difference written in place of nothing it reads, and a 9x9
 * box summed into 16 bits (a thread's 32 points hold 103,680 pairs of terms for
 * tessel-reassociate-sums to share). The grids are large enough for the rule (256
 * tiles and more) and their widths leave partial tiles at both ends, which run a
 * column per point as before. */
#include <stdio.h>

#define H 96
#define W 1450

static void kernel_narrow(int h, int w, unsigned char in[H][W], unsigned char out[H][W],
                          short s[H][W], short r[H][W], signed char d[H][W],
                          unsigned short b[H][W])
{
  int i, j;
#pragma scop
  for (i = 2; i < h - 2; i++)
    for (j = 3; j < w - 2; j++)
      out[i][j] = (in[i - 2][j - 2] + in[i - 2][j] + in[i - 2][j + 2] + in[i - 1][j - 1]
                   + in[i - 1][j + 1] + in[i][j - 2] + in[i][j - 1] + in[i][j] + in[i][j + 1]
                   + in[i][j + 2] + in[i + 1][j] + in[i + 2][j - 2] + in[i + 2][j + 2]) / 13;
  for (i = 0; i < h; i++)
    for (j = 3; j < w - 1; j++)
      r[i][j] = (short)(s[i][j - 3] - 2 * s[i][j] + 3 * s[i][j + 1] + i);
  for (i = 1; i < h; i++)
    for (j = 1; j < w; j++)
      d[i][j] = (signed char)(in[i][j] - in[i][j - 1] + in[i - 1][j]);
  for (i = 4; i < h - 4; i++)
    for (j = 4; j < w - 4; j++)
      b[i][j] = (unsigned short)(in[i - 4][j - 4] + in[i - 4][j - 3] + in[i - 4][j - 2] + in[i - 4][j - 1] + in[i - 4][j]
                  + in[i - 4][j + 1] + in[i - 4][j + 2] + in[i - 4][j + 3] + in[i - 4][j + 4]
                  + in[i - 3][j - 4] + in[i - 3][j - 3] + in[i - 3][j - 2] + in[i - 3][j - 1] + in[i - 3][j]
                  + in[i - 3][j + 1] + in[i - 3][j + 2] + in[i - 3][j + 3] + in[i - 3][j + 4]
                  + in[i - 2][j - 4] + in[i - 2][j - 3] + in[i - 2][j - 2] + in[i - 2][j - 1] + in[i - 2][j]
                  + in[i - 2][j + 1] + in[i - 2][j + 2] + in[i - 2][j + 3] + in[i - 2][j + 4]
                  + in[i - 1][j - 4] + in[i - 1][j - 3] + in[i - 1][j - 2] + in[i - 1][j - 1] + in[i - 1][j]
                  + in[i - 1][j + 1] + in[i - 1][j + 2] + in[i - 1][j + 3] + in[i - 1][j + 4]
                  + in[i][j - 4] + in[i][j - 3] + in[i][j - 2] + in[i][j - 1] + in[i][j]
                  + in[i][j + 1] + in[i][j + 2] + in[i][j + 3] + in[i][j + 4]
                  + in[i + 1][j - 4] + in[i + 1][j - 3] + in[i + 1][j - 2] + in[i + 1][j - 1] + in[i + 1][j]
                  + in[i + 1][j + 1] + in[i + 1][j + 2] + in[i + 1][j + 3] + in[i + 1][j + 4]
                  + in[i + 2][j - 4] + in[i + 2][j - 3] + in[i + 2][j - 2] + in[i + 2][j - 1] + in[i + 2][j]
                  + in[i + 2][j + 1] + in[i + 2][j + 2] + in[i + 2][j + 3] + in[i + 2][j + 4]
                  + in[i + 3][j - 4] + in[i + 3][j - 3] + in[i + 3][j - 2] + in[i + 3][j - 1] + in[i + 3][j]
                  + in[i + 3][j + 1] + in[i + 3][j + 2] + in[i + 3][j + 3] + in[i + 3][j + 4]
                  + in[i + 4][j - 4] + in[i + 4][j - 3] + in[i + 4][j - 2] + in[i + 4][j - 1] + in[i + 4][j]
                  + in[i + 4][j + 1] + in[i + 4][j + 2] + in[i + 4][j + 3] + in[i + 4][j + 4]);
#pragma endscop
}

int main(void)
{
  static unsigned char in[H][W], out[H][W];
  static short s[H][W], r[H][W];
  static signed char d[H][W];
  static unsigned short b[H][W];
  for (int i = 0; i < H; i++)
    for (int j = 0; j < W; j++) {
      in[i][j] = (unsigned char)((i * 31 + j * 17 + (i * j) % 7) % 256);
      out[i][j] = 0;
      s[i][j] = (short)((i * 5 - j * 3) % 2000);
      r[i][j] = 0;
      d[i][j] = 0;
      b[i][j] = 0;
    }
  kernel_narrow(H, W, in, out, s, r, d, b);
  long sum = 0;
  for (int i = 0; i < H; i++)
    for (int j = 0; j < W; j++)
      sum += (long)out[i][j] * (i + 1) + (long)r[i][j] * (j % 13 + 1) + (long)d[i][j] * (i % 5 + 1)
             + (long)b[i][j] * (j % 3 + 1);
  fprintf(stderr, "%ld\n", sum);
  return 0;
}
