// RUN: tessel-opt %s --tessel-optimize=pipeline=naive | FileCheck %s
// RUN: tessel-opt %s --tessel-optimize | FileCheck %s --check-prefix=TILED
// Paper 003's mappings (sec. 4.3 and 5, Table 6) for its benchmarks, from hand-written
// affine code through tessel-detect-scops, tessel-schedule (and tessel-tile) and
// tessel-map-to-gpu: thread x always walks the last subscript of the arrays, so a
// warp's accesses fall in a few lines.

// Matrix multiplication (paper 003 Fig. 8): row and col both parallel, A[row][k] the
// same for threads along col (P'_col), B[k][col] and C[row][col] neighbouring along
// col (P''_col): col on x (the block's 32), row on y (its 8).
// CHECK-LABEL: func.func @matmul(
// CHECK: gpu.launch blocks(%[[BX:[^,]*]], %[[BY:[^,]*]], %{{[^)]*}}) in ({{.*}}) threads(%[[TX:[^,]*]], %[[TY:[^,]*]], %{{[^)]*}}) in (%[[DX:[^ ]*]] = %c32, %[[DY:[^ ]*]] = %c8, %{{.*}} = %c1)
// CHECK-NEXT: %[[M:.*]] = arith.muli %[[BX]], %[[DX]]
// CHECK-NEXT: %[[X:.*]] = arith.addi %[[M]], %[[TX]]
// CHECK-NEXT: %[[N:.*]] = arith.muli %[[BY]], %[[DY]]
// CHECK-NEXT: %[[Y:.*]] = arith.addi %[[N]], %[[TY]]
// CHECK: memref.load %{{.*}}[%[[Y]], %[[K:.*]]] : memref<256x256xf32>
// CHECK-NEXT: memref.load %{{.*}}[%[[K]], %[[X]]] : memref<256x256xf32>
func.func @matmul(%A: memref<256x256xf32>, %B: memref<256x256xf32>, %C: memref<256x256xf32>) {
  affine.for %row = 0 to 256 {
    affine.for %col = 0 to 256 {
      %z = arith.constant 0.0 : f32
      affine.store %z, %C[%row, %col] : memref<256x256xf32>
      affine.for %k = 0 to 256 {
        %a = affine.load %A[%row, %k] : memref<256x256xf32>
        %b = affine.load %B[%k, %col] : memref<256x256xf32>
        %c = affine.load %C[%row, %col] : memref<256x256xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %c, %p : f32
        affine.store %s, %C[%row, %col] : memref<256x256xf32>
      }
    }
  }
  return
}

// A Jacobi stencil written column by column (j outer): every access's last subscript is
// j, so j takes thread x although it is the outer loop (the loop/thread swap of paper
// 003 sec. 4.4.2, here between two parallel loops).
// CHECK-LABEL: func.func @jacobi(
// CHECK: gpu.launch blocks(%[[BX:[^,]*]], %[[BY:[^,]*]], %{{[^)]*}}) in ({{.*}}) threads(%[[TX:[^,]*]], %[[TY:[^,]*]], %{{[^)]*}}) in (%[[DX:[^ ]*]] = %c32, %[[DY:[^ ]*]] = %c8, %{{.*}} = %c1)
// CHECK-NEXT: %[[M:.*]] = arith.muli %[[BX]], %[[DX]]
// CHECK-NEXT: %[[X:.*]] = arith.addi %[[M]], %[[TX]]
// CHECK: %[[J:.*]] = arith.addi %[[X]], %c1 : index
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %[[J]]] : memref<512x512xf32>
func.func @jacobi(%A: memref<512x512xf32>, %B: memref<512x512xf32>) {
  affine.for %j = 1 to 511 {
    affine.for %i = 1 to 511 {
      %n = affine.load %A[%i - 1, %j] : memref<512x512xf32>
      %s = affine.load %A[%i + 1, %j] : memref<512x512xf32>
      %w = affine.load %A[%i, %j - 1] : memref<512x512xf32>
      %e = affine.load %A[%i, %j + 1] : memref<512x512xf32>
      %a = arith.addf %n, %s : f32
      %b = arith.addf %w, %e : f32
      %c = arith.addf %a, %b : f32
      %q = arith.constant 0.25 : f32
      %r = arith.mulf %c, %q : f32
      affine.store %r, %B[%i, %j] : memref<512x512xf32>
    }
  }
  return
}

// A 3-D stencil (paper 003's poisson, Figs. 10-11): all three loops are parallel, so
// all three map to threads (32x4x2), k, the contiguous dimension, on x; no thread walks
// k in a loop of its own (the uncoalesced mapping of Fig. 11). Tiled: a block per
// 4x8x32 tile, x over k's 32 points; the z extent (at most 4) is chosen at launch, and
// the outermost point loop steps by it.
// CHECK-LABEL: func.func @poisson(
// CHECK: gpu.launch blocks(%[[BX:[^,]*]], %{{[^)]*}}) in ({{.*}}) threads(%[[TX:[^,]*]], %{{[^)]*}}) in (%[[DX:[^ ]*]] = %c32, %{{.*}} = %c4, %{{.*}} = %c2)
// CHECK-NEXT: %[[M:.*]] = arith.muli %[[BX]], %[[DX]]
// CHECK-NEXT: %[[X:.*]] = arith.addi %[[M]], %[[TX]]
// CHECK: %[[K:.*]] = arith.addi %[[X]], %c1 : index
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %[[K]]] : memref<128x128x128xf32>
// TILED-LABEL: func.func @poisson(
// TILED: %[[EZ:.*]] = call @tessel_block_extent(%c2048, %c1024, %c4, %c8{{.*}})
// TILED: gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c32, %{{.*}} = %c8, %{{.*}} = %[[EZ]])
// TILED: scf.for %{{.*}} step %[[EZ]] {
// The y and x extents (8, 32) cover their tiles' 8 and 32 points: one point each, a
// guard rather than a loop.
// TILED: %[[JIN:.*]] = arith.cmpi slt, %{{[0-9]+}}, %{{.*}} : index
// TILED-NEXT: scf.if %[[JIN]] {
// TILED: %[[KIN:.*]] = arith.cmpi slt, %[[K:[0-9]+]], %{{.*}} : index
// TILED-NEXT: scf.if %[[KIN]] {
// TILED: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %[[K]]] : memref<128x128x128xf32>
func.func @poisson(%A: memref<128x128x128xf32>, %B: memref<128x128x128xf32>) {
  affine.for %i = 1 to 127 {
    affine.for %j = 1 to 127 {
      affine.for %k = 1 to 127 {
        %x0 = affine.load %A[%i - 1, %j, %k] : memref<128x128x128xf32>
        %x1 = affine.load %A[%i + 1, %j, %k] : memref<128x128x128xf32>
        %y0 = affine.load %A[%i, %j - 1, %k] : memref<128x128x128xf32>
        %y1 = affine.load %A[%i, %j + 1, %k] : memref<128x128x128xf32>
        %z0 = affine.load %A[%i, %j, %k - 1] : memref<128x128x128xf32>
        %z1 = affine.load %A[%i, %j, %k + 1] : memref<128x128x128xf32>
        %a = arith.addf %x0, %x1 : f32
        %b = arith.addf %y0, %y1 : f32
        %c = arith.addf %z0, %z1 : f32
        %d = arith.addf %a, %b : f32
        %e = arith.addf %d, %c : f32
        affine.store %e, %B[%i, %j, %k] : memref<128x128x128xf32>
      }
    }
  }
  return
}
