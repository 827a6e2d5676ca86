// A product added or subtracted in the same expression carries fastmath<contract>, as
// C's FP_CONTRACT allows (clang's default -ffp-contract=on); tessel-contract fuses the
// pair into one fma in the kernels. A product stored first, or converted before the
// sum, is not fused; nor is any with -ffp-contract=off (the last one given counts).
// RUN: tesselc %s --emit=mlir | FileCheck %s
// RUN: tesselc %s --emit=ptx -o - | FileCheck %s --check-prefix=PTX
// RUN: tesselc %s -ffp-contract=fast -ffp-contract=off --emit=mlir | FileCheck %s --check-prefix=OFF
// RUN: tesselc %s -ffp-contract=off --emit=ptx -o - | FileCheck %s --check-prefix=PTX-OFF
// RUN: tesselc %s -ffp-contract=off -ffp-contract=on --emit=mlir | FileCheck %s
// RUN: not tesselc %s -ffp-contract=sometimes --emit=mlir 2>&1 | FileCheck %s --check-prefix=BAD
void f(int n, double A[n], double B[n], double C[n], float X[n], double Y[n]) {
  int i;
#pragma scop
  for (i = 0; i < n; i++) {
    C[i] += A[i] * B[i];
    Y[i] = A[i] * B[i];
    B[i] = Y[i] - A[i];
    X[i] = X[i] * X[i] + 1.0;
    A[i] = C[i] - Y[i] * B[i];
  }
#pragma endscop
}
// CHECK-LABEL: func.func @f(
// CHECK: %[[P:.*]] = arith.mulf %{{.*}}, %{{.*}} fastmath<contract> : f64
// CHECK-NEXT: arith.addf %{{.*}}, %[[P]] fastmath<contract> : f64
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f64
// CHECK-NEXT: affine.store
// CHECK: arith.subf %{{.*}}, %{{.*}} : f64
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: arith.extf
// CHECK: arith.addf %{{.*}}, %{{.*}} : f64
// CHECK: %[[Q:.*]] = arith.mulf %{{.*}}, %{{.*}} fastmath<contract> : f64
// CHECK-NEXT: arith.subf %{{.*}}, %[[Q]] fastmath<contract> : f64

// PTX: fma.rn.f64
// PTX: mul.rn.f64
// PTX: sub.rn.f64
// X[i] * X[i] + 1.0: the float product is converted before the double sum, so it is
// not fused; with the constant in the kernel, LLVM narrows the double sum of a float
// and 1.0 rounded to float to the float sum (the same value: double has the bits).
// PTX: mul.rn.f32
// PTX-NEXT: add.rn.f32 %{{.*}}, %{{.*}}, 0f3F800000
// PTX: neg.f64
// PTX-NEXT: fma.rn.f64

// OFF-LABEL: func.func @f(
// OFF-NOT: fastmath
// PTX-OFF-NOT: fma.rn
// BAD: error: unsupported argument 'sometimes' to option '-ffp-contract='
