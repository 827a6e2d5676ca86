// tessel-optimize on affine code that did not come from the frontend: functions whose
// bodies are affine loops over memref arguments, one without tpoly.scop.
// RUN: tessel-opt %s --tessel-optimize=pipeline=naive | FileCheck %s --check-prefix=NAIVE
// RUN: tessel-opt %s --tessel-optimize | FileCheck %s --check-prefix=DEFAULT
// A named pipeline runs pass by pass.
// RUN: tessel-opt %s --tessel-optimize --mlir-print-ir-after-all -o /dev/null 2>&1 | FileCheck %s --check-prefix=EACH
// The optimized module prints what the module does on the host, and lowers to NVVM.
// RUN: tessel-run %s --device=sim | FileCheck %s --check-prefix=OUT
// RUN: tessel-opt %s --tessel-optimize=pipeline=naive -o %t.naive.mlir
// RUN: tessel-run %t.naive.mlir --device=sim | FileCheck %s --check-prefix=OUT
// RUN: tessel-opt %s --tessel-optimize -o %t.default.mlir
// RUN: tessel-run %t.default.mlir --device=sim | FileCheck %s --check-prefix=OUT
// RUN: tessel-opt %s --tessel-optimize --tessel-gpu-to-nvvm=libdevice=none | FileCheck %s --check-prefix=NVVM
// RUN: not tessel-opt %s --tessel-optimize=pipeline=fast 2>&1 | FileCheck %s --check-prefix=BADOPT
// BADOPT: error: 'tessel-optimize' option pipeline=fast: expected naive or default

// EACH: IR Dump After tessel-detect-scops
// EACH: IR Dump After tessel-schedule
// EACH: IR Dump After tessel-tile
// EACH: IR Dump After tessel-map-to-gpu
// EACH: IR Dump After tessel-promote-registers
// EACH: IR Dump After tessel-ilp-unroll
// NVVM: gpu.binary @tessel_kernels

// A matrix-vector product with its accumulator in a local scalar, no tpoly.scop: naive
// runs a thread per row in blocks of 256; default tiles the row loop by 64 (a block per
// tile, a thread per point: 5 blocks, where tiles of 256 would busy 2 SMs), each thread
// with its own accumulator.
// NAIVE-LABEL: func.func @mv(
// NAIVE: gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c256{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}})
// NAIVE-NEXT: memref.alloca() : memref<f32>
// DEFAULT-LABEL: func.func @mv(
// DEFAULT: gpu.launch blocks({{.*}}) in (%{{.*}} = %c5{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) threads({{.*}}) in (%{{.*}} = %c64{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}})
// DEFAULT-NEXT: memref.alloca() : memref<f32>
// DEFAULT: scf.for
func.func @mv(%A: memref<300x64xf32>, %x: memref<64xf32>, %y: memref<300xf32>) {
  %acc = memref.alloca() : memref<f32>
  affine.for %i = 0 to 300 {
    %z = arith.constant 0.0 : f32
    affine.store %z, %acc[] : memref<f32>
    affine.for %j = 0 to 64 {
      %a = affine.load %A[%i, %j] : memref<300x64xf32>
      %b = affine.load %x[%j] : memref<64xf32>
      %p = arith.mulf %a, %b : f32
      %s = affine.load %acc[] : memref<f32>
      %t = arith.addf %s, %p : f32
      affine.store %t, %acc[] : memref<f32>
    }
    %r = affine.load %acc[] : memref<f32>
    affine.store %r, %y[%i] : memref<300xf32>
  }
  return
}

// A 2-D stencil sweep in time, inside a tpoly.scop: the time loop stays on the host;
// naive maps (i, j) to 32 x 8 threads, default tiles them 8 x 32 (the rule's 32 x 32,
// halved along y down to 8 while the grid would have fewer than 64 blocks: 3 x 3 of
// 32 x 32, 9 x 3 of 8 x 32) with a block per tile of 32 x 8 threads or fewer along y,
// as the runtime chooses for the 27 blocks at launch.
// NAIVE-LABEL: func.func @smooth(
// NAIVE: scf.for
// NAIVE: gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c32{{.*}}, %{{.*}} = %c8{{.*}}, %{{.*}} = %c1{{.*}})
// DEFAULT-LABEL: func.func @smooth(
// DEFAULT: scf.for
// DEFAULT: %[[EY:.*]] = func.call @tessel_block_extent(%c27, %c256, %c8, %c4{{.*}})
// DEFAULT: gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c32{{.*}}, %{{.*}} = %[[EY]], %{{.*}} = %c1{{.*}})
func.func @smooth(%A: memref<66x66xf32>, %B: memref<66x66xf32>) {
  tpoly.scop {
    affine.for %t = 0 to 4 {
      affine.for %i = 1 to 65 {
        affine.for %j = 1 to 65 {
          %n = affine.load %A[%i - 1, %j] : memref<66x66xf32>
          %s = affine.load %A[%i + 1, %j] : memref<66x66xf32>
          %w = affine.load %A[%i, %j - 1] : memref<66x66xf32>
          %e = affine.load %A[%i, %j + 1] : memref<66x66xf32>
          %a = arith.addf %n, %s : f32
          %b = arith.addf %w, %e : f32
          %c = arith.addf %a, %b : f32
          %q = arith.constant 0.25 : f32
          %d = arith.mulf %c, %q : f32
          affine.store %d, %B[%i, %j] : memref<66x66xf32>
        }
      }
      affine.for %i = 1 to 65 {
        affine.for %j = 1 to 65 {
          %v = affine.load %B[%i, %j] : memref<66x66xf32>
          affine.store %v, %A[%i, %j] : memref<66x66xf32>
        }
      }
    }
  }
  return
}

// y = A x with A[i][j] = 1 and x[j] = j: every element is 0 + 1 + ... + 63 = 2016.
// The stencil on a grid of ones with a border of zeros: a corner cell after 4 sweeps.
// OUT: 2016
// OUT-NEXT: 2016
// OUT-NEXT: 0.234375
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c65 = arith.constant 65 : index
  %c66 = arith.constant 66 : index
  %c299 = arith.constant 299 : index
  %c300 = arith.constant 300 : index
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %A = memref.alloc() : memref<300x64xf32>
  %x = memref.alloc() : memref<64xf32>
  %y = memref.alloc() : memref<300xf32>
  scf.for %i = %c0 to %c300 step %c1 {
    scf.for %j = %c0 to %c64 step %c1 {
      memref.store %one, %A[%i, %j] : memref<300x64xf32>
    }
  }
  scf.for %j = %c0 to %c64 step %c1 {
    %jj = arith.index_cast %j : index to i32
    %f = arith.sitofp %jj : i32 to f32
    memref.store %f, %x[%j] : memref<64xf32>
  }
  func.call @mv(%A, %x, %y) : (memref<300x64xf32>, memref<64xf32>, memref<300xf32>) -> ()
  %y0 = memref.load %y[%c0] : memref<300xf32>
  %y1 = memref.load %y[%c299] : memref<300xf32>
  func.call @tessel_print_f32(%y0) : (f32) -> ()
  func.call @tessel_print_f32(%y1) : (f32) -> ()
  %G = memref.alloc() : memref<66x66xf32>
  %H = memref.alloc() : memref<66x66xf32>
  scf.for %i = %c0 to %c66 step %c1 {
    scf.for %j = %c0 to %c66 step %c1 {
      %bi = arith.cmpi eq, %i, %c0 : index
      %ei = arith.cmpi eq, %i, %c65 : index
      %bj = arith.cmpi eq, %j, %c0 : index
      %ej = arith.cmpi eq, %j, %c65 : index
      %o1 = arith.ori %bi, %ei : i1
      %o2 = arith.ori %bj, %ej : i1
      %edge = arith.ori %o1, %o2 : i1
      %v = arith.select %edge, %zero, %one : f32
      memref.store %v, %G[%i, %j] : memref<66x66xf32>
      memref.store %v, %H[%i, %j] : memref<66x66xf32>
    }
  }
  func.call @smooth(%G, %H) : (memref<66x66xf32>, memref<66x66xf32>) -> ()
  %g = memref.load %G[%c1, %c1] : memref<66x66xf32>
  func.call @tessel_print_f32(%g) : (f32) -> ()
  return
}
func.func private @tessel_print_f32(f32)
