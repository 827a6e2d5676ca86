// Every operation of the affine form carries the C source location it comes from, as
// tesselc --emit=mlir -g prints it: a loop's or a condition's at its keyword, a
// statement's operations at its first token, an array argument at its C name.
// RUN: tesselc %s --emit=mlir -g -o - | FileCheck %s
// CHECK: func.func @f(%arg0: i32 {{.*}}, %arg1: memref<64x64xf32> loc("A"), %arg2: memref<64xf32> loc("x"))
// CHECK: affine.for %{{.*}} = 0 to 64 {
// CHECK: affine.for %{{.*}} = 0 to 64 {
// CHECK: arith.cmpf ogt, {{.*}} loc("{{.*}}locations.c":[[#@LINE+16]]:7)
// CHECK: scf.if
// CHECK: affine.load %arg1{{.*}} loc("{{.*}}locations.c":[[#@LINE+15]]:9)
// CHECK: arith.mulf {{.*}} loc("{{.*}}locations.c":[[#@LINE+14]]:9)
// CHECK: affine.store {{.*}} loc("{{.*}}locations.c":[[#@LINE+13]]:9)
// CHECK: } loc("{{.*}}locations.c":[[#@LINE+11]]:7)
// CHECK: } loc("{{.*}}locations.c":[[#@LINE+9]]:5)
// CHECK: affine.store {{.*}} loc("{{.*}}locations.c":[[#@LINE+11]]:5)
// CHECK: } loc("{{.*}}locations.c":[[#@LINE+6]]:3)
// Without -g, none.
// RUN: tesselc %s --emit=mlir -o - | FileCheck %s --check-prefix=PLAIN
// PLAIN-NOT: loc(
void f(int n, float A[64][64], float x[64]) {
#pragma scop
  for (int i = 0; i < 64; i++) {
    for (int j = 0; j < 64; j++)
      if (x[j] > 0)
        A[i][j] = A[i][j] * x[j];
    x[i] = 0;
  }
#pragma endscop
}
