// tessel-time-tile: a loop of steps over parallel stencil nests runs `steps` steps per
// kernel. Each tile and its halo are computed in shared memory, and the written arrays
// are double-buffered in global memory. The time-tiled modules run on sim as the
// module does on the host, for step counts that end within the first and the second
// block of a pair.
// RUN: tessel-opt %s --tessel-detect-scops --tessel-schedule --tessel-time-tile=steps=2 2>/dev/null | FileCheck %s
// RUN: tessel-opt %s --tessel-detect-scops --tessel-schedule --tessel-time-tile 2>/dev/null | FileCheck %s --check-prefix=AUTO
// RUN: tessel-opt %s --tessel-detect-scops --tessel-schedule --tessel-time-tile=steps=0 2>/dev/null | FileCheck %s --check-prefix=NONE
// RUN: tessel-run %s --device=sim | FileCheck %s --check-prefix=OUT
// RUN: tessel-opt %s --tessel-detect-scops --tessel-schedule --tessel-time-tile=steps=2 --tessel-tile --tessel-promote-shared --tessel-pad-banks --tessel-map-to-gpu -o %t.mapped.mlir
// RUN: tessel-run %t.mapped.mlir --device=sim | FileCheck %s --check-prefix=OUT
// RUN: tessel-opt %s --tessel-detect-scops --tessel-schedule --tessel-time-tile="steps=3 sizes=3,5" --tessel-tile --tessel-promote-shared --tessel-pad-banks --tessel-map-to-gpu -o %t.small.mlir
// RUN: tessel-run %t.small.mlir --device=sim | FileCheck %s --check-prefix=OUT
// RUN: tessel-opt %s --tessel-detect-scops --tessel-schedule --tessel-time-tile=steps=2 --tessel-tile --tessel-promote-shared --tessel-pad-banks --tessel-map-to-gpu --tessel-uniform-loops --tessel-stage-rows --tessel-promote-registers --tessel-forward-stores --tessel-ilp-unroll --tessel-reassociate-sums -o %t.all.mlir
// RUN: tessel-run %t.all.mlir --device=sim | FileCheck %s --check-prefix=OUT
// RUN: not tessel-opt %s --tessel-time-tile=steps=x 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: not tessel-opt %s --tessel-time-tile="sizes=4,0" 2>&1 | FileCheck %s --check-prefix=ERR-SIZES

// Without steps=N or tessel-autotune's mark (tessel.time_tile), the rule: 4 steps per
// kernel on grids of one or two dimensions of at most 4096 elements (heat1d's 64,
// jacobi2d's 400), none on larger ones (large2d's 10000). steps=0: none.
// AUTO-LABEL: func.func @heat1d(
// AUTO: tessel.time_tiled, {{.*}} tpoly.tile = 248
// AUTO-LABEL: func.func @jacobi2d(
// AUTO: tessel.time_tiled, {{.*}} tpoly.tile = 16
// AUTO-LABEL: func.func @large2d(
// AUTO-NOT: tgpu.
// AUTO-LABEL: func.func @in_place(
// NONE-NOT: tgpu.

// A 1-D heat step over A, scaled by a read-only P, copied back to A. Two steps per
// kernel: statement 0 of the first step runs over the tile widened by 1 on each side
// (its values feed the second step's reads at -1 and +1), statement 1 likewise, the
// second step over the tile. A is read before any write in the steps: its box (tile
// and a halo of 2) is copied in. B is only read where statement 0 wrote it: never
// copied in. P is copied in and never out. A and B get twins; a pair of blocks runs
// 4 steps, the second from the twins back to the arrays, or the twins are copied
// back where the steps end within the first.
// CHECK-LABEL: func.func @heat1d(
// CHECK: %[[A2:.*]] = memref.alloca() : memref<64xf64>
// CHECK-NEXT: %[[B2:.*]] = memref.alloca() : memref<64xf64>
// CHECK-NEXT: affine.for %[[P:.*]] = #{{.*}}()[%arg3] to #{{.*}}()[%arg3] {
// CHECK-NEXT: affine.for %[[T:.*]] = #{{.*}}()[%arg3] to #{{.*}}()[%arg3] {
// CHECK-NEXT: %[[O:.*]] = affine.apply #{{.*}}(%[[T]], %[[P]])[%arg3]
// CHECK-NEXT: %[[SA:.*]] = tgpu.alloc_shared [256] padding [0] : memref<256xf64, #gpu.address_space<workgroup>>
// CHECK-NEXT: tgpu.tile_copy %arg0 to %[[SA]] offsets [%[[O]]] tile [256]
// CHECK-NEXT: %[[SP:.*]] = tgpu.alloc_shared [256] padding [0]
// CHECK-NEXT: tgpu.tile_copy %arg2 to %[[SP]] offsets [%[[O]]] tile [256]
// CHECK-NEXT: %[[SB:.*]] = tgpu.alloc_shared [256] padding [0]
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: affine.for %[[I:.*]] = max #{{.*}}(%[[T]], %[[P]])[%arg3] to min #{{.*}}(%[[T]], %[[P]])[%arg3] {
// CHECK-NEXT: affine.load %[[SA]][%[[I]] - 1]
// CHECK-NEXT: affine.load %[[SA]][%[[I]]]
// CHECK-NEXT: affine.load %[[SA]][%[[I]] + 1]
// CHECK-NEXT: affine.load %[[SP]][%[[I]]]
// CHECK: affine.store %{{.*}}, %[[SB]][%[[I]]]
// CHECK-NEXT: } {tpoly.band = [[BAND:[0-9]+]] : i64, tpoly.coincident, tpoly.extent = 254 : i64, tpoly.member = 0 : i64, tpoly.point}
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: affine.for %[[I:.*]] = max
// CHECK-NEXT: %[[V:.*]] = affine.load %[[SB]][%[[I]]]
// CHECK-NEXT: affine.store %[[V]], %[[SA]][%[[I]]]
// CHECK-NEXT: } {tpoly.band = [[BAND]] : i64, tpoly.coincident, tpoly.extent = 254 : i64, tpoly.member = 0 : i64, tpoly.point}
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: affine.if #{{.*}}(%[[T]], %[[P]])[%arg3] {
// CHECK-NEXT: affine.for
// CHECK: } {tpoly.band = [[BAND]] : i64, tpoly.coincident, tpoly.extent = 252 : i64, tpoly.member = 0 : i64, tpoly.point}
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: affine.for
// CHECK: } {tpoly.band = [[BAND]] : i64, tpoly.coincident, tpoly.extent = 252 : i64, tpoly.member = 0 : i64, tpoly.point}
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: }
// CHECK-NEXT: affine.for %[[X:.*]] = max
// CHECK-NEXT: %[[V:.*]] = affine.load %[[SA]][%[[X]] - %[[O]]]
// CHECK-NEXT: affine.store %[[V]], %[[A2]][%[[X]]]
// CHECK-NEXT: } {tpoly.band = [[BAND]] : i64, tpoly.coincident, tpoly.extent = 252 : i64, tpoly.member = 0 : i64, tpoly.point}
// CHECK-NEXT: affine.for %[[X:.*]] = max
// CHECK-NEXT: %[[V:.*]] = affine.load %[[SB]][%[[X]] - %[[O]]]
// CHECK-NEXT: affine.store %[[V]], %[[B2]][%[[X]]]
// CHECK-NEXT: } {tpoly.band = [[BAND]] : i64, tpoly.coincident, tpoly.extent = 252 : i64, tpoly.member = 0 : i64, tpoly.point}
// CHECK-NEXT: } {tessel.time_tiled, tpoly.band = [[BAND]] : i64, tpoly.coincident, tpoly.extent = 256 : i64, tpoly.member = 0 : i64, tpoly.permutable, tpoly.tile = 252 : i64}
// CHECK-NEXT: affine.if #{{.*}}(%[[P]])[%arg3] {
// CHECK-NEXT: affine.for
// CHECK-NEXT: affine.apply
// CHECK-NEXT: tgpu.alloc_shared
// CHECK-NEXT: tgpu.tile_copy %[[A2]] to
// CHECK: affine.store %{{.*}}, %arg0[
// CHECK: affine.store %{{.*}}, %arg1[
// CHECK: } else {
// CHECK-NEXT: affine.for %[[C:.*]] = #{{.*}}()[%arg3] to #{{.*}}()[%arg3] {
// CHECK-NEXT: %[[W:.*]] = affine.load %[[A2]][%[[C]]]
// CHECK-NEXT: affine.store %[[W]], %arg0[%[[C]]]
// CHECK-NEXT: } {tpoly.coincident}
// CHECK-NEXT: affine.for %[[D:.*]] = #{{.*}}()[%arg3] to #{{.*}}()[%arg3] {
// CHECK-NEXT: %[[W:.*]] = affine.load %[[B2]][%[[D]]]
// CHECK-NEXT: affine.store %[[W]], %arg1[%[[D]]]
// CHECK-NEXT: } {tpoly.coincident}
func.func @heat1d(%A: memref<64xf64>, %B: memref<64xf64>, %P: memref<64xf64>, %T: index) {
  %quarter = arith.constant 0.25 : f64
  affine.for %t = 0 to %T {
    affine.for %i = 1 to 63 {
      %l = affine.load %A[%i - 1] : memref<64xf64>
      %c = affine.load %A[%i] : memref<64xf64>
      %r = affine.load %A[%i + 1] : memref<64xf64>
      %p = affine.load %P[%i] : memref<64xf64>
      %s = arith.addf %l, %c : f64
      %s2 = arith.addf %s, %r : f64
      %s3 = arith.addf %s2, %p : f64
      %v = arith.mulf %s3, %quarter : f64
      affine.store %v, %B[%i] : memref<64xf64>
    }
    affine.for %i = 1 to 63 {
      %v = affine.load %B[%i] : memref<64xf64>
      affine.store %v, %A[%i] : memref<64xf64>
    }
  }
  return
}

// A 2-D Jacobi pair, each array read at its neighbours: B is read only where written
// in the domain, but its boundary is read (and written back) as it was, so a tile
// whose box reaches outside the domain copies it in (the else block of the box's
// test); A is always copied in.
// CHECK-LABEL: func.func @jacobi2d(
// CHECK: %[[SA:.*]] = tgpu.alloc_shared [40, 32] padding [0, 0] : memref<40x32xf64, #gpu.address_space<workgroup>>
// CHECK-NEXT: tgpu.tile_copy %arg0 to %[[SA]] offsets [%[[O0:.*]], %[[O1:.*]]] tile [40, 32]
// CHECK-NEXT: %[[SB:.*]] = tgpu.alloc_shared [40, 32] padding [0, 0]
// CHECK-NEXT: affine.if #{{.*}}(%{{.*}}, %{{.*}}, %{{.*}})[%arg2] {
// CHECK-NEXT: } else {
// CHECK-NEXT: tgpu.tile_copy %arg1 to %[[SB]] offsets [%[[O0]], %[[O1]]] tile [40, 32]
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: affine.for %[[I:.*]] = max
// CHECK-NEXT: affine.for %[[J:.*]] = max
// CHECK-NEXT: affine.load %[[SA]][%[[I]], %[[J]]]
// CHECK-NEXT: affine.load %[[SA]][%[[I]] - 1, %[[J]]]
// CHECK: affine.store %{{.*}}, %[[SB]][%[[I]], %[[J]]]
// CHECK-NEXT: } {tpoly.band = [[BAND:[0-9]+]] : i64, tpoly.coincident, tpoly.extent = 30 : i64, tpoly.member = 1 : i64, tpoly.point}
// CHECK-NEXT: } {tpoly.band = [[BAND]] : i64, tpoly.coincident, tpoly.extent = 38 : i64, tpoly.member = 0 : i64, tpoly.point}
// CHECK: } {tessel.time_tiled, tpoly.band = [[BAND]] : i64, tpoly.coincident, tpoly.extent = 32 : i64, tpoly.member = 1 : i64, tpoly.permutable, tpoly.tile = 24 : i64}
// CHECK-NEXT: } {tpoly.band = [[BAND]] : i64, tpoly.coincident, tpoly.extent = 40 : i64, tpoly.member = 0 : i64, tpoly.permutable, tpoly.tile = 32 : i64}
func.func @jacobi2d(%A: memref<20x20xf64>, %B: memref<20x20xf64>, %T: index) {
  %fifth = arith.constant 0.2 : f64
  affine.for %t = 0 to %T {
    affine.for %i = 1 to 19 {
      affine.for %j = 1 to 19 {
        %a = affine.load %A[%i, %j] : memref<20x20xf64>
        %b = affine.load %A[%i - 1, %j] : memref<20x20xf64>
        %c = affine.load %A[%i + 1, %j] : memref<20x20xf64>
        %d = affine.load %A[%i, %j - 1] : memref<20x20xf64>
        %e = affine.load %A[%i, %j + 1] : memref<20x20xf64>
        %s1 = arith.addf %a, %b : f64
        %s2 = arith.addf %s1, %c : f64
        %s3 = arith.addf %s2, %d : f64
        %s4 = arith.addf %s3, %e : f64
        %v = arith.mulf %s4, %fifth : f64
        affine.store %v, %B[%i, %j] : memref<20x20xf64>
      }
    }
    affine.for %i = 1 to 19 {
      affine.for %j = 1 to 19 {
        %a = affine.load %B[%i, %j] : memref<20x20xf64>
        %b = affine.load %B[%i - 1, %j] : memref<20x20xf64>
        %c = affine.load %B[%i + 1, %j] : memref<20x20xf64>
        %d = affine.load %B[%i, %j - 1] : memref<20x20xf64>
        %e = affine.load %B[%i, %j + 1] : memref<20x20xf64>
        %s1 = arith.addf %a, %b : f64
        %s2 = arith.addf %s1, %c : f64
        %s3 = arith.addf %s2, %d : f64
        %s4 = arith.addf %s3, %e : f64
        %v = arith.mulf %s4, %fifth : f64
        affine.store %v, %A[%i, %j] : memref<20x20xf64>
      }
    }
  }
  return
}

// The jacobi pair on a 100x100 grid (not read back by @main).
func.func @large2d(%A: memref<100x100xf64>, %B: memref<100x100xf64>, %T: index) {
  affine.for %t = 0 to %T {
    affine.for %i = 1 to 99 {
      affine.for %j = 1 to 99 {
        %a = affine.load %A[%i, %j - 1] : memref<100x100xf64>
        %b = affine.load %A[%i, %j + 1] : memref<100x100xf64>
        %s = arith.addf %a, %b : f64
        affine.store %s, %B[%i, %j] : memref<100x100xf64>
      }
    }
    affine.for %i = 1 to 99 {
      affine.for %j = 1 to 99 {
        %a = affine.load %B[%i - 1, %j] : memref<100x100xf64>
        affine.store %a, %A[%i, %j] : memref<100x100xf64>
      }
    }
  }
  return
}

// Left alone: an in-place sweep (its loops are not parallel), and stencils over
// different domains.
// CHECK-LABEL: func.func @in_place(
// CHECK-NOT: tgpu.
// CHECK-LABEL: func.func @domains(
// CHECK-NOT: tgpu.
// CHECK-LABEL: func.func @main(
func.func @in_place(%A: memref<64xf64>, %T: index) {
  affine.for %t = 0 to %T {
    affine.for %i = 1 to 63 {
      %l = affine.load %A[%i - 1] : memref<64xf64>
      %r = affine.load %A[%i + 1] : memref<64xf64>
      %s = arith.addf %l, %r : f64
      affine.store %s, %A[%i] : memref<64xf64>
    }
  }
  return
}
func.func @domains(%A: memref<64xf64>, %B: memref<64xf64>, %T: index) {
  affine.for %t = 0 to %T {
    affine.for %i = 1 to 63 {
      %l = affine.load %A[%i - 1] : memref<64xf64>
      affine.store %l, %B[%i] : memref<64xf64>
    }
    affine.for %i = 2 to 63 {
      %v = affine.load %B[%i] : memref<64xf64>
      affine.store %v, %A[%i] : memref<64xf64>
    }
  }
  return
}

// ERR: error: 'tessel-time-tile' option steps=x: expected auto or a number of steps (0: none)
// ERR-SIZES: error: 'tessel-time-tile' option sizes=4,0: expected positive integers separated by commas

// Each array's weighted sum after 1, 2, 3 and 5 steps, heat1d's A and B then
// jacobi2d's (2 steps per kernel: the steps end within the first block of a pair, or
// the second; 3: after the first block's first step or its last).
// OUT: 555
// OUT-NEXT: 555
// OUT-NEXT: 9774.039999999997
// OUT-NEXT: 9747.799999999997
// OUT-NEXT: 552.375
// OUT-NEXT: 552.375
// OUT-NEXT: 9787.812799999998
// OUT-NEXT: 9778.263999999996
// OUT-NEXT: 551.390625
// OUT-NEXT: 551.390625
// OUT-NEXT: 9795.684288
// OUT-NEXT: 9791.432640000006
// OUT-NEXT: 550.0439453125
// OUT-NEXT: 550.0439453125
// OUT-NEXT: 9803.044388761606
// OUT-NEXT: 9801.748366848009
func.func @main() {
  %A = memref.alloc() : memref<64xf64>
  %B = memref.alloc() : memref<64xf64>
  %P = memref.alloc() : memref<64xf64>
  %A2 = memref.alloc() : memref<20x20xf64>
  %B2 = memref.alloc() : memref<20x20xf64>
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  scf.for %n = %c1 to %c6 step %c1 {
    %four = arith.constant 4 : index
    %skip = arith.cmpi eq, %n, %four : index
    scf.if %skip {
    } else {
      func.call @fill1(%A) : (memref<64xf64>) -> ()
      func.call @fill1(%B) : (memref<64xf64>) -> ()
      func.call @fill1(%P) : (memref<64xf64>) -> ()
      func.call @heat1d(%A, %B, %P, %n) : (memref<64xf64>, memref<64xf64>, memref<64xf64>, index) -> ()
      func.call @sum1(%A) : (memref<64xf64>) -> ()
      func.call @sum1(%B) : (memref<64xf64>) -> ()
      func.call @fill2(%A2) : (memref<20x20xf64>) -> ()
      func.call @fill2(%B2) : (memref<20x20xf64>) -> ()
      func.call @jacobi2d(%A2, %B2, %n) : (memref<20x20xf64>, memref<20x20xf64>, index) -> ()
      func.call @sum2(%A2) : (memref<20x20xf64>) -> ()
      func.call @sum2(%B2) : (memref<20x20xf64>) -> ()
    }
  }
  return
}
// A[i] = i mod 7.
func.func @fill1(%A: memref<64xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c64 step %c1 {
    %m = arith.remui %i, %c7 : index
    %w = arith.index_cast %m : index to i32
    %f = arith.sitofp %w : i32 to f64
    memref.store %f, %A[%i] : memref<64xf64>
  }
  return
}
// A[i][j] = (3i + 5j) mod 8.
func.func @fill2(%A: memref<20x20xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c8 = arith.constant 8 : index
  %c20 = arith.constant 20 : index
  scf.for %i = %c0 to %c20 step %c1 {
    scf.for %j = %c0 to %c20 step %c1 {
      %a = arith.muli %i, %c3 : index
      %b = arith.muli %j, %c5 : index
      %s = arith.addi %a, %b : index
      %m = arith.remui %s, %c8 : index
      %w = arith.index_cast %m : index to i32
      %f = arith.sitofp %w : i32 to f64
      memref.store %f, %A[%i, %j] : memref<20x20xf64>
    }
  }
  return
}
// Prints the sum of A[i] * (i mod 5 + 1).
func.func @sum1(%A: memref<64xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c64 = arith.constant 64 : index
  %z = arith.constant 0.0 : f64
  %r = scf.for %i = %c0 to %c64 step %c1 iter_args(%a = %z) -> f64 {
    %v = memref.load %A[%i] : memref<64xf64>
    %m = arith.remui %i, %c5 : index
    %m1 = arith.addi %m, %c1 : index
    %w = arith.index_cast %m1 : index to i32
    %f = arith.sitofp %w : i32 to f64
    %p = arith.mulf %v, %f : f64
    %n = arith.addf %a, %p : f64
    scf.yield %n : f64
  }
  func.call @tessel_print_f64(%r) : (f64) -> ()
  return
}
// Prints the sum of A[i][j] * ((i + 2j) mod 13 + 1).
func.func @sum2(%A: memref<20x20xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c13 = arith.constant 13 : index
  %c20 = arith.constant 20 : index
  %z = arith.constant 0.0 : f64
  %r = scf.for %i = %c0 to %c20 step %c1 iter_args(%a = %z) -> f64 {
    %q = scf.for %j = %c0 to %c20 step %c1 iter_args(%b = %a) -> f64 {
      %v = memref.load %A[%i, %j] : memref<20x20xf64>
      %t = arith.muli %j, %c2 : index
      %u = arith.addi %i, %t : index
      %m = arith.remui %u, %c13 : index
      %m1 = arith.addi %m, %c1 : index
      %w = arith.index_cast %m1 : index to i32
      %f = arith.sitofp %w : i32 to f64
      %p = arith.mulf %v, %f : f64
      %n2 = arith.addf %b, %p : f64
      scf.yield %n2 : f64
    }
    scf.yield %q : f64
  }
  func.call @tessel_print_f64(%r) : (f64) -> ()
  return
}
func.func private @tessel_print_f64(f64)
