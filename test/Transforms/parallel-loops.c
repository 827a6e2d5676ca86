// Which loops the exact dependence analysis finds parallel (PPCG sec. 4 and 6.1).
// RUN: tesselc %s --emit=gpu -v -o /dev/null 2>&1 | FileCheck %s

// A temporary written before it is read in every iteration is private.
// CHECK: scop=priv loops=1 parallel=[0]
void priv(int n, double A[100], double B[100]) {
  int i;
  double t;
#pragma scop
  for (i = 0; i < n; i++) {
    t = A[i] * 2.0;
    B[i] = t + 1.0;
  }
#pragma endscop
}

// ... unless its last value is read after the loop.
// CHECK: scop=liveout loops=1 parallel=[]
void liveout(int n, double A[100], double B[100]) {
  int i;
  double t;
#pragma scop
  for (i = 0; i < n; i++) {
    t = A[i] * 2.0;
    B[i] = t;
  }
  B[0] = t;
#pragma endscop
}

// A scalar reduction is carried.
// CHECK: scop=reduce loops=1 parallel=[]
void reduce(int n, double A[100], double B[100]) {
  int i;
  double s;
#pragma scop
  s = 0.0;
  for (i = 0; i < n; i++)
    s += A[i];
  B[0] = s;
#pragma endscop
}

// Decreasing loop reading the element a later iteration writes: anti dependence.
// CHECK: scop=reversed loops=1 parallel=[]
void reversed(int n, double A[100]) {
  int i;
#pragma scop
  for (i = n - 1; i >= 1; i--)
    A[i] = A[i - 1];
#pragma endscop
}

// Reads even elements, writes odd ones: no dependence with step 2.
// CHECK: scop=stride loops=1 parallel=[0]
void stride(int n, double A[200]) {
  int i;
#pragma scop
  for (i = 0; i < n; i += 2)
    A[i + 1] = A[i];
#pragma endscop
}

// A write under a condition on data may not happen: the old value may flow on.
// CHECK: scop=maywrite loops=1 parallel=[]
void maywrite(int n, double A[100], double B[100]) {
  int i;
  double s;
#pragma scop
  s = 0.0;
  for (i = 0; i < n; i++) {
    if (A[i] > 0.0)
      s = A[i];
    B[i] = s;
  }
#pragma endscop
}

// A wavefront: neither loop is parallel without skewing.
// CHECK: scop=wave loops=2 parallel=[]
void wave(int n, double A[100][100]) {
  int i, j;
#pragma scop
  for (i = 1; i < n; i++)
    for (j = 1; j < n; j++)
      A[i][j] = A[i - 1][j] + A[i][j - 1];
#pragma endscop
}

// Rows are independent, columns carry the recurrence.
// CHECK: scop=rows loops=2 parallel=[0]
void rows(int n, double A[100][100]) {
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 1; j < n; j++)
      A[i][j] = A[i][j - 1] * 0.5;
#pragma endscop
}

// Affine guards restrict the domain: the write to row 0 is read by no other iteration.
// CHECK: scop=guarded loops=1 parallel=[0]
void guarded(int n, double A[100]) {
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    if (i >= 1)
      A[i] = A[i] + A[0];
#pragma endscop
}
