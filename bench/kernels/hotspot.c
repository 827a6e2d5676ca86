/* hotspot.c -- the temperature of a chip from its power map, a few explicit steps of
 * a 5-point stencil (paper 000's hotspot, after Rodinia's). */
#include "bench.h"

#ifndef N
# define N 1024
#endif
#ifndef STEPS
# define STEPS 4
#endif

static void kernel_hotspot(int steps, int n, float T[N][N], float P[N][N], float U[N][N])
{
  int t, i, j;
  const float cap = 0.5f, rx = 0.1f, ry = 0.1f, rz = 0.05f, amb = 80.0f, dt = 0.2f;
#pragma scop
  for (t = 0; t < steps; t++) {
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        U[i][j] = T[i][j] + dt / cap * (P[i][j]
                  + (T[i + 1][j] + T[i - 1][j] - 2.0f * T[i][j]) * ry
                  + (T[i][j + 1] + T[i][j - 1] - 2.0f * T[i][j]) * rx
                  + (amb - T[i][j]) * rz);
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        T[i][j] = U[i][j];
  }
#pragma endscop
}

int main(void)
{
  float (*T)[N][N] = malloc(sizeof *T);
  BENCH_CHECK(T);
  float (*P)[N][N] = malloc(sizeof *P);
  BENCH_CHECK(P);
  float (*U)[N][N] = malloc(sizeof *U);
  BENCH_CHECK(U);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      (*T)[i][j] = 80.0f + (float)((i * 7 + j * 3) % 29);
      (*P)[i][j] = (float)((i + j) % 5) / 5.0f;
      (*U)[i][j] = (*T)[i][j];
    }
  kernel_hotspot(STEPS, N, *T, *P, *U);
  printf("%.6e\n", bench_checksum(*T, (long)N * N, 1, 4));
  free(T);
  free(P);
  free(U);
  return 0;
}
