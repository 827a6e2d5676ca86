// Which loops run in parallel: isl's exact dependences decide, with PPCG's live-range
// reordering for scalars (PPCG sec. 4, 6.1 and 6.3); tesselc -v prints each kernel.
// RUN: tesselc %s --emit=gpu -v -o /dev/null 2>&1 | FileCheck %s

// A temporary written before it is read in every iteration is private.
// CHECK: mapping: priv_k0: a block per tile of 64; loop around {{.*}} on threads x
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
// CHECK: mapping: liveout_k0: no parallel loop here
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
// CHECK: mapping: reduce_k0: no parallel loop here
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
// CHECK: mapping: reversed_k0: no parallel loop here
void reversed(int n, double A[100]) {
  int i;
#pragma scop
  for (i = n - 1; i >= 1; i--)
    A[i] = A[i - 1];
#pragma endscop
}

// Reads even elements, writes odd ones: no dependence with step 2.
// CHECK: mapping: stride_k0: a block per tile of 64; loop around {{.*}} on threads x
void stride(int n, double A[200]) {
  int i;
#pragma scop
  for (i = 0; i < n; i += 2)
    A[i + 1] = A[i];
#pragma endscop
}

// A write under a condition on data may not happen: the old value may flow on.
// CHECK: mapping: maywrite_k0: no parallel loop here
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

// A wavefront: neither loop is parallel without skewing; isl skews, and the wavefront's
// inner loop runs on the threads.
// CHECK: mapping: wave_k0: a block per tile of 64; loop around {{.*}} on threads x
void wave(int n, double A[100][100]) {
  int i, j;
#pragma scop
  for (i = 1; i < n; i++)
    for (j = 1; j < n; j++)
      A[i][j] = A[i - 1][j] + A[i][j - 1];
#pragma endscop
}

// Rows are independent, columns carry the recurrence.
// CHECK: mapping: rows_k0: a block per tile of 64; loop around {{.*}} on threads x
void rows(int n, double A[100][100]) {
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 1; j < n; j++)
      A[i][j] = A[i][j - 1] * 0.5;
#pragma endscop
}

// Affine guards restrict the domain: the write to row 0 is read by no other iteration.
// CHECK: mapping: guarded_k0: a block per tile of 64; loop around {{.*}} on threads x
void guarded(int n, double A[100]) {
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    if (i >= 1)
      A[i] = A[i] + A[0];
#pragma endscop
}
