// RUN: tessel-opt %s --split-input-file --verify-diagnostics --tessel-optimize
// RUN: not tessel-opt %s --split-input-file --tessel-optimize 2>/dev/null | FileCheck %s
// RUN: not tessel-opt %s --tessel-optimize=pipeline=tiled 2>&1 | FileCheck %s --check-prefix=OPT
// OPT: error: 'tessel-optimize' option pipeline=tiled: expected naive or default
// RUN: not tessel-opt %s '--tessel-optimize=pipeline=naive autotune=model' 2>&1 | FileCheck %s --check-prefix=TUNENAIVE
// TUNENAIVE: error: 'tessel-optimize' option autotune=model: pipeline=naive has no parameters to choose (only pipeline=default)
// RUN: not tessel-opt %s '--tessel-optimize=pipeline=naive autotune=measure' 2>&1 | FileCheck %s --check-prefix=MEASURE
// MEASURE: error: 'tessel-optimize' option autotune=measure: pipeline=naive has no parameters to choose (only pipeline=default)
// RUN: not tessel-opt %s --tessel-optimize=autotune=yes 2>&1 | FileCheck %s --check-prefix=TUNE
// TUNE: error: 'tessel-optimize' option autotune=yes: expected none, model or measure
// What tessel-optimize cannot take, as its passes report it.

// A scop written by hand with a call in it: the model cannot see what the call touches.
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

// A scop that gives a value to the code after it stays on the host.
func.func @results(%A: memref<10xf32>) -> index {
  // expected-remark @+2 {{scop not rescheduled: the scop has results}}
  // expected-remark @+1 {{scop not mapped to the GPU: the scop has results}}
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

// -----

// Affine code with a call outside any scop: tessel-detect-scops leaves the loop with the
// call out (nothing to report), and the loop after it is mapped.
// CHECK-LABEL: func.func @outside(
// CHECK: scf.for
// CHECK-NEXT: func.call @f2()
// CHECK: gpu.launch {{.*}} function(@outside_k0)
func.func @outside(%A: memref<10xf32>) {
  affine.for %i = 0 to 10 {
    %v = func.call @f2() : () -> f32
    affine.store %v, %A[%i] : memref<10xf32>
  }
  affine.for %i = 0 to 10 {
    %v = affine.load %A[%i] : memref<10xf32>
    %w = arith.addf %v, %v : f32
    affine.store %w, %A[%i] : memref<10xf32>
  }
  return
}
func.func private @f2() -> f32
