// RUN: tessel-opt %s --tessel-uniform-loops | FileCheck %s
// RUN: tessel-run %s --device=sim --profile=%t.before.json | FileCheck %s --check-prefix=OUT
// RUN: tessel-opt %s --tessel-uniform-loops --tessel-lower-shared -o %t.mlir
// RUN: tessel-run %t.mlir --device=sim --profile=%t.json | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --input-file=%t.before.json --check-prefix=BEFORE
// RUN: FileCheck %s --input-file=%t.json --check-prefix=AFTER
// correlation's mirror corr[j][i] = corr[i][j] for j > i (64x64 i32, corr[i][j] =
// (64 i + j) mod 13), as tessel-map-to-gpu maps it: 32x32 tiles of the upper triangle,
// i on thread x, j on thread y coarsened (every 8th row of the tile, from the thread's
// first: max(j0, i + 1) + ty), the tile read from a transposed shared copy. In a tile
// on the diagonal each lane starts at a row of its own, so a warp's stores of
// corr[j][i] walk a diagonal. The rewrite versions the loop: where no lane's bounds
// clip the tile (max over the block of i + 1 <= j0), the loop as it is; else the loop
// from the tile's first row j0 + ty, each lane's own bounds a guard, so that the lanes
// store one row together.

// CHECK-LABEL: func.func @main(
// CHECK: gpu.launch
// CHECK: gpu.barrier
// CHECK: %[[START:.*]] = arith.maxsi %[[J0:.*]], %{{.*}} : index
// CHECK: %[[HI:.*]] = arith.minsi %{{.*}}, %{{.*}} : index
// CHECK: %[[U:.*]] = arith.addi %[[J0]], %{{.*}} : index
// CHECK: %[[FIRST:.*]] = arith.addi %[[U]], %{{.*}} : index
// CHECK: arith.cmpi sle, %{{.*}}, %[[U]] : index
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: scf.for %{{.*}} = %{{.*}} to %[[HI]] step %{{.*}} {
// CHECK: } {tessel.coarsened, tessel.uniform}
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.for %[[J:.*]] = %[[FIRST]] to %{{.*}} step %{{.*}} {
// CHECK-NEXT: %[[GE:.*]] = arith.cmpi sge, %[[J]], %[[START]] : index
// CHECK-NEXT: %[[LT:.*]] = arith.cmpi slt, %[[J]], %[[HI]] : index
// CHECK-NEXT: %[[OK:.*]] = arith.andi %[[GE]], %[[LT]] : i1
// CHECK-NEXT: scf.if %[[OK]] {
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[J]], %{{.*}}] : memref<64x64xi32>
// CHECK: } {tessel.coarsened, tessel.uniform}
// The second kernel stores the diagonal corr[i][i] before the loop with no barrier
// between: the thread that stores a row's diagonal is not the one that reads it after
// the rewrite, so the loop stays as it is.
// CHECK: gpu.launch
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<64x64xi32>
// CHECK: scf.for
// CHECK: } {tessel.coarsened}

// OUT: 47402290
// OUT-NEXT: 47533394

// The first kernel's stores: 1120 sectors against an ideal of 280 before, the ideal
// after; its reads of the shared copy by columns (the lanes' rows) lose their bank
// conflicts too: 124 wavefronts for 94 requests before, 94 after.
// BEFORE: "kernel": "main_kernel", {{.*}} "global_store_sectors": 1120, {{.*}} "global_store_ideal_sectors": 280, {{.*}} "shared_load_requests": 94, "shared_load_wavefronts": 124,
// AFTER: "kernel": "main_kernel", {{.*}} "global_store_sectors": 280, {{.*}} "global_store_ideal_sectors": 280, {{.*}} "shared_load_requests": 94, "shared_load_wavefronts": 94,

module attributes {gpu.container_module} {
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %c13 = arith.constant 13 : index
    %c32 = arith.constant 32 : index
    %c63 = arith.constant 63 : index
    %c64 = arith.constant 64 : index
    %one = arith.constant 1 : i32
    %z = arith.constant 0 : i32
    %h = memref.alloc() : memref<64x64xi32>
    scf.for %i = %c0 to %c64 step %c1 {
      scf.for %j = %c0 to %c64 step %c1 {
        %t = arith.muli %i, %c64 : index
        %u = arith.addi %t, %j : index
        %r = arith.remsi %u, %c13 : index
        %v = arith.index_cast %r : index to i32
        memref.store %v, %h[%i, %j] : memref<64x64xi32>
      }
    }
    %C = gpu.alloc () : memref<64x64xi32>
    %D = gpu.alloc () : memref<64x64xi32>
    gpu.memcpy %C, %h : memref<64x64xi32>, memref<64x64xi32>
    gpu.memcpy %D, %h : memref<64x64xi32>, memref<64x64xi32>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c2, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c8, %sz = %c1) {
      %upper = arith.cmpi sge, %by, %bx : index
      scf.if %upper {
        %sh = tgpu.alloc_shared [32, 32] padding [0, 1] : memref<32x33xi32, #gpu.address_space<workgroup>>
        %i0 = arith.muli %bx, %c32 : index
        %j0 = arith.muli %by, %c32 : index
        tgpu.tile_copy %C to %sh offsets [%i0, %j0] tile [32, 32] {permutation = array<i64: 1, 0>} : memref<64x64xi32> to memref<32x33xi32, #gpu.address_space<workgroup>>
        gpu.barrier
        %i = arith.addi %i0, %tx : index
        %own = arith.cmpi slt, %i, %c63 : index
        scf.if %own {
          %i1 = arith.addi %i, %c1 : index
          %start = arith.maxsi %j0, %i1 : index
          %jend = arith.addi %j0, %c32 : index
          %hi = arith.minsi %c64, %jend : index
          %lo = arith.addi %start, %ty : index
          scf.for %j = %lo to %hi step %sy {
            %jj = arith.subi %j, %j0 : index
            %v = memref.load %sh[%jj, %tx] : memref<32x33xi32, #gpu.address_space<workgroup>>
            memref.store %v, %C[%j, %i] : memref<64x64xi32>
          } {tessel.coarsened}
        }
      }
      gpu.terminator
    }
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c2, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c8, %sz = %c1) {
      %upper = arith.cmpi sge, %by, %bx : index
      scf.if %upper {
        %i0 = arith.muli %bx, %c32 : index
        %j0 = arith.muli %by, %c32 : index
        %i = arith.addi %i0, %tx : index
        %y0 = arith.cmpi eq, %ty, %c0 : index
        %diag = arith.cmpi eq, %by, %bx : index
        %first = arith.andi %y0, %diag : i1
        scf.if %first {
          memref.store %one, %D[%i, %i] : memref<64x64xi32>
        }
        %own = arith.cmpi slt, %i, %c63 : index
        scf.if %own {
          %i1 = arith.addi %i, %c1 : index
          %start = arith.maxsi %j0, %i1 : index
          %jend = arith.addi %j0, %c32 : index
          %hi = arith.minsi %c64, %jend : index
          %lo = arith.addi %start, %ty : index
          scf.for %j = %lo to %hi step %sy {
            %v = memref.load %D[%i, %j] : memref<64x64xi32>
            memref.store %v, %D[%j, %i] : memref<64x64xi32>
          } {tessel.coarsened}
        }
      }
      gpu.terminator
    }
    func.call @weighted(%C, %h) : (memref<64x64xi32>, memref<64x64xi32>) -> ()
    func.call @weighted(%D, %h) : (memref<64x64xi32>, memref<64x64xi32>) -> ()
    return
  }
  // Prints the sum of m[i][j] * (64 i + j + 1), so that a transposed element counts.
  func.func @weighted(%m: memref<64x64xi32>, %h: memref<64x64xi32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %z = arith.constant 0 : i32
    gpu.memcpy %h, %m : memref<64x64xi32>, memref<64x64xi32>
    %total = scf.for %i = %c0 to %c64 step %c1 iter_args(%acc = %z) -> i32 {
      %row = scf.for %j = %c0 to %c64 step %c1 iter_args(%a2 = %acc) -> i32 {
        %v = memref.load %h[%i, %j] : memref<64x64xi32>
        %t = arith.muli %i, %c64 : index
        %u = arith.addi %t, %j : index
        %w0 = arith.addi %u, %c1 : index
        %w = arith.index_cast %w0 : index to i32
        %p = arith.muli %v, %w : i32
        %n = arith.addi %a2, %p : i32
        scf.yield %n : i32
      }
      scf.yield %row : i32
    }
    func.call @tessel_print_i32(%total) : (i32) -> ()
    return
  }
  func.func private @tessel_print_i32(i32)
}
