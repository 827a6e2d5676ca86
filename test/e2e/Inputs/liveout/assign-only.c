#include <stdio.h>
int main(int argc, char **argv) {
  int a = 0;
  double d = 2.5;
#pragma scop
  a = 1;
  d = d * 2;
#pragma endscop
  fprintf(stderr, "%d %g\n", a, d);
  return 0;
}
