// RUN: tessel-opt %s --tessel-map-to-gpu 2>/dev/null | FileCheck %s
// RUN: tessel-opt %s --tessel-map-to-gpu 2>&1 >/dev/null | FileCheck %s --check-prefix=DIAG
// The mapped module runs on sim and prints what the module run on the host prints.
// RUN: tessel-run %s --device=sim | FileCheck %s --check-prefix=OUT
// RUN: tessel-opt %s --tessel-schedule --tessel-map-to-gpu -o %t.mlir
// RUN: tessel-run %t.mlir --device=sim --profile=%t.json | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --input-file=%t.json --check-prefix=PROFILE
// The tiled mapping: the module tiled, mapped, and run on sim.
// RUN: tessel-opt %s --tessel-schedule --tessel-tile=sizes=64,64,16 --tessel-map-to-gpu=coarsen=1 -o %t.tiled.mlir
// RUN: FileCheck %s --input-file=%t.tiled.mlir --check-prefix=TILED
// RUN: tessel-run %t.tiled.mlir --device=sim | FileCheck %s --check-prefix=OUT
// RUN: tessel-opt %s --tessel-schedule --tessel-tile=sizes=64,64,16 --tessel-map-to-gpu=coarsen=4 -o %t.coarse.mlir
// RUN: FileCheck %s --input-file=%t.coarse.mlir --check-prefix=COARSE
// RUN: tessel-run %t.coarse.mlir --device=sim | FileCheck %s --check-prefix=OUT
// RUN: tessel-opt %s --tessel-schedule --tessel-tile=sizes=64,64,16 --tessel-map-to-gpu -o %t.auto.mlir
// RUN: FileCheck %s --input-file=%t.auto.mlir --check-prefix=AUTO
// RUN: tessel-run %t.auto.mlir --device=sim --profile=%t.auto.json | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --input-file=%t.auto.json --check-prefix=AUTO-PROFILE

// A parallel loop: the array is copied to the device, a 1-D launch of 256-thread blocks
// over ceil(n / 256) blocks runs the body guarded by the trip count, the written
// array is copied back.
// CHECK-LABEL: func.func @vadd(
// CHECK: %[[DA:.*]] = gpu.alloc (%{{.*}}) : memref<?xf32>
// CHECK-NEXT: gpu.memcpy %[[DA]], %arg0
// CHECK: %[[DB:.*]] = gpu.alloc (%{{.*}}) : memref<?xf32>
// CHECK: %[[N:.*]] = arith.maxsi %arg2, %c0
// CHECK: %[[G:.*]] = arith.ceildivsi %[[N]], %c256
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %{{.*}}, %{{.*}} = %c1, %{{.*}} = %c1) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%[[BD:.*]] = %c256, %{{.*}} = %c1, %{{.*}} = %c1) module(@tessel_kernels) function(@vadd_k0)
// CHECK-NEXT: %[[M:.*]] = arith.muli %[[BX]], %[[BD]]
// CHECK-NEXT: %[[X:.*]] = arith.addi %[[M]], %[[TX]]
// CHECK-NEXT: %[[IN:.*]] = arith.cmpi slt, %[[X]], %[[N]]
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK-NEXT: memref.load %[[DA]][%[[X]]]
// CHECK: gpu.dealloc %[[DA]]
// CHECK-NEXT: gpu.memcpy %arg1, %[[DB]]
// CHECK-NEXT: gpu.dealloc %[[DB]]
func.func @vadd(%A: memref<?xf32>, %B: memref<?xf32>, %n: index) {
  tpoly.scop {
    affine.for %i = 0 to %n {
      %a = affine.load %A[%i] : memref<?xf32>
      %b = arith.addf %a, %a : f32
      affine.store %b, %B[%i] : memref<?xf32>
    } {tpoly.band = 0 : i64, tpoly.coincident, tpoly.member = 0 : i64, tpoly.permutable}
  }
  return
}

// Two nested parallel loops under a sequential one: the sequential loop stays on the
// host, the parallel ones become a 2-D launch (the inner loop on x, 32x8 threads), and
// the statement after them a kernel of one thread.
// CHECK-LABEL: func.func @twod(
// CHECK: scf.for
// CHECK-NEXT: gpu.launch blocks(%[[BX:.*]], %[[BY:.*]], %{{.*}}) in (%{{.*}} = %c4, %{{.*}} = %c8, %{{.*}} = %c1) threads(%[[TX:.*]], %[[TY:.*]], %{{.*}}) in (%{{.*}} = %c32, %{{.*}} = %c8, %{{.*}} = %c1) module(@tessel_kernels) function(@twod_k0)
// CHECK: memref.load %{{.*}}[%[[Y:.*]], %[[X:.*]]] : memref<64x100xf32>
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c1, %{{.*}} = %c1, %{{.*}} = %c1) threads({{.*}}) in (%{{.*}} = %c1, %{{.*}} = %c1, %{{.*}} = %c1) module(@tessel_kernels) function(@twod_k1)
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}}[%c0, %c0]
func.func @twod(%A: memref<64x100xf32>, %T: index) {
  tpoly.scop {
    affine.for %t = 0 to %T {
      affine.for %i = 0 to 64 {
        affine.for %j = 0 to 100 {
          %a = affine.load %A[%i, %j] : memref<64x100xf32>
          %b = arith.addf %a, %a : f32
          affine.store %b, %A[%i, %j] : memref<64x100xf32>
        } {tpoly.band = 1 : i64, tpoly.coincident, tpoly.member = 1 : i64, tpoly.permutable}
      } {tpoly.band = 1 : i64, tpoly.coincident, tpoly.member = 0 : i64, tpoly.permutable}
      %z = arith.constant 1.0 : f32
      affine.store %z, %A[0, 0] : memref<64x100xf32>
    } {tpoly.band = 0 : i64, tpoly.member = 0 : i64}
  }
  return
}

// Column access: with the inner loop on x, consecutive threads would be a row apart in
// both accesses; the outer loop takes thread x instead (loop/thread swap), so the
// launch's x extent covers j's 64 iterations in 2 blocks of 32 and y covers i's 100.
// CHECK-LABEL: func.func @columns(
// CHECK: gpu.launch blocks(%[[BX:.*]], %[[BY:.*]], %{{.*}}) in (%{{.*}} = %c2, %{{.*}} = %c13, %{{.*}} = %c1) threads(%[[TX:.*]], %[[TY:.*]], %{{.*}}) in (%[[DX:.*]] = %c32, %[[DY:.*]] = %c8, %{{.*}} = %c1)
// CHECK-NEXT: %[[M:.*]] = arith.muli %[[BX]], %[[DX]]
// CHECK-NEXT: %[[X:.*]] = arith.addi %[[M]], %[[TX]]
// CHECK-NEXT: %[[N:.*]] = arith.muli %[[BY]], %[[DY]]
// CHECK-NEXT: %[[Y:.*]] = arith.addi %[[N]], %[[TY]]
// CHECK: memref.load %{{.*}}[%[[Y]], %[[X]]] : memref<100x64xf32>
func.func @columns(%A: memref<100x64xf32>, %B: memref<100x64xf32>) {
  tpoly.scop {
    affine.for %j = 0 to 64 {
      affine.for %i = 0 to 100 {
        %a = affine.load %A[%i, %j] : memref<100x64xf32>
        affine.store %a, %B[%i, %j] : memref<100x64xf32>
      } {tpoly.band = 0 : i64, tpoly.coincident, tpoly.member = 1 : i64, tpoly.permutable}
    } {tpoly.band = 0 : i64, tpoly.coincident, tpoly.member = 0 : i64, tpoly.permutable}
  }
  return
}

// Paper 003's priorities weigh each access by how often it runs: A[j][i], read 100
// times per thread in the k loop, earns i the neighbouring-element priority P'' 100
// times over (100 * 128/4), more than B and C, coalesced along j, earn j (2 * 32); the
// scalar, one element for all threads, earns both alike. So i takes thread x though
// two accesses against one would be coalesced along j: x covers i's 128 iterations in
// 4 blocks of 32, y j's 16 in 2 blocks of 8.
// CHECK-LABEL: func.func @weighted(
// CHECK: gpu.launch blocks(%{{.*}}) in (%{{.*}} = %c4, %{{.*}} = %c2, %{{.*}} = %c1) threads(%{{.*}}) in (%{{.*}} = %c32, %{{.*}} = %c8, %{{.*}} = %c1)
func.func @weighted(%A: memref<16x128xf32>, %B: memref<128x16xf32>, %C: memref<128x16xf32>) {
  tpoly.scop {
    %acc = memref.alloca() : memref<f32>
    affine.for %i = 0 to 128 {
      affine.for %j = 0 to 16 {
        %b = affine.load %B[%i, %j] : memref<128x16xf32>
        affine.store %b, %acc[] : memref<f32>
        affine.for %k = 0 to 100 {
          %a = affine.load %A[%j, %i] : memref<16x128xf32>
          %s = affine.load %acc[] : memref<f32>
          %n = arith.addf %s, %a : f32
          affine.store %n, %acc[] : memref<f32>
        }
        %r = affine.load %acc[] : memref<f32>
        affine.store %r, %C[%i, %j] : memref<128x16xf32>
      } {tpoly.band = 0 : i64, tpoly.coincident, tpoly.member = 1 : i64, tpoly.permutable}
    } {tpoly.band = 0 : i64, tpoly.coincident, tpoly.member = 0 : i64, tpoly.permutable}
  }
  return
}

// A local scalar (a buffer at the top of the scop) that each thread writes and then
// reads back: every live range is inside one thread, so each thread gets its own copy
// (an alloca at the kernel's entry, which LLVM promotes to a register) and the loops
// run in parallel.
// CHECK-LABEL: func.func @rowsum(
// CHECK-NOT: gpu.alloc () : memref<f32>
// CHECK: gpu.launch
// CHECK-NEXT: %[[ACC:.*]] = memref.alloca() : memref<f32>
// CHECK: scf.if
// CHECK-NEXT: memref.store %{{.*}}, %[[ACC]][]
// CHECK-NEXT: scf.for
// CHECK: memref.load %[[ACC]][]
// CHECK: memref.store %{{.*}}, %[[ACC]][]
func.func @rowsum(%A: memref<8x8xf32>, %C: memref<8x8xf32>) {
  tpoly.scop {
    %acc = memref.alloca() : memref<f32>
    affine.for %i = 0 to 8 {
      affine.for %j = 0 to 8 {
        %z = arith.constant 0.0 : f32
        affine.store %z, %acc[] : memref<f32>
        affine.for %k = 0 to 8 {
          %a = affine.load %A[%i, %k] : memref<8x8xf32>
          %s = affine.load %acc[] : memref<f32>
          %t = arith.addf %s, %a : f32
          affine.store %t, %acc[] : memref<f32>
        } {tpoly.band = 1 : i64, tpoly.member = 0 : i64}
        %r = affine.load %acc[] : memref<f32>
        affine.store %r, %C[%i, %j] : memref<8x8xf32>
      } {tpoly.band = 0 : i64, tpoly.coincident, tpoly.member = 1 : i64, tpoly.permutable}
    } {tpoly.band = 0 : i64, tpoly.coincident, tpoly.member = 0 : i64, tpoly.permutable}
  }
  return
}

// The value the last iteration writes to a local scalar is read after the loop: a
// copy per thread would lose it, so the loop is not run in parallel (one thread runs
// it, with the scalar in device memory).
// CHECK-LABEL: func.func @last(
// CHECK: %[[T:.*]] = gpu.alloc () : memref<f32>
// CHECK: gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c1, %{{.*}} = %c1, %{{.*}} = %c1)
// CHECK-NEXT: scf.for
// CHECK: memref.store %{{.*}}, %[[T]][]
// CHECK: memref.load %[[T]][]
func.func @last(%x: memref<16xf32>, %y: memref<16xf32>) {
  tpoly.scop {
    %t = memref.alloca() : memref<f32>
    affine.for %i = 0 to 16 {
      %a = affine.load %x[%i] : memref<16xf32>
      affine.store %a, %t[] : memref<f32>
    } {tpoly.band = 0 : i64, tpoly.coincident, tpoly.member = 0 : i64, tpoly.permutable}
    %e = affine.load %t[] : memref<f32>
    affine.store %e, %y[0] : memref<16xf32>
  }
  return
}

// Tiles to blocks, points to threads (paper 001 Fig. 2, PPCG's matrix product): the
// band (i, j, k) is tiled 64 x 64 x 16; the coincident tile loops of i and j become a
// grid of 2 x 2 blocks of 32 x 32 threads (thread x on j: the accesses to B and C are
// then coalesced); k's tile loop runs inside the kernel; each thread covers 2 x 2
// points of its tile, its point loops starting at its thread id with the block's
// extent as step; k's point loop runs whole.
// With coarsen=4 each thread covers 4 times as many rows: 32 x 8 threads step by 8.
// COARSE-LABEL: func.func @mm(
// COARSE: gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c32, %{{.*}} = %c8, %{{.*}} = %c1)
// COARSE: scf.for %{{.*}} step %c8 {
// COARSE-NEXT: %{{.*}} = arith.muli %{{.*}}, %c64
// COARSE: scf.for %{{.*}} step %c32 {
// By default (coarsen=auto) the runtime chooses the y extent at launch from the 4
// blocks' threads and the device's resident threads (tessel_block_extent: 32, 16 or
// 8), and i's point loop steps by it. 4 blocks of 1024 threads do not fill sim's
// default H100 (132 x 2048 resident threads), so each keeps 32 x 32 threads.
// AUTO: func.func private @tessel_block_extent(index, index, index, index) -> index
// AUTO-LABEL: func.func @mm(
// AUTO: %[[EY:.*]] = call @tessel_block_extent(%c4, %c1024, %c32, %c4)
// AUTO: gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c32, %{{.*}} = %[[EY]], %{{.*}} = %c1)
// AUTO: scf.for %{{.*}} step %[[EY]] {
// AUTO-PROFILE: "kernel": "mm_k0", {{.*}}"block": [32, 32, 1]
// TILED-LABEL: func.func @mm(
// TILED: gpu.launch blocks(%[[BX:.*]], %[[BY:.*]], %{{.*}}) in (%{{.*}} = %c2, %{{.*}} = %c2, %{{.*}} = %c1) threads(%[[TX:.*]], %[[TY:.*]], %{{.*}}) in (%{{.*}} = %c32, %{{.*}} = %c32, %{{.*}} = %c1)
// TILED: scf.if
// TILED-NEXT: scf.for %[[KT:.*]] = %c0 to %c8 step %c1 {
// TILED-NEXT: %[[I0:.*]] = arith.muli %[[BY]], %c64
// TILED: %[[IT:.*]] = arith.addi %[[I0]], %[[TY]]
// TILED-NEXT: scf.for %[[I:.*]] = %[[IT]] to %{{.*}} step %c32 {
// TILED-NEXT: %[[J0:.*]] = arith.muli %[[BX]], %c64
// TILED: %[[JT:.*]] = arith.addi %[[J0]], %[[TX]]
// TILED-NEXT: scf.for %[[J:.*]] = %[[JT]] to %{{.*}} step %c32 {
// TILED-NEXT: %[[K0:.*]] = arith.muli %[[KT]], %c16
// TILED: scf.for %[[K:.*]] = %[[K0]] to %{{.*}} step %c1 {
// TILED-NEXT: memref.load %{{.*}}[%[[I]], %[[K]]]
// TILED-NEXT: memref.load %{{.*}}[%[[K]], %[[J]]]
// TILED-NEXT: memref.load %{{.*}}[%[[I]], %[[J]]]
func.func @mm(%A: memref<128x128xf32>, %B: memref<128x128xf32>, %C: memref<128x128xf32>) {
  tpoly.scop {
    affine.for %i = 0 to 128 {
      affine.for %j = 0 to 128 {
        affine.for %k = 0 to 128 {
          %a = affine.load %A[%i, %k] : memref<128x128xf32>
          %b = affine.load %B[%k, %j] : memref<128x128xf32>
          %c = affine.load %C[%i, %j] : memref<128x128xf32>
          %p = arith.mulf %a, %b : f32
          %s = arith.addf %c, %p : f32
          affine.store %s, %C[%i, %j] : memref<128x128xf32>
        }
      }
    }
  }
  return
}

// A scop with results is not mapped: a remark says why.
// DIAG: map-to-gpu.mlir:[[# @LINE + 3]]:8: remark: scop not mapped to the GPU: the scop has results
// CHECK-LABEL: func.func @results(
func.func @results(%A: memref<10xf32>) -> index {
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

// After two sweeps every element is 4 but the first, set to 1; doubled into W: 8.
// A row of 8 fours sums to 32; the last of x (0, 1, ..., 15) is 15.
// OUT: 1
// OUT-NEXT: 4
// OUT-NEXT: 8
// OUT-NEXT: 32
// OUT-NEXT: 15
// A product of ones by twos over 128: 256.
// OUT-NEXT: 256
// PROFILE: "kernel": "twod_k0"
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c100 = arith.constant 100 : index
  %n = arith.constant 300 : index
  %one = arith.constant 1.0 : f32
  %A = memref.alloc() : memref<64x100xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    scf.for %j = %c0 to %c100 step %c1 {
      memref.store %one, %A[%i, %j] : memref<64x100xf32>
    }
  }
  func.call @twod(%A, %c2) : (memref<64x100xf32>, index) -> ()
  %x = memref.load %A[%c0, %c0] : memref<64x100xf32>
  %y = memref.load %A[%c1, %c2] : memref<64x100xf32>
  %V = memref.alloc(%n) : memref<?xf32>
  %W = memref.alloc(%n) : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    memref.store %y, %V[%i] : memref<?xf32>
  }
  func.call @vadd(%V, %W, %n) : (memref<?xf32>, memref<?xf32>, index) -> ()
  %w = memref.load %W[%c100] : memref<?xf32>
  func.call @tessel_print_f32(%x) : (f32) -> ()
  func.call @tessel_print_f32(%y) : (f32) -> ()
  func.call @tessel_print_f32(%w) : (f32) -> ()
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %four = arith.constant 4.0 : f32
  %R = memref.alloc() : memref<8x8xf32>
  %S = memref.alloc() : memref<8x8xf32>
  scf.for %i = %c0 to %c8 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      memref.store %four, %R[%i, %j] : memref<8x8xf32>
    }
  }
  func.call @rowsum(%R, %S) : (memref<8x8xf32>, memref<8x8xf32>) -> ()
  %r = memref.load %S[%c2, %c1] : memref<8x8xf32>
  func.call @tessel_print_f32(%r) : (f32) -> ()
  %X = memref.alloc() : memref<16xf32>
  %Y = memref.alloc() : memref<16xf32>
  scf.for %i = %c0 to %c16 step %c1 {
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    memref.store %f, %X[%i] : memref<16xf32>
  }
  func.call @last(%X, %Y) : (memref<16xf32>, memref<16xf32>) -> ()
  %l = memref.load %Y[%c0] : memref<16xf32>
  func.call @tessel_print_f32(%l) : (f32) -> ()
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %MA = memref.alloc() : memref<128x128xf32>
  %MB = memref.alloc() : memref<128x128xf32>
  %MC = memref.alloc() : memref<128x128xf32>
  scf.for %i = %c0 to %c128 step %c1 {
    scf.for %j = %c0 to %c128 step %c1 {
      memref.store %one, %MA[%i, %j] : memref<128x128xf32>
      memref.store %two, %MB[%i, %j] : memref<128x128xf32>
      memref.store %zero, %MC[%i, %j] : memref<128x128xf32>
    }
  }
  func.call @mm(%MA, %MB, %MC) : (memref<128x128xf32>, memref<128x128xf32>, memref<128x128xf32>) -> ()
  %m = memref.load %MC[%c2, %c100] : memref<128x128xf32>
  func.call @tessel_print_f32(%m) : (f32) -> ()
  return
}
func.func private @tessel_print_f32(f32)
