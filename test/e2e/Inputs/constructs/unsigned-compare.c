/* Comparisons in unsigned arithmetic: a condition whose side may be negative wraps in C
 * (i - 5 < u holds for 5 <= i < 5 + u only) and is evaluated on data; loops over
 * unsigned iterators with bounds that cannot be negative stay affine. */
#include <stdio.h>

#define N 24

static void kernel(int n, unsigned u, unsigned long v, int A[N], int B[N], int C[N])
{
  int i;
  unsigned j;
#pragma scop
  for (i = 0; i < n; i++) {
    A[i] = i - 5 < u ? 7 : 9;
    if (i - 5 < u)
      B[i] = B[i] + 1;
    if (i + 4000000000ul < v)
      C[i] = C[i] + 2;
  }
  for (j = 0; j < u; j++)
    C[j] = C[j] + 4;
  for (j = 20; j >= 1; j--)
    B[j] = B[j] + B[j - 1];
#pragma endscop
}

int main(void)
{
  int A[N], B[N], C[N], i;
  for (i = 0; i < N; i++)
    A[i] = B[i] = C[i] = 0;
  kernel(N, 10u, 4000000005ul, A, B, C);
  kernel(12, 3u, 3ul, A, B, C);
  for (i = 0; i < N; i++)
    fprintf(stderr, "%d %d %d\n", A[i], B[i], C[i]);
  return 0;
}
