/* randprog seeds 25, 33, 48, ... (crash): a time loop `t` run on the host around a
 * parallel loop, with a VLA parameter. The host loop's counter was named %t.N and
 * collided with the compiler's own values (%t.2 = memref.dim ...): "internal compiler
 * error in gpu form: region entry argument '%t.2' is already in use". */
#include <stdio.h>
#include <stdlib.h>

static void kernel_rand(int n, int tsteps, double A[n])
{
  int i, t;
#pragma scop
  for (t = 0; t < tsteps; t++)
    for (i = 0; i < n; i++)
      A[i] = A[i] * 0.5 + t;
#pragma endscop
}

int main(void)
{
  int i;
  double A[7];
  for (i = 0; i < 7; i++)
    A[i] = i;
  kernel_rand(7, 3, A);
  fprintf(stderr, "begin dump: A double exact\n");
  for (i = 0; i < 7; i++)
    fprintf(stderr, "%.10g ", A[i]);
  fprintf(stderr, "\nend dump: A\n");
  return 0;
}
