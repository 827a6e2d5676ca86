// Structs whose members share one arithmetic type are arrays with one more dimension
// over the struct's elements (frontend/records.rs): `pts[i].y` is `pts[i][1]`, a member
// array `g->v[j][i]` is `g[0][32 * j + i]`, a struct variable `acc` is `acc[3]`. The
// model sees the flat offsets: for n > 32 a write to `g->v` may reach an element of
// `g->w` that a later (j, i) reads, so isl skews the nest over `g->v`; its inner loop
// stays parallel, as does the loop over `pts` (tesselc -v prints the schedule).
// RUN: tesselc %s --function=soa --emit=mlir | FileCheck %s
// RUN: tesselc %s --function=soa -c -o %t.o -v 2>&1 | FileCheck %s --check-prefix=PAR
// RUN: not tesselc %s --function=unsized --emit=mlir 2>&1 | FileCheck %s --check-prefix=UNSIZED
#define N 32
struct point { double x, y, z; };
struct grid { double v[4][N]; double w[N]; };

// CHECK-LABEL: func.func @soa(
// CHECK-SAME: memref<32x3xf64>, %{{.*}}: memref<?x160xf64>
// CHECK: affine.load %{{.*}}[%[[I:.*]], 1] : memref<32x3xf64>
// CHECK: affine.store %{{.*}}[%[[I]], 2] : memref<32x3xf64>
// CHECK: affine.for %[[J:.*]] = 0 to 4 {
// CHECK: affine.for %[[K:.*]] = 0 to
// CHECK: affine.load %{{.*}}[0, %[[K]] + 128] : memref<?x160xf64>
// CHECK: affine.store %{{.*}}[0, %[[J]] * 32 + %[[K]]] : memref<?x160xf64>
// CHECK: affine.load %[[ACC:.*]][1] : memref<3xf64>
// CHECK: affine.store %{{.*}}, %[[ACC]][1] : memref<3xf64>
// PAR: schedule: loops {{.*}}structs.c:32:7 (parallel), loop around structs.c:29:5 (parallel), loop around structs.c:34:5
void soa(int n, struct point pts[N], struct grid *g) {
  int i, j;
  struct point acc;
  for (i = 0; i < n; i++)
    pts[i].z = pts[i].x - pts[i].y;
  for (j = 0; j < 4; j++)
    for (i = 0; i < n; i++)
      g->v[j][i] = g->w[i] * j;
  for (i = 0; i < n; i++)
    acc.y += pts[i].y;
}
// UNSIZED: structs.c:[[@LINE+3]]:10: error: the size of dimension 1 of 'p' is unknown
void unsized(int n, struct point *p) {
  for (int i = 0; i < n; i++)
    p[i].x = 0.0;
}
// A whole-struct assignment is one statement per element, in order.
// RUN: tesselc %s --function=copy --emit=mlir | FileCheck %s --check-prefix=COPY
// COPY-LABEL: func.func @copy(
// COPY: affine.for %[[I:.*]] = 0 to 10 {
// COPY: %[[X:.*]] = affine.load %[[A:.*]][0, 0] : memref<1x3xf64>
// COPY: affine.store %[[X]], %{{.*}}[%[[I]], 0] : memref<10x3xf64>
// COPY: %[[Y:.*]] = affine.load %[[A]][0, 1] : memref<1x3xf64>
// COPY: affine.store %[[Y]], %{{.*}}[%[[I]], 1] : memref<10x3xf64>
// COPY: %[[Z:.*]] = affine.load %[[A]][0, 2] : memref<1x3xf64>
// COPY: affine.store %[[Z]], %{{.*}}[%[[I]], 2] : memref<10x3xf64>
void copy(struct point b[10], struct point a[1]) {
  for (int i = 0; i < 10; ++i)
    b[i] = a[0];
}
