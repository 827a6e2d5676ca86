/* Locals whose address is taken before the region: their value is what was written
 * through the pointer, not their constant initializer (the region read 4 for c and ran
 * 10 iterations for k). */
#include <stdio.h>
#include <stdlib.h>

static void set(int *p, int v) { *p = v; }

int main(void)
{
  int A[64], B[64];
  int i, c = 4, k = 10;
  int *p = &c;
  *p = 9;
  set(&k, 37);
  for (i = 0; i < 64; i++)
    A[i] = B[i] = 0;
#pragma scop
  for (i = 0; i < 64; i++) {
    A[i] = c * i;
    B[i] = i < k ? 1 : 2;
  }
#pragma endscop
  for (i = 0; i < 64; i++)
    fprintf(stderr, "%d %d\n", A[i], B[i]);
  return 0;
}
