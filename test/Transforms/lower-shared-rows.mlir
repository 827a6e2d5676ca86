// RUN: tessel-opt %s --tessel-lower-shared | FileCheck %s
// RUN: tessel-run %s --device=sim --profile=%t.json | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --input-file=%t.json --check-prefix=PROFILE
// The cooperative copy of a narrow tile (paper 000 Table 1's thread remapping, for the
// copy): 8 doubles per row, padded to 9 (as tessel-pad-banks pads a box staged for
// column reads). Half a warp spans two rows; rows 1 apart would share banks 0 and 1
// (18 words apart), rows 8 apart (144 words) fall in different banks. So each warp
// writes rows q and q + 8: 2 wavefronts per request, f64's minimum, instead of 4. The
// global side is unchanged: the rows of the box are apart in A anyway.

// CHECK-LABEL: func.func @main(
// CHECK: gpu.launch
// The block's threads are a multiple of the rows' 8 elements: each thread keeps its
// column and the loop counts rows.
// CHECK: %[[C:.*]] = arith.remui %{{.*}}, %{{.*}} : index
// CHECK: scf.for %[[E:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// The row: blocks of 16 rows, two steps of 8 apart per half-warp.
// CHECK: %[[W:.*]] = arith.divui %[[E]], %[[B:.*]] : index
// CHECK: %[[I:.*]] = arith.remui %[[E]], %[[B]] : index
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[E]], %{{.*}} : index
// CHECK: %[[R:.*]] = arith.select %[[IN]], %{{.*}}, %[[E]] : index
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[R]], %[[C]]] : memref<32x9xf64, #gpu.address_space<workgroup>>

// OUT: 0
// OUT-NEXT: 317
// OUT-NEXT: 92
// OUT-NEXT: 40576

// PROFILE: "shared_load_requests": [[#LD:]],
// PROFILE-SAME: "shared_load_wavefronts": [[#mul(LD,2)]], "shared_store_requests": [[#ST:]],
// PROFILE-SAME: "shared_store_wavefronts": [[#mul(ST,2)]],

module attributes {gpu.container_module} {
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c7 = arith.constant 7 : index
    %c8 = arith.constant 8 : index
    %c9 = arith.constant 9 : index
    %c10 = arith.constant 10 : index
    %c31 = arith.constant 31 : index
    %c32 = arith.constant 32 : index
    %h = memref.alloc() : memref<32x8xf64>
    scf.for %i = %c0 to %c32 step %c1 {
      scf.for %j = %c0 to %c8 step %c1 {
        %a = arith.muli %i, %c10 : index
        %b = arith.addi %a, %j : index
        %v = arith.index_cast %b : index to i64
        %f = arith.sitofp %v : i64 to f64
        memref.store %f, %h[%i, %j] : memref<32x8xf64>
      }
    }
    %A = gpu.alloc () : memref<32x8xf64>
    %B = gpu.alloc () : memref<32x8xf64>
    gpu.memcpy %A, %h : memref<32x8xf64>, memref<32x8xf64>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
      %s = tgpu.alloc_shared [32, 8] padding [0, 1] : memref<32x9xf64, #gpu.address_space<workgroup>>
      tgpu.tile_copy %A to %s offsets [%c0, %c0] tile [32, 8]
          : memref<32x8xf64> to memref<32x9xf64, #gpu.address_space<workgroup>>
      gpu.barrier
      tgpu.tile_copy %s to %B offsets [%c0, %c0] tile [32, 8]
          : memref<32x9xf64, #gpu.address_space<workgroup>> to memref<32x8xf64>
      gpu.terminator
    }
    gpu.memcpy %h, %B : memref<32x8xf64>, memref<32x8xf64>
    %r0 = memref.load %h[%c0, %c0] : memref<32x8xf64>
    %r1 = memref.load %h[%c31, %c7] : memref<32x8xf64>
    %r2 = memref.load %h[%c9, %c2] : memref<32x8xf64>
    %i0 = arith.fptosi %r0 : f64 to i32
    %i1 = arith.fptosi %r1 : f64 to i32
    %i2 = arith.fptosi %r2 : f64 to i32
    func.call @tessel_print_i32(%i0) : (i32) -> ()
    func.call @tessel_print_i32(%i1) : (i32) -> ()
    func.call @tessel_print_i32(%i2) : (i32) -> ()
    %z = arith.constant 0.0 : f64
    %sum = scf.for %i = %c0 to %c32 step %c1 iter_args(%acc = %z) -> f64 {
      %row = scf.for %j = %c0 to %c8 step %c1 iter_args(%a2 = %acc) -> f64 {
        %v = memref.load %h[%i, %j] : memref<32x8xf64>
        %n = arith.addf %a2, %v : f64
        scf.yield %n : f64
      }
      scf.yield %row : f64
    }
    %si = arith.fptosi %sum : f64 to i32
    func.call @tessel_print_i32(%si) : (i32) -> ()
    return
  }
  func.func private @tessel_print_i32(i32)
}
