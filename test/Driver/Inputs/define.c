void f(int n, double A[100]) {
#pragma scop
  for (int i = 0; i < n; i++)
#ifdef X
    A[i] = 7.0;
#else
    A[i] = 3.0;
#endif
#pragma endscop
}
