// RUN: tessel-opt %s --split-input-file --tessel-detect-scops | FileCheck %s
// The same pass named inside a textual pipeline, beside upstream passes.
// RUN: tessel-opt %s --split-input-file --pass-pipeline='builtin.module(canonicalize, tessel-detect-scops)' | FileCheck %s --check-prefix=PIPE
// Running it twice changes nothing more: a scop is not searched again.
// RUN: tessel-opt %s --split-input-file --tessel-detect-scops --tessel-detect-scops | FileCheck %s

// A loop nest with straight-line code around it: the scop spans the loops only,
// the constant before it stays outside and is used inside.
// CHECK-LABEL: func.func @nest(
// CHECK: %[[C:.*]] = arith.constant
// CHECK-NEXT: tpoly.scop {
// CHECK-NEXT: affine.for
// CHECK-NEXT: affine.for
// CHECK-NEXT: affine.store %[[C]]
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: return
// PIPE-LABEL: func.func @nest(
// PIPE: tpoly.scop {
func.func @nest(%A: memref<10x10xf32>, %n: index) {
  %c = arith.constant 1.0 : f32
  affine.for %i = 0 to 10 {
    affine.for %j = 0 to %n {
      affine.store %c, %A[%i, %j] : memref<10x10xf32>
    }
  }
  return
}

// -----

// Two nests with a scalar computed between them and read after them: one scop,
// whose result replaces the scalar's uses after it.
// CHECK-LABEL: func.func @two(
// CHECK: %[[R:.*]] = tpoly.scop -> f32 {
// CHECK: affine.for
// CHECK: %[[S:.*]] = affine.load %{{.*}}[3]
// CHECK: affine.for
// CHECK: tpoly.yield %[[S]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]] : f32
func.func @two(%A: memref<10xf32>, %B: memref<10xf32>) -> f32 {
  affine.for %i = 0 to 10 {
    %v = affine.load %A[%i] : memref<10xf32>
    affine.store %v, %B[%i] : memref<10xf32>
  }
  %s = affine.load %B[3] : memref<10xf32>
  affine.for %i = 0 to 10 {
    affine.store %s, %A[%i] : memref<10xf32>
  }
  return %s : f32
}

// -----

// A call splits the code: the loops before and after it are two scops; the
// loop around the call is searched inside, and its inner nests become scops
// that use the outer induction variable as a dimension (in a subscript, in a
// bound).
// CHECK-LABEL: func.func @split(
// CHECK: tpoly.scop {
// CHECK-NEXT: affine.for
// CHECK-NEXT: affine.store
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: call @g
// CHECK-NEXT: affine.for %[[I:.*]] = 0 to 10 {
// CHECK-NEXT: call @g
// CHECK-NEXT: tpoly.scop {
// CHECK-NEXT: affine.for %[[J:.*]] = 0 to 5 {
// CHECK-NEXT: affine.store %{{.*}}, %{{.*}}[%[[I]] + %[[J]]]
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: affine.for %[[K:.*]] = 0 to 10 {
// CHECK-NEXT: call @g
// CHECK-NEXT: tpoly.scop {
// CHECK-NEXT: affine.for %{{.*}} = 0 to #map{{[0-9]*}}(%[[K]]) {
func.func private @g()
func.func @split(%A: memref<20xf32>) {
  %c = arith.constant 0.0 : f32
  affine.for %i = 0 to 10 {
    affine.store %c, %A[%i] : memref<20xf32>
  }
  func.call @g() : () -> ()
  affine.for %i = 0 to 10 {
    func.call @g() : () -> ()
    affine.for %j = 0 to 5 {
      affine.store %c, %A[%i + %j] : memref<20xf32>
    }
  }
  affine.for %k = 0 to 10 {
    func.call @g() : () -> ()
    affine.for %j = 0 to affine_map<(d0) -> (d0)>(%k) {
      affine.store %c, %A[%j] : memref<20xf32>
    }
  }
  return
}

// -----

// Data-dependent control (scf.if) and non-affine subscripts (memref.load) stay in
// the scop; code without a loop, an existing scop and device code are left alone.
// CHECK-LABEL: func.func @mixed(
// CHECK: tpoly.scop {
// CHECK: affine.for
// CHECK: scf.if
// CHECK: memref.load
// CHECK-NEXT: affine.store
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: arith.constant 0 : index
// CHECK-NEXT: memref.load
// CHECK-NEXT: return
func.func @mixed(%A: memref<10xf32>, %idx: memref<10xindex>) -> f32 {
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to 10 {
    %v = affine.load %A[%i] : memref<10xf32>
    %p = arith.cmpf ogt, %v, %z : f32
    scf.if %p {
      %k = affine.load %idx[%i] : memref<10xindex>
      %w = memref.load %A[%k] : memref<10xf32>
      affine.store %w, %A[%i] : memref<10xf32>
    }
  }
  %c0 = arith.constant 0 : index
  %r = memref.load %A[%c0] : memref<10xf32>
  return %r : f32
}
// CHECK-LABEL: func.func @already(
// CHECK: tpoly.scop {
// CHECK-NOT: tpoly.scop
// CHECK: return
func.func @already(%A: memref<10xf32>) {
  %c = arith.constant 0.0 : f32
  tpoly.scop {
    affine.for %i = 0 to 10 {
      affine.store %c, %A[%i] : memref<10xf32>
    }
  }
  return
}

// -----

// Options: the pass has none.
// RUN: not tessel-opt %s --tessel-detect-scops=depth=2 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: not tessel-opt %s --pass-pipeline='builtin.module(tessel-detect-scops{depth=2})' 2>&1 | FileCheck %s --check-prefix=OPT
// OPT: 'tessel-detect-scops' has no option 'depth' (valid: none)

// -----

// A loop with iteration arguments is not in the polyhedral model: not wrapped (the
// loop around it is searched and has nothing else).
// CHECK-LABEL: func.func @iter_args(
// CHECK-NOT: tpoly.scop
// CHECK: return
func.func @iter_args(%A: memref<10xf32>) -> f32 {
  %z = arith.constant 0.0 : f32
  %s = affine.for %i = 0 to 10 iter_args(%acc = %z) -> f32 {
    %v = affine.load %A[%i] : memref<10xf32>
    %n = arith.addf %acc, %v : f32
    affine.yield %n : f32
  }
  return %s : f32
}

// -----

// A scalar buffer that only the region uses becomes the scop's local scalar (at its
// top); one also read after the region stays outside.
// CHECK-LABEL: func.func @locals(
// CHECK-NEXT: %[[KEEP:.*]] = memref.alloca() : memref<f32>
// CHECK-NEXT: tpoly.scop {
// CHECK-NEXT: %[[MINE:.*]] = memref.alloca() : memref<f32>
// CHECK: affine.store %{{.*}}, %[[MINE]][]
// CHECK: affine.store %{{.*}}, %[[KEEP]][]
// CHECK: memref.load %[[KEEP]][]
func.func @locals(%A: memref<10xf32>) -> f32 {
  %keep = memref.alloca() : memref<f32>
  %mine = memref.alloca() : memref<f32>
  affine.for %i = 0 to 10 {
    %v = affine.load %A[%i] : memref<10xf32>
    affine.store %v, %mine[] : memref<f32>
    %w = affine.load %mine[] : memref<f32>
    affine.store %w, %keep[] : memref<f32>
  }
  %r = memref.load %keep[] : memref<f32>
  return %r : f32
}
