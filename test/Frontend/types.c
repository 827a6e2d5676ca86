// C's integer promotions and usual arithmetic conversions on every element type.
// RUN: tesselc %s --emit=mlir | FileCheck %s
// CHECK-LABEL: func.func @img(
// CHECK-SAME: memref<64xi8>, %{{.*}}: memref<64xi8>, %{{.*}}: memref<64xf32>, %{{.*}}: memref<64xi64>, %{{.*}}: memref<64xi16>
// unsigned char promotes to int by zero extension; int division is signed.
// CHECK: %[[IN:.*]] = affine.load %arg1[%[[I:.*]]] : memref<64xi8>
// CHECK-NEXT: %[[P:.*]] = arith.extui %[[IN]] : i8 to i32
// CHECK: arith.divsi %[[P]]
// CHECK: %[[T:.*]] = arith.trunci %{{.*}} : i32 to i8
// CHECK-NEXT: affine.store %[[T]], %arg2[%[[I]]]
// uchar * float: int first, then float.
// CHECK: arith.extui %{{.*}} : i8 to i32
// CHECK-NEXT: arith.sitofp %{{.*}} : i32 to f32
// CHECK: arith.mulf %{{.*}} : f32
// long += uchar
// CHECK: arith.extui %{{.*}} : i8 to i64
// CHECK-NEXT: arith.addi %{{.*}} : i64
// float * 2.0 is double; the cast truncates to short.
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: arith.fptosi %{{.*}} : f64 to i16
typedef unsigned char pixel;
#define N 64
void img(int n, pixel in[N], pixel out[N], float w[N], long acc[N], short s[N]) {
  int i;
#pragma scop
  for (i = 0; i < n; i++) {
    out[i] = in[i] / 2 + 1;
    w[i] = in[i] * 0.5f;
    acc[i] += in[i];
    s[i] = (short)(w[i] * 2.0);
  }
#pragma endscop
}
