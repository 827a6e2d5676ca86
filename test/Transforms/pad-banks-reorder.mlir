// tessel-pad-banks, paper 000 Fig. 4's access-reordering leaf: a shared buffer that is
// not 2-D (no row to pad), read by each thread along its own row in a sequential loop,
// is read in a rotated order, each thread starting at its own offset. Legal where the
// loop's iterations may run in any order: no dependence carried (isl), or integer
// reductions only. On sim the rotated reads take 1 wavefront per request instead of 16,
// and the results are those of the original order. Where the loop may not be reordered,
// the buffer is folded into rows of 32 words padded by 1 (the padding leaf, for a 1-D
// buffer): lanes 16 words apart fall 33 words apart every other lane, in 32 banks.
// RUN: tessel-opt %s --tessel-schedule --tessel-tile --tessel-promote-shared --tessel-pad-banks 2>/dev/null | FileCheck %s
// RUN: tessel-opt %s --tessel-schedule --tessel-tile --tessel-promote-shared --tessel-pad-banks -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: tessel-run %s --device=sim | FileCheck %s --check-prefix=OUT
// RUN: tessel-opt %s --tessel-optimize -o %t.mlir
// RUN: tessel-run %t.mlir --device=sim --profile=%t.json | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --input-file=%t.json --check-prefix=PROFILE

// Each i sums a row of 16 elements of x (i32): thread x on i reads the shared copy of
// x 16 words apart, 16 lanes in one bank. Every other lane starts in the same bank, so
// the rotation k' = (k + i floordiv 2) mod 16 gives those lanes offsets 0, 1, ..., 15:
// the warp's 32 words fall in 32 banks.
// REMARK: pad-banks-reorder.mlir:[[@LINE+16]]:{{[0-9]+}}: remark: promoted to shared memory
// REMARK: pad-banks-reorder.mlir:[[@LINE+15]]:{{[0-9]+}}: remark: loop reordered for shared memory (paper 000 Fig. 4: access reordering): each thread starts at its own offset, and its shared accesses take 1 wavefronts per warp instead of 16 over the loop's 16 steps
// CHECK: #[[ROT:.*]] = affine_map<(d0, d1, d2) -> (d1 + (d0 - d1 + d2 floordiv 2) mod 16)>
// CHECK-LABEL: func.func @rows(
// CHECK: %[[S:.*]] = tgpu.alloc_shared [4096] padding [0] : memref<4096xi32, #gpu.address_space<workgroup>>
// CHECK: affine.for %[[I:.*]] =
// CHECK-NEXT: affine.for %[[K:.*]] = 0 to 16 {
// CHECK-NEXT: %[[LB:.*]] = affine.apply
// CHECK-NEXT: %[[R:.*]] = affine.apply #[[ROT]](%[[K]], %[[LB]], %[[I]])
// CHECK: affine.load %[[S]][%[[I]] * 16 + %[[R]] - %{{.*}}]
// CHECK: arith.index_cast %[[R]] : index to i32
func.func @rows(%x: memref<16384xi32> loc("x"), %s: memref<1024xi32>) {
  tpoly.scop share [#tpoly.share<"x">] tile_sizes [256, 16] {
    affine.for %i = 0 to 1024 {
      affine.for %k = 0 to 16 {
        %a = affine.load %s[%i] : memref<1024xi32>
        %v = affine.load %x[%i * 16 + %k] : memref<16384xi32>
        %kk = arith.index_cast %k : index to i32
        %p = arith.muli %v, %kk : i32
        %r = arith.addi %a, %p : i32
        affine.store %r, %s[%i] : memref<1024xi32>
      }
    }
  }
  return
}

// The same sum in f32: another order would round differently. Not reordered: folded.
// REMARK: pad-banks-reorder.mlir:[[@LINE+13]]:{{[0-9]+}}: remark: shared accesses with bank conflicts not reordered (paper 000 Fig. 4: access reordering): the loop carries a dependence: a floating-point reduction (another order would round differently)
// REMARK: pad-banks-reorder.mlir:[[@LINE+12]]:{{[0-9]+}}: remark: shared buffer folded into rows of 32 padded by 1 element (paper 000 Fig. 4: padding, for a 1-D buffer): its strided accesses take 1.5 wavefronts per warp instead of 16 (on average over where a warp starts in a row)
// CHECK-LABEL: func.func @rows_f32(
// CHECK-NOT: mod 16
// CHECK: %[[F:.*]] = tgpu.alloc_shared [128, 32] padding [0, 1] : memref<128x33xf32, #gpu.address_space<workgroup>>
// CHECK: tgpu.tile_copy %{{.*}} to %[[F]] offsets [%[[O:.*]]] tile [4096] {fold = 32 : i64} : memref<16384xf32> to memref<128x33xf32, #gpu.address_space<workgroup>>
// CHECK: affine.load %[[F]][(%{{.*}} * 16 + %{{.*}} - %[[O]]) floordiv 32, (%{{.*}} * 16 + %{{.*}} - %[[O]]) mod 32]
// CHECK-LABEL: func.func @weighted(
func.func @rows_f32(%x: memref<16384xf32> loc("x"), %s: memref<1024xf32>) {
  tpoly.scop share [#tpoly.share<"x">] tile_sizes [256, 16] {
    affine.for %i = 0 to 1024 {
      affine.for %k = 0 to 16 {
        %a = affine.load %s[%i] : memref<1024xf32>
        %v = affine.load %x[%i * 16 + %k] : memref<16384xf32>
        %r = arith.addf %a, %v : f32
        affine.store %r, %s[%i] : memref<1024xf32>
      }
    }
  }
  return
}

// The loop's counter also indexes w (all lanes read one element of it, promoted too):
// a rotation would reorder those reads as well. Not reordered: folded; w, read as a
// broadcast, stays as it is.
// REMARK: pad-banks-reorder.mlir:[[@LINE+11]]:{{[0-9]+}}: remark: shared accesses with bank conflicts not reordered (paper 000 Fig. 4: access reordering): the loop's counter also indexes another array (its accesses would be reordered too)
// REMARK: pad-banks-reorder.mlir:[[@LINE+10]]:{{[0-9]+}}: remark: shared buffer folded into rows of 32 padded by 1 element
// CHECK-NOT: mod 16
// CHECK: tgpu.alloc_shared [128, 32] padding [0, 1] : memref<128x33xi32, #gpu.address_space<workgroup>>
// CHECK: tgpu.alloc_shared [16] padding [0] : memref<16xi32, #gpu.address_space<workgroup>>
// CHECK-LABEL: func.func @main(
func.func @weighted(%x: memref<16384xi32> loc("x"), %w: memref<16xi32>, %s: memref<1024xi32>) {
  tpoly.scop share [#tpoly.share<"x">] tile_sizes [256, 16] {
    affine.for %i = 0 to 1024 {
      affine.for %k = 0 to 16 {
        %a = affine.load %s[%i] : memref<1024xi32>
        %v = affine.load %x[%i * 16 + %k] : memref<16384xi32>
        %c = affine.load %w[%k] : memref<16xi32>
        %p = arith.muli %v, %c : i32
        %r = arith.addi %a, %p : i32
        affine.store %r, %s[%i] : memref<1024xi32>
      }
    }
  }
  return
}

// The same values in the original order and optimized (s[0] = sum_k k * (7k mod 13)).
// OUT: 672
// OUT-NEXT: 734502343
// OUT-NEXT: 975
// OUT-NEXT: 94
// PROFILE: "kernel": "rows_k0", {{.*}} "shared_load_requests": 512, "shared_load_wavefronts": 512,
// PROFILE: "kernel": "rows_f32_k0", {{.*}} "shared_load_requests": 512, "shared_load_wavefronts": 512, "shared_store_requests": 512, "shared_store_wavefronts": 512, "shared_ideal_wavefronts": 1024,
// PROFILE: "kernel": "weighted_k0", {{.*}} "shared_load_requests": 512, "shared_load_wavefronts": 512, "shared_store_requests": 512, "shared_store_wavefronts": 512, "shared_ideal_wavefronts": 1024,
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c13 = arith.constant 13 : index
  %c16 = arith.constant 16 : index
  %c1023 = arith.constant 1023 : index
  %c1024 = arith.constant 1024 : index
  %c16384 = arith.constant 16384 : index
  %x = memref.alloc() : memref<16384xi32>
  %s = memref.alloc() : memref<1024xi32>
  %xf = memref.alloc() : memref<16384xf32>
  %sf = memref.alloc() : memref<1024xf32>
  %w = memref.alloc() : memref<16xi32>
  %t = memref.alloc() : memref<1024xi32>
  scf.for %i = %c0 to %c16384 step %c1 {
    %a = arith.muli %i, %c7 : index
    %b = arith.remui %a, %c13 : index
    %v = arith.index_cast %b : index to i32
    memref.store %v, %x[%i] : memref<16384xi32>
    %f = arith.sitofp %v : i32 to f32
    memref.store %f, %xf[%i] : memref<16384xf32>
  }
  scf.for %i = %c0 to %c1024 step %c1 {
    %v = arith.index_cast %i : index to i32
    memref.store %v, %s[%i] : memref<1024xi32>
    %z = arith.constant 0.0 : f32
    memref.store %z, %sf[%i] : memref<1024xf32>
    memref.store %v, %t[%i] : memref<1024xi32>
  }
  scf.for %k = %c0 to %c16 step %c1 {
    %a = arith.subi %c7, %k : index
    %v = arith.index_cast %a : index to i32
    memref.store %v, %w[%k] : memref<16xi32>
  }
  func.call @rows(%x, %s) : (memref<16384xi32>, memref<1024xi32>) -> ()
  func.call @rows_f32(%xf, %sf) : (memref<16384xf32>, memref<1024xf32>) -> ()
  func.call @weighted(%x, %w, %t) : (memref<16384xi32>, memref<16xi32>, memref<1024xi32>) -> ()
  // s[0] = sum_k k * (7k mod 13); sf[1023] = sum_k x[16368 + k]; t[1023].
  %r0 = memref.load %s[%c0] : memref<1024xi32>
  func.call @tessel_print_i32(%r0) : (i32) -> ()
  %sum = arith.constant 0 : i32
  %total = scf.for %i = %c0 to %c1024 step %c1 iter_args(%acc = %sum) -> (i32) {
    %v = memref.load %s[%i] : memref<1024xi32>
    %iv = arith.index_cast %i : index to i32
    %m = arith.muli %v, %iv : i32
    %n = arith.addi %acc, %m : i32
    scf.yield %n : i32
  }
  func.call @tessel_print_i32(%total) : (i32) -> ()
  %r2 = memref.load %t[%c1023] : memref<1024xi32>
  func.call @tessel_print_i32(%r2) : (i32) -> ()
  %f = memref.load %sf[%c1023] : memref<1024xf32>
  func.call @tessel_print_f32(%f) : (f32) -> ()
  return
}
func.func private @tessel_print_i32(i32)
func.func private @tessel_print_f32(f32)
