// Calls to functions defined in the translation unit are inlined, as pet does: the
// callee's body is lowered in place with its parameters bound to the arguments (an
// array parameter to the array or row passed, an integer parameter to an affine
// argument, anything else to a scalar set from the argument).
// RUN: tesselc %s --function=caller --emit=mlir | FileCheck %s
// RUN: not tesselc %s --function=recursive --emit=mlir 2>&1 | FileCheck %s --check-prefix=REC
// RUN: not tesselc %s --function=effects --emit=mlir 2>&1 | FileCheck %s --check-prefix=EFF
// RUN: not tesselc %s --function=early_caller --emit=mlir 2>&1 | FileCheck %s --check-prefix=EARLY
static double twice(double x) { return 2.0 * x; }
static int shift(int i) { return i + 1; }
static void axpy(int n, double y[16], double a, double x[16]) {
  int k;
  for (k = 0; k < n; k++)
    y[k] = y[k] + a * x[k];
}
// CHECK-LABEL: func.func @caller(
// CHECK-SAME: %{{.*}}: i32, %[[A:.*]]: memref<16x16xf64>, %[[V:.*]]: memref<16xf64>)
// The expression function: no call, the body in place.
// CHECK: affine.for %[[I:.*]] = 0 to 15 {
// CHECK-NEXT: arith.constant 2.0
// CHECK-NEXT: %[[L:.*]] = affine.load %[[V]][%[[I]] + 1]
// CHECK-NEXT: %[[M:.*]] = arith.mulf %{{.*}}, %[[L]]
// CHECK-NEXT: affine.store %[[M]], %[[V]][%[[I]]]
// The void function on row i of A: the scalar parameter `a` is set first, then the
// callee's loop runs over A[i][k].
// CHECK: affine.for %[[I2:.*]] = 0 to %{{.*}} {
// CHECK: %[[AV:.*]] = affine.load %[[V]][%[[I2]]]
// CHECK: affine.store %[[AV]], %[[AS:.*]][]
// CHECK: affine.for %[[K:.*]] = 0 to %{{.*}} {
// CHECK: affine.load %[[A]][%[[I2]], %[[K]]]
// CHECK: affine.load %[[AS]][]
// CHECK: affine.load %[[A]][0, %[[K]]]
// CHECK: affine.store %{{.*}}, %[[A]][%[[I2]], %[[K]]]
// CHECK-NOT: call
void caller(int n, double A[16][16], double v[16]) {
  int i;
  for (i = 0; i < 15; i++)
    v[i] = twice(v[shift(i)]);
  for (i = 0; i < n; i++)
    axpy(n, A[i], v[i], A[0]);
}
static double fact(int k, double x) { return k > 0 ? x * fact(k - 1, x) : 1.0; }
// REC: inline.c:[[@LINE-1]]:58: error: recursive call to 'fact' cannot be inlined
void recursive(double A[16]) {
  int i;
  for (i = 0; i < 16; i++)
    A[i] = fact(3, A[i]);
}
static double bump(double B[16], int i) {
  B[i] = B[i] + 1.0;
  return B[i];
}
// EFF: inline.c:[[@LINE+4]]:12: error: a call that writes an array in an operand that may not be evaluated cannot be inlined
void effects(double A[16], double B[16]) {
  int i;
  for (i = 0; i < 16; i++)
    A[i] = A[i] > 0.5 ? bump(B, i) : 0.0;
}
static double early(double x) {
  if (x > 1.0)
    return x;
  return 1.0;
}
// EARLY: inline.c:[[@LINE-3]]:5: error: 'return' is not supported in a static control part
void early_caller(double A[16]) {
  int i;
  for (i = 0; i < 16; i++)
    A[i] = early(A[i]);
}
