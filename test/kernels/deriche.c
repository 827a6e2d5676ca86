/*
 * deriche.c -- Deriche-style recursive (IIR) smoothing of a 2D image.
 *              The filter coefficients are computed inside the scop from
 *              alpha with expf/powf.  Each row is filtered by a causal pass
 *              (left to right) and an anti-causal pass (right to left,
 *              decreasing loop); the sum is then filtered the same way
 *              along columns.  The recursion state (previous inputs and
 *              outputs) is carried in scalar variables across iterations
 *              of the inner loop.
 * Family: recursive filters.  Element type: float.
 * Both poles sit at exp(-alpha) < 1, so the recursions are stable.
 */
#include "tessel_kernels.h"

#ifndef H
# ifdef SMALL_DATASET
#  define H 128
# else
#  define H 24
# endif
#endif
#ifndef W
# ifdef SMALL_DATASET
#  define W 160
# else
#  define W 32
# endif
#endif
#ifndef DATA_TYPE
# define DATA_TYPE float
#endif

static void init_array(int h, int w, DATA_TYPE *alpha, DATA_TYPE ARR2D(img, H, W, h, w))
{
  int i, j;
  *alpha = SCALAR_VAL(0.6);
  for (i = 0; i < h; i++)
    for (j = 0; j < w; j++)
      img[i][j] = (DATA_TYPE)((i * 31 + j * 17 + (i * j) % 7) % 64) / 63;
}

static void kernel_deriche(int h, int w, DATA_TYPE alpha,
                           DATA_TYPE ARR2D(img, H, W, h, w),
                           DATA_TYPE ARR2D(out, H, W, h, w),
                           DATA_TYPE ARR2D(y1, H, W, h, w),
                           DATA_TYPE ARR2D(y2, H, W, h, w))
{
  int i, j;
  DATA_TYPE ea, e2a, k, a1, a2, a3, a4, b1, b2;
  DATA_TYPE xm1, ym1, ym2, xp1, xp2, yp1, yp2;
#pragma scop
  ea = expf(-alpha);
  e2a = powf(ea, 2.0f);
  k = (1.0f - ea) * (1.0f - ea) / (1.0f + 2.0f * alpha * ea - e2a);
  a1 = k;
  a2 = k * ea * (alpha - 1.0f);
  a3 = k * ea * (alpha + 1.0f);
  a4 = -k * e2a;
  b1 = 2.0f * ea;
  b2 = -e2a;

  /* rows, causal */
  for (i = 0; i < h; i++) {
    xm1 = 0.0f;
    ym1 = 0.0f;
    ym2 = 0.0f;
    for (j = 0; j < w; j++) {
      y1[i][j] = a1 * img[i][j] + a2 * xm1 + b1 * ym1 + b2 * ym2;
      xm1 = img[i][j];
      ym2 = ym1;
      ym1 = y1[i][j];
    }
  }
  /* rows, anti-causal */
  for (i = 0; i < h; i++) {
    xp1 = 0.0f;
    xp2 = 0.0f;
    yp1 = 0.0f;
    yp2 = 0.0f;
    for (j = w - 1; j >= 0; j--) {
      y2[i][j] = a3 * xp1 + a4 * xp2 + b1 * yp1 + b2 * yp2;
      xp2 = xp1;
      xp1 = img[i][j];
      yp2 = yp1;
      yp1 = y2[i][j];
    }
  }
  for (i = 0; i < h; i++)
    for (j = 0; j < w; j++)
      out[i][j] = y1[i][j] + y2[i][j];

  /* columns, causal */
  for (j = 0; j < w; j++) {
    xm1 = 0.0f;
    ym1 = 0.0f;
    ym2 = 0.0f;
    for (i = 0; i < h; i++) {
      y1[i][j] = a1 * out[i][j] + a2 * xm1 + b1 * ym1 + b2 * ym2;
      xm1 = out[i][j];
      ym2 = ym1;
      ym1 = y1[i][j];
    }
  }
  /* columns, anti-causal */
  for (j = 0; j < w; j++) {
    xp1 = 0.0f;
    xp2 = 0.0f;
    yp1 = 0.0f;
    yp2 = 0.0f;
    for (i = h - 1; i >= 0; i--) {
      y2[i][j] = a3 * xp1 + a4 * xp2 + b1 * yp1 + b2 * yp2;
      xp2 = xp1;
      xp1 = out[i][j];
      yp2 = yp1;
      yp1 = y2[i][j];
    }
  }
  for (i = 0; i < h; i++)
    for (j = 0; j < w; j++)
      out[i][j] = y1[i][j] + y2[i][j];
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
  DATA_TYPE alpha;
  DATA_TYPE (*img)[H][W] = malloc(sizeof(DATA_TYPE[H][W]));
  DATA_TYPE (*out)[H][W] = malloc(sizeof(DATA_TYPE[H][W]));
  DATA_TYPE (*y1)[H][W] = malloc(sizeof(DATA_TYPE[H][W]));
  DATA_TYPE (*y2)[H][W] = malloc(sizeof(DATA_TYPE[H][W]));
  TESSEL_CHECK_ALLOC(img);
  TESSEL_CHECK_ALLOC(out);
  TESSEL_CHECK_ALLOC(y1);
  TESSEL_CHECK_ALLOC(y2);

  init_array(h, w, &alpha, *img);
  kernel_deriche(h, w, alpha, *img, *out, *y1, *y2);
  print_array(h, w, *out);

  free(img);
  free(out);
  free(y1);
  free(y2);
  return 0;
}
