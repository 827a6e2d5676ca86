/*
 * blur3x3.c -- 3x3 box blur of an 8-bit greyscale image with rounding:
 *              out = (sum of the 9 neighbours + 4) / 9, summed in an int
 *              temporary; the one-pixel border is copied unchanged.
 * Family: image filters.  Element type: unsigned char (int intermediate).
 */
#include "tessel_kernels.h"

#ifndef H
# ifdef SMALL_DATASET
#  define H 120
# else
#  define H 20
# endif
#endif
#ifndef W
# ifdef SMALL_DATASET
#  define W 160
# else
#  define W 24
# endif
#endif
#ifndef DATA_TYPE
# define DATA_TYPE unsigned char
#endif

static void init_array(int h, int w, DATA_TYPE ARR2D(img, H, W, h, w))
{
  int i, j;
  for (i = 0; i < h; i++)
    for (j = 0; j < w; j++)
      img[i][j] = (DATA_TYPE)((i * 13 + j * 7 + (i * j) % 11) % 256);
}

static void kernel_blur3x3(int h, int w, DATA_TYPE ARR2D(img, H, W, h, w),
                           DATA_TYPE ARR2D(out, H, W, h, w))
{
  int i, j;
  int s;
#pragma scop
  for (i = 0; i < h; i++) {
    out[i][0] = img[i][0];
    out[i][w - 1] = img[i][w - 1];
  }
  for (j = 1; j < w - 1; j++) {
    out[0][j] = img[0][j];
    out[h - 1][j] = img[h - 1][j];
  }
  for (i = 1; i < h - 1; i++)
    for (j = 1; j < w - 1; j++) {
      s = img[i - 1][j - 1] + img[i - 1][j] + img[i - 1][j + 1]
        + img[i][j - 1]     + img[i][j]     + img[i][j + 1]
        + img[i + 1][j - 1] + img[i + 1][j] + img[i + 1][j + 1];
      out[i][j] = (s + 4) / 9;
    }
#pragma endscop
}

static void print_array(int h, int w, DATA_TYPE ARR2D(out, H, W, h, w))
{
  int i, j, cnt = 0;
  TESSEL_DUMP_BEGIN("out");
  for (i = 0; i < h; i++)
    for (j = 0; j < w; j++) {
      fprintf(stderr, "%0.6f ", (double)out[i][j]);
      if (++cnt % 20 == 0)
        fprintf(stderr, "\n");
    }
  TESSEL_DUMP_END("out");
}

int main(void)
{
  int h = H, w = W;
  DATA_TYPE (*img)[H][W] = malloc(sizeof(DATA_TYPE[H][W]));
  DATA_TYPE (*out)[H][W] = malloc(sizeof(DATA_TYPE[H][W]));
  TESSEL_CHECK_ALLOC(img);
  TESSEL_CHECK_ALLOC(out);

  init_array(h, w, *img);
  kernel_blur3x3(h, w, *img, *out);
  print_array(h, w, *out);

  free(img);
  free(out);
  return 0;
}
