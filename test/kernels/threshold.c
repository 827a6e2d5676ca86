/*
 * threshold.c -- three point-wise operations on an 8-bit image:
 *                binary threshold (255 above thr, else 0), inversion
 *                (255 - v), and a clamped contrast stretch computed in an
 *                int temporary (2*(v - 64) clamped to [0, 255] with nested
 *                ternaries).
 * Family: image filters.  Element type: unsigned char (int intermediate).
 */
#include "tessel_kernels.h"

#ifndef H
# ifdef SMALL_DATASET
#  define H 128
# else
#  define H 18
# endif
#endif
#ifndef W
# ifdef SMALL_DATASET
#  define W 150
# else
#  define W 26
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
      img[i][j] = (DATA_TYPE)((i * 29 + j * 17 + i * j) % 256);
}

static void kernel_threshold(int h, int w, int thr,
                             DATA_TYPE ARR2D(img, H, W, h, w),
                             DATA_TYPE ARR2D(bin, H, W, h, w),
                             DATA_TYPE ARR2D(inv, H, W, h, w),
                             DATA_TYPE ARR2D(str, H, W, h, w))
{
  int i, j;
  int v;
  /* The image, read once per pixel, staged through shared memory on request (the
     share pragma of paper 000 Fig. 1: the automatic path leaves it in global memory). */
#pragma tessel share(img[TBY][TBX])
#pragma scop
  for (i = 0; i < h; i++)
    for (j = 0; j < w; j++) {
      bin[i][j] = img[i][j] > thr ? 255 : 0;
      inv[i][j] = 255 - img[i][j];
      v = 2 * (img[i][j] - 64);
      str[i][j] = v < 0 ? 0 : (v > 255 ? 255 : v);
    }
#pragma endscop
}

static void print_array(int h, int w, DATA_TYPE ARR2D(bin, H, W, h, w),
                        DATA_TYPE ARR2D(inv, H, W, h, w),
                        DATA_TYPE ARR2D(str, H, W, h, w))
{
  int i, j, cnt = 0;
  TESSEL_DUMP_BEGIN("bin");
  for (i = 0; i < h; i++)
    for (j = 0; j < w; j++) {
      fprintf(stderr, "%0.6f ", (double)bin[i][j]);
      if (++cnt % 20 == 0)
        fprintf(stderr, "\n");
    }
  TESSEL_DUMP_END("bin");
  cnt = 0;
  TESSEL_DUMP_BEGIN("inv");
  for (i = 0; i < h; i++)
    for (j = 0; j < w; j++) {
      fprintf(stderr, "%0.6f ", (double)inv[i][j]);
      if (++cnt % 20 == 0)
        fprintf(stderr, "\n");
    }
  TESSEL_DUMP_END("inv");
  cnt = 0;
  TESSEL_DUMP_BEGIN("str");
  for (i = 0; i < h; i++)
    for (j = 0; j < w; j++) {
      fprintf(stderr, "%0.6f ", (double)str[i][j]);
      if (++cnt % 20 == 0)
        fprintf(stderr, "\n");
    }
  TESSEL_DUMP_END("str");
}

int main(void)
{
  int h = H, w = W, thr = 100;
  DATA_TYPE (*img)[H][W] = malloc(sizeof(DATA_TYPE[H][W]));
  DATA_TYPE (*bin)[H][W] = malloc(sizeof(DATA_TYPE[H][W]));
  DATA_TYPE (*inv)[H][W] = malloc(sizeof(DATA_TYPE[H][W]));
  DATA_TYPE (*str)[H][W] = malloc(sizeof(DATA_TYPE[H][W]));
  TESSEL_CHECK_ALLOC(img);
  TESSEL_CHECK_ALLOC(bin);
  TESSEL_CHECK_ALLOC(inv);
  TESSEL_CHECK_ALLOC(str);

  init_array(h, w, *img);
  kernel_threshold(h, w, thr, *img, *bin, *inv, *str);
  print_array(h, w, *bin, *inv, *str);

  free(img);
  free(bin);
  free(inv);
  free(str);
  return 0;
}
