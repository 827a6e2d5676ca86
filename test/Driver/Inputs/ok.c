void ok(int n, double A[10]) {
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = 0.0;
#pragma endscop
}
