/* randprog seeds 30, 77, 111, 139, 168, 215 with --passes=tessel-schedule (unlocated
 * error): a loop under a condition on data is part of the statement around it, and its
 * counter was both an output dimension and existential in the access relation: "isl
 * cannot read ... S0[i0] -> arg6[i1] : exists (i1 : ...)". */
#include <stdio.h>

static void kernel_rand(int n, double A[n], double E[n][n], int D[n])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    if (E[i][i] < 2.0 * i) {
      E[i][i] = E[i][i] + A[i];
    } else {
      for (j = 1; j < n - 1; j++)
        D[j] = D[j] + j * 4 + i;
    }
  }
  for (i = 0; i < n; i++)
    A[i] = A[i] + D[i];
#pragma endscop
}

int main(void)
{
  int i, j;
  double A[9], E[9][9];
  int D[9];
  for (i = 0; i < 9; i++) {
    A[i] = i * 0.5;
    D[i] = i;
    for (j = 0; j < 9; j++)
      E[i][j] = (i * 7 + j * 3) % 11;
  }
  kernel_rand(9, A, E, D);
  fprintf(stderr, "begin dump: A double exact\n");
  for (i = 0; i < 9; i++)
    fprintf(stderr, "%.10g ", A[i]);
  fprintf(stderr, "\nend dump: A\nbegin dump: D int\n");
  for (i = 0; i < 9; i++)
    fprintf(stderr, "%d ", D[i]);
  fprintf(stderr, "\nend dump: D\n");
  return 0;
}
