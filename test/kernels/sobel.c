/*
 * sobel.c -- Sobel edge magnitude of an 8-bit image: horizontal and
 *            vertical gradients in int temporaries, |gx| + |gy| via
 *            ternaries, clamped to 255; the border is set to 0.
 * Family: image filters.  Element type: unsigned char (int intermediates).
 */
#include "tessel_kernels.h"

#ifndef H
# ifdef SMALL_DATASET
#  define H 120
# else
#  define H 22
# endif
#endif
#ifndef W
# ifdef SMALL_DATASET
#  define W 140
# else
#  define W 20
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
      img[i][j] = (DATA_TYPE)(((i / 4 + j / 5) % 2) * 160 + (i * 3 + j * 11) % 60);
}

static void kernel_sobel(int h, int w, DATA_TYPE ARR2D(img, H, W, h, w),
                         DATA_TYPE ARR2D(edge, H, W, h, w))
{
  int i, j;
  int gx, gy, mag;
#pragma scop
  for (i = 0; i < h; i++) {
    edge[i][0] = 0;
    edge[i][w - 1] = 0;
  }
  for (j = 1; j < w - 1; j++) {
    edge[0][j] = 0;
    edge[h - 1][j] = 0;
  }
  for (i = 1; i < h - 1; i++)
    for (j = 1; j < w - 1; j++) {
      gx = (img[i - 1][j + 1] + 2 * img[i][j + 1] + img[i + 1][j + 1])
         - (img[i - 1][j - 1] + 2 * img[i][j - 1] + img[i + 1][j - 1]);
      gy = (img[i + 1][j - 1] + 2 * img[i + 1][j] + img[i + 1][j + 1])
         - (img[i - 1][j - 1] + 2 * img[i - 1][j] + img[i - 1][j + 1]);
      mag = (gx < 0 ? -gx : gx) + (gy < 0 ? -gy : gy);
      edge[i][j] = mag > 255 ? 255 : mag;
    }
#pragma endscop
}

static void print_array(int h, int w, DATA_TYPE ARR2D(edge, H, W, h, w))
{
  int i, j, cnt = 0;
  TESSEL_DUMP_BEGIN("edge");
  for (i = 0; i < h; i++)
    for (j = 0; j < w; j++) {
      fprintf(stderr, "%0.6f ", (double)edge[i][j]);
      if (++cnt % 20 == 0)
        fprintf(stderr, "\n");
    }
  TESSEL_DUMP_END("edge");
}

int main(void)
{
  int h = H, w = W;
  DATA_TYPE (*img)[H][W] = malloc(sizeof(DATA_TYPE[H][W]));
  DATA_TYPE (*edge)[H][W] = malloc(sizeof(DATA_TYPE[H][W]));
  TESSEL_CHECK_ALLOC(img);
  TESSEL_CHECK_ALLOC(edge);

  init_array(h, w, *img);
  kernel_sobel(h, w, *img, *edge);
  print_array(h, w, *edge);

  free(img);
  free(edge);
  return 0;
}
