// RUN: tessel-opt %s --split-input-file --verify-diagnostics --tessel-schedule
// Scops the polyhedral model cannot describe are errors of tessel-schedule (on the
// scop); scops it can describe but not rebuild stay as they were, with a remark.

// An operation whose memory effects the model cannot see: rescheduling around it could
// move a read of something it writes.
func.func @call(%A: memref<10xf32>) {
  // expected-error @+1 {{cannot model this scop: 'func.call' inside a scop (what it reads or writes is not modelled)}}
  tpoly.scop {
    affine.for %i = 0 to 10 {
      %v = func.call @f() : () -> f32
      affine.store %v, %A[%i] : memref<10xf32>
    }
  }
  return
}
func.func private @f() -> f32

// -----

func.func @copy(%A: memref<10xf32>, %B: memref<10xf32>) {
  // expected-error @+1 {{cannot model this scop: 'memref.copy' inside a scop (what it reads or writes is not modelled)}}
  tpoly.scop {
    affine.for %i = 0 to 10 {
      %v = affine.load %A[%i] : memref<10xf32>
      affine.store %v, %B[%i] : memref<10xf32>
    }
    memref.copy %B, %A : memref<10xf32> to memref<10xf32>
  }
  return
}

// -----

func.func @iter_args(%A: memref<10xf32>) {
  %z = arith.constant 0.0 : f32
  // expected-error @+1 {{cannot model this scop: an affine.for with iteration arguments}}
  tpoly.scop {
    %s = affine.for %i = 0 to 10 iter_args(%acc = %z) -> f32 {
      %v = affine.load %A[%i] : memref<10xf32>
      %n = arith.addf %acc, %v : f32
      affine.yield %n : f32
    }
    affine.store %s, %A[0] : memref<10xf32>
  }
  return
}

// -----

func.func @scf_for(%A: memref<10xf32>, %B: memref<10xindex>) {
  // expected-error @+1 {{cannot model this scop: 'scf.for' inside a scop}}
  tpoly.scop {
    affine.for %i = 1 to 10 {
      %n = affine.load %B[%i] : memref<10xindex>
      scf.for %j = %i to %n step %i {
        %v = memref.load %A[%j] : memref<10xf32>
        memref.store %v, %A[%j] : memref<10xf32>
      }
    }
  }
  return
}

// -----

func.func @results(%A: memref<10xf32>) -> index {
  // expected-remark @+1 {{scop not rescheduled: the scop has results}}
  %r = tpoly.scop -> index {
    affine.for %i = 0 to 10 {
      %v = affine.load %A[%i] : memref<10xf32>
      affine.store %v, %A[%i] : memref<10xf32>
    }
    %c = arith.constant 3 : index
    tpoly.yield %c : index
  }
  return %r : index
}
