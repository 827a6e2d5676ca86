// tessel-promote-shared with a share pragma (paper 000 Fig. 1, `#pragma tessel share`):
// the arrays it names are the seeds, promoted wherever the tile's footprint has a box
// that fits, whatever the reuse; the others follow the automatic rule. An array's C
// name is the name of its argument's location (`loc("A")`, as the frontend gives it).
// The box is the tile's footprint: `tessel-share` (share.mlir) chooses the tile sizes
// from the partitions and the candidates, and is not run here.
// RUN: tessel-opt %s --split-input-file --tessel-schedule --tessel-tile --tessel-promote-shared 2>/dev/null | FileCheck %s
// RUN: tessel-opt %s --split-input-file --tessel-schedule --tessel-tile --tessel-promote-shared -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// A point-wise scaling reads each element of A once: the automatic rule leaves it in
// global memory, the pragma stages it through shared memory. B, only written, has no
// read to stage; no array is named Z.
// REMARK: promote-shared-pragma.mlir:[[@LINE+11]]:{{[0-9]+}}: remark: share pragma: 'B' not promoted to shared memory: the tile only writes it
// REMARK: promote-shared-pragma.mlir:[[@LINE+10]]:{{[0-9]+}}: remark: share pragma: no array of the scop is named 'Z' (an array's C name is the location of its argument, loc("Z"))
// REMARK: promote-shared-pragma.mlir:[[@LINE+12]]:{{[0-9]+}}: remark: promoted to shared memory: a 32x32 box of f32 per tile (4096 bytes), named by the share pragma
// CHECK-LABEL: func.func @scaled(
// CHECK: tgpu.alloc_shared [32, 32] padding [0, 0] : memref<32x32xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: affine.apply
// CHECK-NEXT: affine.apply
// CHECK-NEXT: tgpu.tile_copy %{{.*}} to %{{.*}} tile [32, 32] : memref<256x256xf32> to memref<32x32xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: tgpu.alloc_shared
func.func @scaled(%n: index, %A: memref<256x256xf32> loc("A"), %B: memref<256x256xf32> loc("B")) {
  tpoly.scop share [#tpoly.share<"A"[TBY][TBX]>, #tpoly.share<"B"[TBY][TBX]>, #tpoly.share<"Z">] {
    affine.for %i = 0 to affine_map<()[s0] -> (s0)>()[%n] {
      affine.for %j = 0 to affine_map<()[s0] -> (s0)>()[%n] {
        %a = affine.load %A[%i, %j] : memref<256x256xf32>
        %b = arith.addf %a, %a : f32
        affine.store %b, %B[%i, %j] : memref<256x256xf32>
      }
    }
  }
  return
}

// -----

// Without the pragma: nothing promoted.
// REMARK-NOT: remark
// CHECK-LABEL: func.func @automatic(
// CHECK-NOT: tgpu.alloc_shared
// CHECK: return
func.func @automatic(%n: index, %A: memref<256x256xf32> loc("A"), %B: memref<256x256xf32> loc("B")) {
  tpoly.scop {
    affine.for %i = 0 to affine_map<()[s0] -> (s0)>()[%n] {
      affine.for %j = 0 to affine_map<()[s0] -> (s0)>()[%n] {
        %a = affine.load %A[%i, %j] : memref<256x256xf32>
        %b = arith.addf %a, %a : f32
        affine.store %b, %B[%i, %j] : memref<256x256xf32>
      }
    }
  }
  return
}
