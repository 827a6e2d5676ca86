// RUN: not tessel-opt %s --split-input-file --tessel-print-model 2>&1 >/dev/null | FileCheck %s
// RUN: not tessel-opt %s --split-input-file --tessel-print-model --tessel-print-model=x=1 2>&1 | FileCheck %s --check-prefix=OPT
// OPT: 'tessel-print-model' has no option 'x' (valid: none)

// A matrix product: 3-deep domain with a parameter bound, the 2d+1 original
// schedule, and the loop body one statement (its three reads and one write).
// CHECK: print-model.mlir:[[# @LINE + 11]]:3: remark: polyhedral model
// CHECK-NEXT: domain: [arg3] -> { S0[i0, i1, i2] : 0 <= i0 <= 15 and 0 <= i1 <= 15 and 0 <= i2 < arg3 }
// CHECK-NEXT: schedule: [arg3] -> { S0[i0, i1, i2] -> [0, i0, 0, i1, 0, i2, 0] }
// CHECK-NEXT: reads: [arg3] -> { S0[i0, i1, i2] -> arg0[i0, i2] : {{.*}}; S0[i0, i1, i2] -> arg1[i2, i1] : {{.*}}; S0[i0, i1, i2] -> arg2[i0, i1] : {{.*}} }
// CHECK-NEXT: must-writes: [arg3] -> { S0[i0, i1, i2] -> arg2[i0, i1] : 0 <= i0 <= 15 and 0 <= i1 <= 15 and 0 <= i2 < arg3 }
// CHECK-NEXT: may-writes: [arg3] -> {  }
// The value of C[i][j] flows from each k to the next; the read at k precedes the
// writes at later k (anti), and the writes follow each other (output).
// CHECK-NEXT: flow: [arg3] -> { S0[i0, i1, i2] -> S0[i0' = i0, i1' = i1, i2' = 1 + i2] : 0 <= i0 <= 15 and 0 <= i1 <= 15 and 0 <= i2 <= -2 + arg3 }
// CHECK-NEXT: anti/output: [arg3] -> { S0[i0, i1, i2] -> S0[i0' = i0, i1' = i1, i2'] : 0 <= i0 <= 15 and 0 <= i1 <= 15 and 0 <= i2 < arg3 and i2' > i2 and 0 <= i2' < arg3 }
func.func @mm(%A: memref<16x?xf32>, %B: memref<?x16xf32>, %C: memref<16x16xf32>, %n: index) {
  tpoly.scop {
    affine.for %i = 0 to 16 {
      affine.for %j = 0 to 16 {
        affine.for %k = 0 to %n {
          %a = affine.load %A[%i, %k] : memref<16x?xf32>
          %b = affine.load %B[%k, %j] : memref<?x16xf32>
          %c = affine.load %C[%i, %j] : memref<16x16xf32>
          %p = arith.mulf %a, %b : f32
          %s = arith.addf %c, %p : f32
          affine.store %s, %C[%i, %j] : memref<16x16xf32>
        }
      }
    }
  }
  return
}

// -----

// A triangular loop with a step, an affine.if and its else branch, and
// affine.apply substituted into a subscript.
// The step is a stride, the else branch the negated condition, and its store
// comes after the then branch's in the schedule.
// CHECK: remark: polyhedral model
// CHECK-NEXT: domain: { S0[i0, i1] : (i0 + i1) mod 2 = 0 and 0 <= i0 <= 9 and 4 + i0 <= i1 <= 19; S1[i0, i1] : (i0 + i1) mod 2 = 0 and 0 <= i0 <= 9 and i0 <= i1 <= 19 and i1 <= 3 + i0 }
// CHECK-NEXT: schedule: { S0[i0, i1] -> [0, i0, 0, i1, 0, 0]; S1[i0, i1] -> [0, i0, 0, i1, 0, 3] }
// CHECK-NEXT: reads: {  }
// CHECK-NEXT: must-writes: { S0[i0, i1] -> arg0[1 + i1] : {{.*}}; S1[i0, i1] -> arg0[i0] : {{.*}} }
// CHECK-NEXT: may-writes: {  }
// CHECK-NEXT: flow: {  }
func.func @tri(%A: memref<32xf32>) {
  %z = arith.constant 0.0 : f32
  tpoly.scop {
    affine.for %i = 0 to 10 {
      affine.for %j = affine_map<(d0) -> (d0)>(%i) to 20 step 2 {
        affine.if affine_set<(d0, d1) : (d1 - d0 - 4 >= 0)>(%i, %j) {
          %q = affine.apply affine_map<(d0) -> (d0 + 1)>(%j)
          affine.store %z, %A[%q] : memref<32xf32>
        } else {
          affine.store %z, %A[%i] : memref<32xf32>
        }
      }
    }
  }
  return
}

// -----

// Subscripts computed from data and stores under a condition on data: a free
// output dimension, and a may-write. The loop body is one statement.
// CHECK: remark: polyhedral model
// CHECK: reads: { S0[i0] -> arg0[o0] : 0 <= i0 <= 9; S0[i0] -> arg1[i0] : 0 <= i0 <= 9 }
// CHECK-NEXT: must-writes: {  }
// CHECK-NEXT: may-writes: { S0[i0] -> arg0[i0] : 0 <= i0 <= 9 }
// A may-write is a possible source of every later read of the array.
// CHECK-NEXT: flow: { S0[i0] -> S0[i0'] : i0 >= 0 and i0 < i0' <= 9 }
// CHECK-NEXT: anti/output: { S0[i0] -> S0[i0'] : 0 <= i0 <= 9 and i0' > i0 and 0 <= i0' <= 9 }

// A store to an element computed from data writes some element, not every one: a
// may-write, which does not kill the earlier store (both reach the read after it).
// CHECK: remark: polyhedral model
// CHECK: must-writes: { S0[i0] -> arg0[i0] : 0 <= i0 <= 9; S3[i0, i1 = 0] -> arg0[i0] : 0 <= i0 <= 9 }
// CHECK-NEXT: may-writes: { S1[i0] -> arg0[o0] : 0 <= i0 <= 9 }
// CHECK-NEXT: flow: { S0[i0] -> S2[i0' = i0] : 0 <= i0 <= 9; S1[i0] -> S2[i0'] : 0 <= i0 <= 9 and 0 <= i0' <= 9 }
func.func @data(%A: memref<10xf32>, %idx: memref<10xindex>) {
  %z = arith.constant 0.0 : f32
  tpoly.scop {
    affine.for %i = 0 to 10 {
      %k = affine.load %idx[%i] : memref<10xindex>
      %v = memref.load %A[%k] : memref<10xf32>
      %p = arith.cmpf ogt, %v, %z : f32
      scf.if %p {
        affine.store %v, %A[%i] : memref<10xf32>
      }
    }
  }
  return
}

func.func @scatter(%A: memref<10xf32>, %idx: memref<10xindex>) {
  %z = arith.constant 0.0 : f32
  tpoly.scop {
    affine.for %i = 0 to 10 {
      affine.store %z, %A[%i] : memref<10xf32>
    }
    affine.for %i = 0 to 10 {
      %k = affine.load %idx[%i] : memref<10xindex>
      memref.store %z, %A[%k] : memref<10xf32>
    }
    affine.for %i = 0 to 10 {
      %v = affine.load %A[%i] : memref<10xf32>
      affine.for %j = 0 to 1 {
        affine.store %v, %A[%i] : memref<10xf32>
      }
    }
  }
  return
}

// -----

// Divisions and remainders by constants (isl reads them as floor, ceil and mod of
// a literal divisor; the random programs of test/utils/randprog.py use them).
// CHECK: remark: polyhedral model
// CHECK-NEXT: domain: [arg1] -> { S0[i0, i1] : 0 <= i0 <= 15 and i1 >= 0 and 2i1 < arg1 }
// CHECK: must-writes: [arg1] -> { S0[i0, i1] -> arg0[o0, o1] : (-i0 + o0) mod 4 = 0 and 0 <= i0 <= 15 and i1 >= 0 and 2i1 < arg1 and 0 <= o0 <= 3 and -3 + i0 <= 4o1 <= i0 }
func.func @divs(%A: memref<4x4xf32>, %n: index) {
  %z = arith.constant 0.0 : f32
  tpoly.scop {
    affine.for %i = 0 to 16 {
      affine.for %j = 0 to affine_map<()[s0] -> (s0 ceildiv 2)>()[%n] {
        affine.store %z, %A[%i mod 4, %i floordiv 4] : memref<4x4xf32>
      }
    }
  }
  return
}

// -----

// What cannot be modelled is an error at the scop.
// CHECK: error: cannot model this scop: 'scf.for' inside a scop
func.func @bad(%A: memref<10xf32>, %n: index) {
  %z = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tpoly.scop {
    scf.for %i = %c0 to %n step %c1 {
      memref.store %z, %A[%i] : memref<10xf32>
    }
  }
  return
}

// -----

// A loop inside a statement (under a condition on data): its counter is existential,
// so the write covers the elements of all its iterations.
// CHECK: remark: polyhedral model
// CHECK-NEXT: domain: { S0[i0] : 0 <= i0 <= 9 }
// CHECK: may-writes: { S0[i0] -> arg0[q0] : 0 <= i0 <= 9 and 0 < q0 <= i0 }
func.func @inner(%A: memref<10xf32>, %F: memref<10xf32>) {
  %z = arith.constant 0.0 : f32
  tpoly.scop {
    affine.for %i = 0 to 10 {
      %f = affine.load %F[%i] : memref<10xf32>
      %p = arith.cmpf ogt, %f, %z : f32
      scf.if %p {
        affine.for %j = 0 to affine_map<(d0) -> (d0)>(%i) {
          affine.store %z, %A[%j + 1] : memref<10xf32>
        }
      }
    }
  }
  return
}
