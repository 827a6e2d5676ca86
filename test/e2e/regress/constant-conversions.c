/* Integer and float constants converted at compile time (Expr::cast) as C converts them:
 * an unsigned 64-bit constant by its unsigned value (18446744073709551615ULL was -1.0), an
 * integer rounded to float once (2^60 + 2^36 + 1 is 2^60 + 2^37 as a float, 2^60 when
 * rounded through double first), and a double constant narrowed to float keeping the
 * float's value when widened again ((double)(float)0.1 was 0.1). */
#include <stdio.h>

#define N 8

static void kernel(int n, double D[N], long L[N], double E[N], double F[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++) {
    D[i] = D[i] + 18446744073709551615ULL;
    L[i] = (long)(float)1152921573326323713L + i;
    E[i] = (double)(float)0.1 + i;
    F[i] = F[i] * 4294967295U;
  }
#pragma endscop
}

static void dump(const char *name, const char *type, int n, double *x, long *l)
{
  int i;
  fprintf(stderr, "begin dump: %s %s\n", name, type);
  for (i = 0; i < n; i++) {
    if (l)
      fprintf(stderr, "%ld ", l[i]);
    else
      fprintf(stderr, "%.17g ", x[i]);
  }
  fprintf(stderr, "\nend dump: %s\n", name);
}

int main(void)
{
  static double D[N], E[N], F[N];
  static long L[N];
  int i;
  for (i = 0; i < N; i++) {
    D[i] = i * 0.5;
    F[i] = i + 0.25;
  }
  kernel(N, D, L, E, F);
  dump("D", "double exact", N, D, 0);
  dump("L", "long", N, 0, L);
  dump("E", "double exact", N, E, 0);
  dump("F", "double exact", N, F, 0);
  return 0;
}
