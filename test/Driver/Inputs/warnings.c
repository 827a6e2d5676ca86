#warning "a user warning"
void f(int n, double A[SIZE]) {
  int unused;
#pragma scop
  for (int i = 0; i < n; i++)
    A[i] = 1.0;
#pragma endscop
}
