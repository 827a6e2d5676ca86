/* Found by randprog (a random program that took 9 s to compile; minimized by
 * fuzz.py --reduce, then the step raised): the dependence analysis of a strided inner
 * loop was slow: tesselc --emit=gpu took 0.5 s with `j++`, 4.5 s with `j += 2` and
 * 13.6 s with `j += 5` (debug build, 2 cores), in the dataflow query for anti and
 * output dependences; with memory-based ones it takes 0.3 s. */
#include <stdio.h>
#define N 64
#define M 8

static void kernel_rand(int n, int m, int A[N], int B[M])
{
  int i, j;
#pragma scop
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j += 5) {
      A[i] = A[i] + A[n - i - 1];
      A[j] = A[i + 1] - j;
      A[n - i - 1] = A[i] + 1;
    }
#pragma endscop
}

int main(void)
{
  int A[N], B[M], i;
  for (i = 0; i < N; i++)
    A[i] = i % 7;
  for (i = 0; i < M; i++)
    B[i] = i;
  kernel_rand(N, M, A, B);
  fprintf(stderr, "begin dump: A int exact\n");
  for (i = 0; i < N; i++)
    fprintf(stderr, "%d ", A[i]);
  fprintf(stderr, "\nend dump: A\n");
  return 0;
}
