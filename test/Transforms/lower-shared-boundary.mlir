// tessel-lower-shared on a boundary tile: the box [4, 8] of f64 at column 8 of a 4x12
// array holds 4 columns of it. The copy loads only those (guarded by the array's
// bounds) but stores every element of the box into shared memory, zero in the 16
// slots past the array's end, which no thread reads: each warp's store request stays
// whole, 4 rows of 8 doubles on rows 8 words apart, two wavefronts for 64 words, as
// an interior tile's. Storing only the 16 loaded elements (32 words, one wavefront's
// worth) on the same banks took two: a conflict the boundary alone made.
// RUN: tessel-opt %s --tessel-lower-shared | FileCheck %s
// RUN: tessel-run %s --device=sim --profile=%t.json | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --input-file=%t.json --check-prefix=PROFILE

// The guarded step (the block's 32 threads take a column each of rows 4 apart, all in
// the tile): the load under the array's bounds, the store under none.
// CHECK-LABEL: func.func @main(
// CHECK: gpu.launch
// CHECK: scf.for
// CHECK: %[[V:.*]] = scf.if %{{.*}} -> (f64) {
// CHECK-NEXT: memref.load
// CHECK: } else {
// CHECK-NEXT: arith.constant 0.000000e+00 : f64
// CHECK-NEXT: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: memref.store %[[V]], %{{.*}} : memref<4x8xf64, #gpu.address_space<workgroup>>

// Thread t < 4 sums column 8 + t of A (A[r][c] = 12 r + c): 72 + 4 (8 + t), reading
// consecutive doubles of each row of the buffer (one wavefront each of 4 requests).
// OUT: 104
// OUT-NEXT: 108
// OUT-NEXT: 112
// OUT-NEXT: 116
// PROFILE: "kernel": "main_kernel", {{.*}} "shared_load_requests": 4, "shared_load_wavefronts": 4, "shared_store_requests": 1, "shared_store_wavefronts": 2, "shared_ideal_wavefronts": 6,

module attributes {gpu.container_module} {
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c12 = arith.constant 12 : index
    %c32 = arith.constant 32 : index
    %h = memref.alloc() : memref<4x12xf64>
    scf.for %i = %c0 to %c4 step %c1 {
      scf.for %j = %c0 to %c12 step %c1 {
        %a = arith.muli %i, %c12 : index
        %b = arith.addi %a, %j : index
        %n = arith.index_cast %b : index to i64
        %v = arith.sitofp %n : i64 to f64
        memref.store %v, %h[%i, %j] : memref<4x12xf64>
      }
    }
    %A = gpu.alloc () : memref<4x12xf64>
    %S = gpu.alloc () : memref<4xf64>
    gpu.memcpy %A, %h : memref<4x12xf64>, memref<4x12xf64>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
      %s = tgpu.alloc_shared [4, 8] padding [0, 0] : memref<4x8xf64, #gpu.address_space<workgroup>>
      tgpu.tile_copy %A to %s offsets [%c0, %c8] tile [4, 8]
          : memref<4x12xf64> to memref<4x8xf64, #gpu.address_space<workgroup>>
      gpu.barrier
      %in = arith.cmpi ult, %tx, %c4 : index
      scf.if %in {
        %zero = arith.constant 0.0 : f64
        %sum = scf.for %j = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f64) {
          %x = memref.load %s[%j, %tx] : memref<4x8xf64, #gpu.address_space<workgroup>>
          %y = arith.addf %acc, %x : f64
          scf.yield %y : f64
        }
        memref.store %sum, %S[%tx] : memref<4xf64>
      }
      gpu.terminator
    }
    %hs = memref.alloc() : memref<4xf64>
    gpu.memcpy %hs, %S : memref<4xf64>, memref<4xf64>
    %s0 = memref.load %hs[%c0] : memref<4xf64>
    %s1 = memref.load %hs[%c1] : memref<4xf64>
    %s2 = memref.load %hs[%c2] : memref<4xf64>
    %s3 = memref.load %hs[%c3] : memref<4xf64>
    func.call @tessel_print_f64(%s0) : (f64) -> ()
    func.call @tessel_print_f64(%s1) : (f64) -> ()
    func.call @tessel_print_f64(%s2) : (f64) -> ()
    func.call @tessel_print_f64(%s3) : (f64) -> ()
    return
  }
  func.func private @tessel_print_f64(f64)
}
