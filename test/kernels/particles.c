/*
 * particles.c -- kinetic energy and distance from the origin of n particles
 *                stored as an array of structures: each row of P holds one
 *                particle's fields (x, y, z, vx, vy, vz, mass, charge), read
 *                by the thread of its particle (paper 000 Fig. 4's AOS leaf).
 * Family: point-wise math over records.  Element type: double.
 * Uses sqrt.
 */
#include "tessel_kernels.h"

#ifndef N
# ifdef SMALL_DATASET
#  define N 1000
# else
#  define N 70
# endif
#endif
#define F 8
#ifndef DATA_TYPE
# define DATA_TYPE double
#endif

static void init_array(int n, DATA_TYPE ARR2D(P, N, F, n, F))
{
  int i, f;
  for (i = 0; i < n; i++)
    for (f = 0; f < F; f++)
      P[i][f] = (DATA_TYPE)((i * 5 + f * 11 + 3) % 17 - 8) / 8;
}

static void kernel_particles(int n, DATA_TYPE ARR2D(P, N, F, n, F),
                             DATA_TYPE ARR1D(energy, N, n), DATA_TYPE ARR1D(dist, N, n))
{
  int i;
#pragma scop
  for (i = 0; i < n; i++) {
    energy[i] = 0.5 * (P[i][6] + 2.0) * (P[i][3] * P[i][3] + P[i][4] * P[i][4] + P[i][5] * P[i][5])
                + P[i][7] * P[i][7];
    dist[i] = sqrt(P[i][0] * P[i][0] + P[i][1] * P[i][1] + P[i][2] * P[i][2]);
  }
#pragma endscop
}

static void print_array(int n, DATA_TYPE ARR1D(energy, N, n), DATA_TYPE ARR1D(dist, N, n))
{
  int i;
  TESSEL_DUMP_BEGIN("particles");
  for (i = 0; i < n; i++) {
    fprintf(stderr, "%0.6f %0.6f ", (double)energy[i], (double)dist[i]);
    if ((i + 1) % 10 == 0)
      fprintf(stderr, "\n");
  }
  TESSEL_DUMP_END("particles");
}

int main(void)
{
  int n = N;
  DATA_TYPE (*P)[N][F] = malloc(sizeof(DATA_TYPE[N][F]));
  DATA_TYPE (*energy)[N] = malloc(sizeof(DATA_TYPE[N]));
  DATA_TYPE (*dist)[N] = malloc(sizeof(DATA_TYPE[N]));
  TESSEL_CHECK_ALLOC(P);
  TESSEL_CHECK_ALLOC(energy);
  TESSEL_CHECK_ALLOC(dist);

  init_array(n, *P);
  kernel_particles(n, *P, *energy, *dist);
  print_array(n, *energy, *dist);

  free(P);
  free(energy);
  free(dist);
  return 0;
}
