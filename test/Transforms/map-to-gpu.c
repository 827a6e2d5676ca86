// The printer's simple mapping (PPCG sec. 6), from the frontend's tree: isl's
// dependences decide the parallel loops. (The passes' mapping, tesselc's default, is
// tested in map-to-gpu.mlir, optimize.mlir and on the kernel suite.)
// RUN: tesselc %s --pipeline=printer --emit=gpu | FileCheck %s
// RUN: tesselc %s --pipeline=printer --emit=gpu -v 2>&1 >/dev/null | FileCheck %s --check-prefix=PAR

// PAR: scop=mm loops=3 parallel=[0, 1]
// PAR: scop=stencil loops=3 parallel=[1, 2]
// PAR: scop=recur loops=1 parallel=[]

// i and j are parallel, k carries acc: one 2-D launch, j on thread x (coalesced),
// 32x8 threads, acc private to each thread.
// CHECK-LABEL: func.func @mm(
// CHECK-COUNT-3: gpu.alloc
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}}) threads({{.*}}) in (%{{[a-z0-9]+}} = %c32{{[_0-9]*}}, %{{[a-z0-9]+}} = %c8{{[_0-9]*}}, %{{[a-z0-9]+}} = %c1{{[_0-9]*}}) module(@tessel_kernels) function(@mm_k0)
// CHECK: memref.alloca() : memref<f64>
// CHECK: scf.for
// CHECK-NOT: gpu.launch
// CHECK: gpu.memcpy %arg1,
void mm(int n, double C[64][64], double A[64][64], double B[64][64]) {
  int i, j, k;
  double acc;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      acc = 0.0;
      for (k = 0; k < n; k++)
        acc += A[i][k] * B[k][j];
      C[i][j] = acc;
    }
#pragma endscop
}

// The time loop carries dependences: it stays on the host around 1-D launches.
// CHECK-LABEL: func.func @stencil(
// CHECK: scf.for
// CHECK-NEXT: arith.constant 1 : index
// CHECK: gpu.launch {{.*}} function(@stencil_k0)
// CHECK: gpu.launch {{.*}} function(@stencil_k1)
void stencil(int t, int n, double A[100], double B[100]) {
  int s, i;
#pragma scop
  for (s = 0; s < t; s++) {
    for (i = 1; i < n - 1; i++)
      B[i] = (A[i - 1] + A[i] + A[i + 1]) / 3.0;
    for (i = 1; i < n - 1; i++)
      A[i] = B[i];
  }
#pragma endscop
}

// A recurrence has no parallel loop: it runs in one thread.
// CHECK-LABEL: func.func @recur(
// CHECK: gpu.launch blocks({{.*}}) in (%{{[a-z0-9]+}} = %c1{{[_0-9]*}}, %{{[a-z0-9]+}} = %c1{{[_0-9]*}}, %{{[a-z0-9]+}} = %c1{{[_0-9]*}}) threads({{.*}}) in (%{{[a-z0-9]+}} = %c1{{[_0-9]*}}, %{{[a-z0-9]+}} = %c1{{[_0-9]*}}, %{{[a-z0-9]+}} = %c1{{[_0-9]*}}) module(@tessel_kernels) function(@recur_k0)
// CHECK: scf.for
void recur(int n, double x[100]) {
  int i;
#pragma scop
  for (i = 1; i < n; i++)
    x[i] = x[i - 1] * 0.5 + x[i];
#pragma endscop
}
