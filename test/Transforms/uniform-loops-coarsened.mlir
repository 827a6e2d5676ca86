// RUN: tessel-opt %s --tessel-uniform-loops | FileCheck %s
// RUN: tessel-opt %s --tessel-uniform-loops --tessel-stage-rows | FileCheck %s --check-prefix=STAGED
// RUN: tessel-run %s --device=sim --profile=%t.before.json | FileCheck %s --check-prefix=OUT
// RUN: tessel-opt %s --tessel-uniform-loops --tessel-stage-rows --tessel-lower-shared -o %t.mlir
// RUN: tessel-run %t.mlir --device=sim --profile=%t.json | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --input-file=%t.before.json --check-prefix=BEFORE
// RUN: FileCheck %s --input-file=%t.json --check-prefix=AFTER
// syrk's C[i][j] = sum over k of A[i][k] * A[j][k] for j <= i (40x24 i32 A, A[i][k] =
// i + 2k mod 7), as tessel-map-to-gpu maps it: j on thread x, i on thread y coarsened
// (each thread y takes every 4th row of the tile: the loop starts at its own row
// 32 by + ty). The k loop reads A[j][k] down a column (a row per lane), which
// tessel-stage-rows stages only where the loops around it are the same in the whole
// block: the coarsened loop then starts at the tile's first row, the thread's row
// 4 steps further, and its guard gains i < the tile's end.

// CHECK-LABEL: func.func @main(
// CHECK: gpu.launch
// CHECK: scf.for %[[I0:.*]] = %{{.*}} to %[[HI:.*]] step %{{.*}} {
// CHECK-NEXT: %[[I:.*]] = arith.addi %[[I0]], %{{.*}} : index
// CHECK: %[[OWN:.*]] = arith.cmpi sle, %{{.*}}, %[[I]] : index
// CHECK: %[[LT:.*]] = arith.cmpi slt, %[[I]], %[[HI]] : index
// CHECK-NEXT: %[[OK:.*]] = arith.andi %{{.*}}, %[[LT]] : i1
// CHECK-NEXT: scf.if %[[OK]] {
// CHECK: memref.load %{{.*}}[%[[I]], %{{.*}}] : memref<40x24xi32>
// CHECK: } {tessel.coarsened, tessel.uniform}

// STAGED: tgpu.tile_copy %{{.*}} tile [32, 32]
// STAGED: gpu.barrier

// OUT: 179292

// The column reads of A[j][k] (a row per lane) become copies by rows: 20832 sectors
// against an ideal of 4620 before, the ideal 3712 after.
// BEFORE: "kernel": "main_kernel", {{.*}} "global_load_sectors": 20832, {{.*}} "global_load_ideal_sectors": 4620,
// AFTER: "kernel": "main_kernel", {{.*}} "global_load_sectors": 3712, {{.*}} "global_load_ideal_sectors": 3712,

module attributes {gpu.container_module} {
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c7 = arith.constant 7 : index
    %c24 = arith.constant 24 : index
    %c32 = arith.constant 32 : index
    %c40 = arith.constant 40 : index
    %h = memref.alloc() : memref<40x24xi32>
    %hc = memref.alloc() : memref<40x40xi32>
    %z = arith.constant 0 : i32
    scf.for %i = %c0 to %c40 step %c1 {
      scf.for %k = %c0 to %c24 step %c1 {
        %t = arith.muli %k, %c2 : index
        %u = arith.addi %i, %t : index
        %r = arith.remsi %u, %c7 : index
        %v = arith.index_cast %r : index to i32
        memref.store %v, %h[%i, %k] : memref<40x24xi32>
      }
      scf.for %j = %c0 to %c40 step %c1 {
        memref.store %z, %hc[%i, %j] : memref<40x40xi32>
      }
    }
    %A = gpu.alloc () : memref<40x24xi32>
    %C = gpu.alloc () : memref<40x40xi32>
    gpu.memcpy %A, %h : memref<40x24xi32>, memref<40x24xi32>
    gpu.memcpy %C, %hc : memref<40x40xi32>, memref<40x40xi32>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c2, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c4, %sz = %c1) {
      %s = memref.alloca() : memref<i32>
      %ibase = arith.muli %by, %c32 : index
      %iend = arith.addi %ibase, %c32 : index
      %hi = arith.minsi %iend, %c40 : index
      %lo = arith.addi %ibase, %ty : index
      scf.for %i = %lo to %hi step %c4 {
        %jbase = arith.muli %bx, %c32 : index
        %j = arith.addi %jbase, %tx : index
        %own = arith.cmpi sle, %j, %i : index
        scf.if %own {
          memref.store %z, %s[] : memref<i32>
          scf.for %k = %c0 to %c24 step %c1 {
            %p = memref.load %s[] : memref<i32>
            %a = memref.load %A[%i, %k] : memref<40x24xi32>
            %b = memref.load %A[%j, %k] : memref<40x24xi32>
            %m = arith.muli %a, %b : i32
            %n = arith.addi %p, %m : i32
            memref.store %n, %s[] : memref<i32>
          }
          %sum = memref.load %s[] : memref<i32>
          memref.store %sum, %C[%i, %j] : memref<40x40xi32>
        }
      } {tessel.coarsened}
      gpu.terminator
    }
    gpu.memcpy %hc, %C : memref<40x40xi32>, memref<40x40xi32>
    %total = scf.for %i = %c0 to %c40 step %c1 iter_args(%acc = %z) -> i32 {
      %row = scf.for %j = %c0 to %c40 step %c1 iter_args(%a2 = %acc) -> i32 {
        %v = memref.load %hc[%i, %j] : memref<40x40xi32>
        %n = arith.addi %a2, %v : i32
        scf.yield %n : i32
      }
      scf.yield %row : i32
    }
    func.call @tessel_print_i32(%total) : (i32) -> ()
    return
  }
  func.func private @tessel_print_i32(i32)
}
