// tessel-pad-banks on a 1-D shared buffer read at a stride with no loop to reorder
// (paper 000 Fig. 4: not 2-D, no sequential loop for the access-reordering leaf): the
// buffer is folded into rows of one pass over the banks (32 words) padded by the pad
// that gives the fewest wavefronts, `tgpu.alloc_shared [R, 32] padding [0, p]`, its
// subscripts e rewritten as (e floordiv 32, e mod 32) and its copy given `fold = 32`.
// Lanes 16 words apart, 16 to a bank, fall 33 words apart every other lane: 32 banks.
// On sim the gather takes 1 wavefront per request instead of 16, with the same values.
// RUN: tessel-opt %s --tessel-schedule --tessel-tile --tessel-promote-shared --tessel-pad-banks 2>/dev/null | FileCheck %s
// RUN: tessel-opt %s --tessel-schedule --tessel-tile --tessel-promote-shared --tessel-pad-banks -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: tessel-run %s --device=sim | FileCheck %s --check-prefix=OUT
// RUN: tessel-opt %s --tessel-optimize -o %t.mlir
// RUN: tessel-run %t.mlir --device=sim --profile=%t.json | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --input-file=%t.json --check-prefix=PROFILE

// REMARK: pad-banks-fold.mlir:[[@LINE+9]]:{{[0-9]+}}: remark: promoted to shared memory
// REMARK: pad-banks-fold.mlir:[[@LINE+8]]:{{[0-9]+}}: remark: shared buffer folded into rows of 32 padded by 1 element (paper 000 Fig. 4: padding, for a 1-D buffer): its strided accesses take {{[0-9.]+}} wavefronts per warp instead of 16
// CHECK-LABEL: func.func @gather(
// CHECK: %[[S:.*]] = tgpu.alloc_shared [{{[0-9]+}}, 32] padding [0, 1] : memref<{{[0-9]+}}x33xi32, #gpu.address_space<workgroup>>
// CHECK: tgpu.tile_copy %{{.*}} to %[[S]] offsets [%[[O:.*]]] tile [{{[0-9]+}}] {fold = 32 : i64}
// CHECK: affine.load %[[S]][(%{{.*}} * 16 - %[[O]]) floordiv 32, (%{{.*}} * 16 - %[[O]]) mod 32]
func.func @gather(%x: memref<16384xi32> loc("x"), %t: memref<1024xi32>) {
  tpoly.scop share [#tpoly.share<"x">] {
    affine.for %i = 0 to 1024 {
      %v = affine.load %x[%i * 16] : memref<16384xi32>
      affine.store %v, %t[%i] : memref<1024xi32>
    }
  }
  return
}

// t[i] = x[16 i], x[j] = 7 j mod 13.
// OUT: 0
// OUT-NEXT: 1
// OUT-NEXT: 7
// OUT-NEXT: 7
// PROFILE: "kernel": "gather_k0", {{.*}} "shared_load_requests": 32, "shared_load_wavefronts": 32, "shared_store_requests": 560, "shared_store_wavefronts": 560, "shared_ideal_wavefronts": 592,
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c13 = arith.constant 13 : index
  %c5 = arith.constant 5 : index
  %c100 = arith.constant 100 : index
  %c1023 = arith.constant 1023 : index
  %c16384 = arith.constant 16384 : index
  %x = memref.alloc() : memref<16384xi32>
  %t = memref.alloc() : memref<1024xi32>
  scf.for %i = %c0 to %c16384 step %c1 {
    %a = arith.muli %i, %c7 : index
    %b = arith.remui %a, %c13 : index
    %v = arith.index_cast %b : index to i32
    memref.store %v, %x[%i] : memref<16384xi32>
  }
  func.call @gather(%x, %t) : (memref<16384xi32>, memref<1024xi32>) -> ()
  %r0 = memref.load %t[%c0] : memref<1024xi32>
  %r1 = memref.load %t[%c5] : memref<1024xi32>
  %r2 = memref.load %t[%c100] : memref<1024xi32>
  %r3 = memref.load %t[%c1023] : memref<1024xi32>
  func.call @tessel_print_i32(%r0) : (i32) -> ()
  func.call @tessel_print_i32(%r1) : (i32) -> ()
  func.call @tessel_print_i32(%r2) : (i32) -> ()
  func.call @tessel_print_i32(%r3) : (i32) -> ()
  return
}
func.func private @tessel_print_i32(i32)
