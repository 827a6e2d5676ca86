void f(int n, double A[10]) { A[0] = n; }
