// tessel-pad-banks after the promotion it builds on: shared buffers read down a column
// by a warp get one more element per row; a row-wise one is left alone. On sim the
// padded transpose takes one wavefront per shared request.
// RUN: tessel-opt %s --tessel-detect-scops --tessel-schedule --tessel-tile=min-blocks=1 --tessel-promote-shared=min-reuse=2.5 --tessel-pad-banks 2>/dev/null | FileCheck %s
// RUN: tessel-opt %s --tessel-detect-scops --tessel-schedule --tessel-tile=min-blocks=1 --tessel-promote-shared=min-reuse=2.5 --tessel-pad-banks -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: tessel-run %s --device=sim | FileCheck %s --check-prefix=OUT
// RUN: tessel-opt %s --tessel-optimize -o %t.mlir
// RUN: tessel-run %t.mlir --device=sim --profile=%t.json | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --input-file=%t.json --check-prefix=PROFILE

// A transpose: thread x on j reads A[j][i] down a column, lanes one row apart (paper
// 000 Fig. 4: 2-D, strided, stride == row width: the transposition leaf). The shared
// tile is stored transposed (the copy's `permutation`), so that the threads read along
// its rows; the copy, which reads A by rows, writes down the columns of the buffer,
// whose rows of 33 words spread those writes over 32 banks.
// CHECK-LABEL: func.func @transpose(
// CHECK: %[[S:.*]] = tgpu.alloc_shared [32, 32] padding [0, 1] : memref<32x33xf32, #gpu.address_space<workgroup>>
// CHECK: %[[O0:.*]] = affine.apply
// CHECK: %[[O1:.*]] = affine.apply
// CHECK: tgpu.tile_copy %arg0 to %[[S]] offsets [%[[O0]], %[[O1]]] tile [32, 32] {permutation = array<i64: 1, 0>} : memref<64x64xf32> to memref<32x33xf32, #gpu.address_space<workgroup>>
// CHECK: affine.for %[[I:.*]] =
// CHECK: affine.for %[[J:.*]] =
// CHECK: affine.load %[[S]][%[[I]] - %[[O1]], %[[J]] - %[[O0]]] : memref<32x33xf32, #gpu.address_space<workgroup>>
func.func @transpose(%A: memref<64x64xf32>, %B: memref<64x64xf32>) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 64 {
      %v = affine.load %A[%j, %i] : memref<64x64xf32>
      affine.store %v, %B[%i, %j] : memref<64x64xf32>
    }
  }
  return
}

// f64: a wavefront serves half a warp; rows of 33 doubles spread 16 lanes over 32 banks.
// CHECK-LABEL: func.func @transpose_f64(
// CHECK: tgpu.alloc_shared [32, 32] padding [0, 1] : memref<32x33xf64, #gpu.address_space<workgroup>>
func.func @transpose_f64(%A: memref<64x64xf64>, %B: memref<64x64xf64>) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 64 {
      %v = affine.load %A[%j, %i] : memref<64x64xf64>
      affine.store %v, %B[%i, %j] : memref<64x64xf64>
    }
  }
  return
}

// A stencil reads its shared tile along rows: no conflict, no padding.
// CHECK-LABEL: func.func @stencil(
// CHECK: tgpu.alloc_shared [34, 34] padding [0, 0] : memref<34x34xf32, #gpu.address_space<workgroup>>
func.func @stencil(%A: memref<64x64xf32>, %B: memref<64x64xf32>) {
  affine.for %i = 1 to 63 {
    affine.for %j = 1 to 63 {
      %n = affine.load %A[%i - 1, %j] : memref<64x64xf32>
      %s = affine.load %A[%i + 1, %j] : memref<64x64xf32>
      %w = affine.load %A[%i, %j - 1] : memref<64x64xf32>
      %e = affine.load %A[%i, %j + 1] : memref<64x64xf32>
      %a = arith.addf %n, %s : f32
      %b = arith.addf %w, %e : f32
      %r = arith.addf %a, %b : f32
      affine.store %r, %B[%i, %j] : memref<64x64xf32>
    }
  }
  return
}

// REMARK: pad-banks.mlir:27:12: remark: shared buffer transposed (paper 000 Fig. 4: read down a column, stride == row width), padded by 1 element per row: its accesses take 1 wavefronts per warp instead of 32
// REMARK: pad-banks.mlir:40:12: remark: shared buffer transposed (paper 000 Fig. 4: read down a column, stride == row width), padded by 1 element per row: its accesses take 2 wavefronts per warp instead of 32
// REMARK-NOT: shared buffer

// OUT: 4032
// OUT-NEXT: 191
// PROFILE: "kernel": "transpose_k0", {{.*}} "shared_load_requests": [[R:[0-9]+]], "shared_load_wavefronts": [[R]], "shared_store_requests": [[W:[0-9]+]], "shared_store_wavefronts": [[W]],
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  %A = memref.alloc() : memref<64x64xf32>
  %B = memref.alloc() : memref<64x64xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    scf.for %j = %c0 to %c64 step %c1 {
      %s = arith.muli %i, %c64 : index
      %t = arith.addi %s, %j : index
      %w = arith.index_cast %t : index to i32
      %f = arith.sitofp %w : i32 to f32
      memref.store %f, %A[%i, %j] : memref<64x64xf32>
    }
  }
  func.call @transpose(%A, %B) : (memref<64x64xf32>, memref<64x64xf32>) -> ()
  // B[0][63] = A[63][0] = 4032, B[63][2] = A[2][63] = 191.
  %v = memref.load %B[%c0, %c63] : memref<64x64xf32>
  func.call @tessel_print_f32(%v) : (f32) -> ()
  %u = memref.load %B[%c63, %c2] : memref<64x64xf32>
  func.call @tessel_print_f32(%u) : (f32) -> ()
  return
}
func.func private @tessel_print_f32(f32)
