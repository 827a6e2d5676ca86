/*
 * fdtd2d.c -- 2D finite-difference time-domain (Yee scheme, TE mode):
 *             a source term drives the first row of ey, then ey, ex and hz
 *             are updated from each other every time step.
 * Family: stencils (2D, time-iterated, multiple fields).  Element type: double.
 * The source value is read from a 1D array indexed by the time iterator.
 */
#include "tessel_kernels.h"

#ifndef TMAX
# ifdef SMALL_DATASET
#  define TMAX 40
# else
#  define TMAX 8
# endif
#endif
#ifndef NX
# ifdef SMALL_DATASET
#  define NX 100
# else
#  define NX 20
# endif
#endif
#ifndef NY
# ifdef SMALL_DATASET
#  define NY 120
# else
#  define NY 24
# endif
#endif
#ifndef DATA_TYPE
# define DATA_TYPE double
#endif

static void init_array(int tmax, int nx, int ny,
                       DATA_TYPE ARR2D(ex, NX, NY, nx, ny),
                       DATA_TYPE ARR2D(ey, NX, NY, nx, ny),
                       DATA_TYPE ARR2D(hz, NX, NY, nx, ny),
                       DATA_TYPE ARR1D(src, TMAX, tmax))
{
  int i, j;
  for (i = 0; i < tmax; i++)
    src[i] = (DATA_TYPE)(i % 4) / 4;
  for (i = 0; i < nx; i++)
    for (j = 0; j < ny; j++) {
      ex[i][j] = (DATA_TYPE)((i * (j + 1)) % nx) / nx;
      ey[i][j] = (DATA_TYPE)((i * (j + 2) + 1) % ny) / ny;
      hz[i][j] = (DATA_TYPE)((i * (j + 3) + 2) % nx) / nx;
    }
}

static void kernel_fdtd2d(int tmax, int nx, int ny,
                          DATA_TYPE ARR2D(ex, NX, NY, nx, ny),
                          DATA_TYPE ARR2D(ey, NX, NY, nx, ny),
                          DATA_TYPE ARR2D(hz, NX, NY, nx, ny),
                          DATA_TYPE ARR1D(src, TMAX, tmax))
{
  int t, i, j;
#pragma scop
  for (t = 0; t < tmax; t++) {
    for (j = 0; j < ny; j++)
      ey[0][j] = src[t];
    for (i = 1; i < nx; i++)
      for (j = 0; j < ny; j++)
        ey[i][j] -= 0.5 * (hz[i][j] - hz[i - 1][j]);
    for (i = 0; i < nx; i++)
      for (j = 1; j < ny; j++)
        ex[i][j] -= 0.5 * (hz[i][j] - hz[i][j - 1]);
    for (i = 0; i < nx - 1; i++)
      for (j = 0; j < ny - 1; j++)
        hz[i][j] -= 0.7 * (ex[i][j + 1] - ex[i][j] + ey[i + 1][j] - ey[i][j]);
  }
#pragma endscop
}

static void print_array(int nx, int ny,
                        DATA_TYPE ARR2D(ex, NX, NY, nx, ny),
                        DATA_TYPE ARR2D(ey, NX, NY, nx, ny),
                        DATA_TYPE ARR2D(hz, NX, NY, nx, ny))
{
  int i, j, cnt = 0;
  TESSEL_DUMP_BEGIN("ex");
  for (i = 0; i < nx; i++)
    for (j = 0; j < ny; j++) {
      fprintf(stderr, "%0.6f ", (double)ex[i][j]);
      if (++cnt % 20 == 0)
        fprintf(stderr, "\n");
    }
  TESSEL_DUMP_END("ex");
  cnt = 0;
  TESSEL_DUMP_BEGIN("ey");
  for (i = 0; i < nx; i++)
    for (j = 0; j < ny; j++) {
      fprintf(stderr, "%0.6f ", (double)ey[i][j]);
      if (++cnt % 20 == 0)
        fprintf(stderr, "\n");
    }
  TESSEL_DUMP_END("ey");
  cnt = 0;
  TESSEL_DUMP_BEGIN("hz");
  for (i = 0; i < nx; i++)
    for (j = 0; j < ny; j++) {
      fprintf(stderr, "%0.6f ", (double)hz[i][j]);
      if (++cnt % 20 == 0)
        fprintf(stderr, "\n");
    }
  TESSEL_DUMP_END("hz");
}

int main(void)
{
  int tmax = TMAX, nx = NX, ny = NY;
  DATA_TYPE (*ex)[NX][NY] = malloc(sizeof(DATA_TYPE[NX][NY]));
  DATA_TYPE (*ey)[NX][NY] = malloc(sizeof(DATA_TYPE[NX][NY]));
  DATA_TYPE (*hz)[NX][NY] = malloc(sizeof(DATA_TYPE[NX][NY]));
  DATA_TYPE (*src)[TMAX] = malloc(sizeof(DATA_TYPE[TMAX]));
  TESSEL_CHECK_ALLOC(ex);
  TESSEL_CHECK_ALLOC(ey);
  TESSEL_CHECK_ALLOC(hz);
  TESSEL_CHECK_ALLOC(src);

  init_array(tmax, nx, ny, *ex, *ey, *hz, *src);
  kernel_fdtd2d(tmax, nx, ny, *ex, *ey, *hz, *src);
  print_array(nx, ny, *ex, *ey, *hz);

  free(ex);
  free(ey);
  free(hz);
  free(src);
  return 0;
}
