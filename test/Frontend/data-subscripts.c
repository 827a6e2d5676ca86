// Subscripts computed from data (an array element, a scalar the region computes, a
// product of iterators, a division whose dividend may be negative) are kept as
// `memref.load`/`memref.store` on C values; the model over-approximates them, so a write
// through one is a may-write of its whole dimension (PPCG's non-affine accesses): a
// gather stays parallel, a scatter and a histogram do not.
// RUN: tesselc %s --function=gather --emit=mlir | FileCheck %s
// RUN: tesselc %s --function=gather -c -o %t.o -v 2>&1 | FileCheck %s --check-prefix=PAR
// RUN: tesselc %s --function=histogram -c -o %t.o -v 2>&1 | FileCheck %s --check-prefix=SEQ
// RUN: tesselc %s --function=after_loop --emit=mlir | FileCheck %s --check-prefix=AFTER
// CHECK-LABEL: func.func @gather(
// CHECK: affine.for %[[I:.*]] = 0 to
// CHECK: %[[K:.*]] = affine.load %{{.*}}[%[[I]]] : memref<100xi32>
// CHECK: %[[K64:.*]] = arith.extsi %[[K]] : i32 to i64
// CHECK: %[[KI:.*]] = arith.index_cast %[[K64]] : i64 to index
// CHECK: memref.load %{{.*}}[%[[KI]]] : memref<100xf64>
// CHECK: affine.store %{{.*}}[%[[I]]] : memref<100xf64>
// CHECK: affine.for %[[J:.*]] = 0 to
// CHECK: arith.muli
// CHECK: memref.store %{{.*}}[%{{.*}}] : memref<100xf64>
// CHECK: memref.store %{{.*}}[%{{.*}}] : memref<100xf64>
// PAR: schedule: loops loop around data-subscripts.c:25:5 (parallel), loop around data-subscripts.c:27:5
void gather(int n, double A[100], double B[100], int idx[100]) {
  int i, j, k;
  for (i = 0; i < n; i++)
    B[i] = A[idx[i]];
  for (j = 0; j < 10; j++) {
    k = j * j;
    A[k] = 1.0;
    B[(j - 1) / 2 + 1] = 2.0;
  }
}
// SEQ: schedule: loops loop around data-subscripts.c:36:5
void histogram(int n, int H[16], int v[100]) {
  int i;
  for (i = 0; i < n; i++)
    H[v[i] % 16] += 1;
}
// After its loop an iterator is a scalar holding its final value; as a subscript it is
// one computed from data. A division by a variable is one too.
// AFTER-LABEL: func.func @after_loop(
// AFTER: affine.store %[[FINAL:.*]], %[[I:.*]][] : memref<i32>
// AFTER: %[[V:.*]] = affine.load %[[I]][] : memref<i32>
// AFTER: %[[X:.*]] = arith.index_cast %{{.*}} : i64 to index
// AFTER: memref.store %{{.*}}, %{{.*}}[%[[X]]] : memref<100xf64>
// AFTER: arith.divsi
// AFTER: memref.store
void after_loop(int n, int m, double A[100]) {
  int i;
  for (i = 0; i < n; i++)
    A[i] = 0.0;
  A[i] = i;
  for (i = 0; i < n; i++)
    A[i / m] = 1.0;
}
