/* Arrays a region writes must not overlap the others it uses (README): the host checks
 * the ranges its copies move before the region and stops with an error where they
 * overlap. Rows of one matrix that do not overlap where the region touches them pass. */
#include <stdio.h>

#define N 40

static double M[N + 8];

static void shift(int n, double A[N], double B[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = B[i] + 1.0;
#pragma endscop
}

int main(void)
{
  int i;
  for (i = 0; i < N + 8; i++)
    M[i] = i;
  shift(4, M + 20, M);
  printf("%g %g\n", M[20], M[23]);
  shift(N, M + 1, M);
  printf("not reached\n");
  return 0;
}
