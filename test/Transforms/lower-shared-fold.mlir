// tessel-lower-shared on copies with `fold` (tessel-pad-banks' padding of a 1-D buffer):
// the global side keeps its order and consecutive threads; element i of the tile goes
// to shared row i floordiv 32, column i mod 32, of rows padded to 33. Run on sim: each
// block reads the element 16 words after its thread's (conflict-free in the folded
// buffer), and the second block's tile runs past the end of A (those elements are not
// loaded; their slots get zero, one more store request, as whole as an interior tile's).
// RUN: tessel-opt %s --tessel-lower-shared | FileCheck %s
// RUN: tessel-run %s --device=sim --profile=%t.json | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --input-file=%t.json --check-prefix=PROFILE

// The copy-in's stores: shared (e floordiv 32, e mod 32) of the tile's element e.
// CHECK-LABEL: func.func @main(
// CHECK: gpu.launch
// CHECK: %[[W:.*]] = arith.constant 32 : index
// CHECK-NEXT: %[[R:.*]] = arith.divui %[[E:.*]], %[[W]] : index
// CHECK-NEXT: %[[C:.*]] = arith.remui %[[E]], %[[W]] : index
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[R]], %[[C]]] : memref<4x33xi32, #gpu.address_space<workgroup>>

// B[64 b + t] = A[64 b + (16 t mod 80)], A[i] = 3 i + 1; C = A copied out of the folded
// buffers (C[i] = A[i], i < 128).
// OUT: 49
// OUT-NEXT: 49
// OUT-NEXT: 385
// OUT-NEXT: 241
// OUT-NEXT: 16
// OUT-NEXT: 382
// Lanes read words 0, 16, 32, 48, 64 (five words, the others broadcast): three in
// bank 0 unfolded, banks 0, 16, 1, 17, 2 folded: one wavefront per request, as for
// the copies' (each request on consecutive elements of a row).
// PROFILE: "kernel": "main_kernel", {{.*}} "shared_load_requests": 6, "shared_load_wavefronts": 6, "shared_store_requests": 11, "shared_store_wavefronts": 11, "shared_ideal_wavefronts": 17,

module attributes {gpu.container_module} {
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c6 = arith.constant 6 : index
    %c5 = arith.constant 5 : index
    %c32 = arith.constant 32 : index
    %c68 = arith.constant 68 : index
    %c95 = arith.constant 95 : index
    %c127 = arith.constant 127 : index
    %c150 = arith.constant 150 : index
    %h = memref.alloc() : memref<150xi32>
    scf.for %i = %c0 to %c150 step %c1 {
      %a = arith.muli %i, %c3 : index
      %b = arith.addi %a, %c1 : index
      %v = arith.index_cast %b : index to i32
      memref.store %v, %h[%i] : memref<150xi32>
    }
    %A = gpu.alloc () : memref<150xi32>
    %B = gpu.alloc () : memref<96xi32>
    %C = gpu.alloc () : memref<128xi32>
    gpu.memcpy %A, %h : memref<150xi32>, memref<150xi32>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
      %s = tgpu.alloc_shared [4, 32] padding [0, 1] : memref<4x33xi32, #gpu.address_space<workgroup>>
      %c64 = arith.constant 64 : index
      %o = arith.muli %bx, %c64 : index
      tgpu.tile_copy %A to %s offsets [%o] tile [100] {fold = 32 : i64}
          : memref<150xi32> to memref<4x33xi32, #gpu.address_space<workgroup>>
      gpu.barrier
      %c16 = arith.constant 16 : index
      %c80 = arith.constant 80 : index
      %m = arith.muli %tx, %c16 : index
      %e = arith.remui %m, %c80 : index
      %r = arith.divui %e, %c32 : index
      %c = arith.remui %e, %c32 : index
      %v = memref.load %s[%r, %c] : memref<4x33xi32, #gpu.address_space<workgroup>>
      %g = arith.addi %o, %tx : index
      memref.store %v, %B[%g] : memref<96xi32>
      tgpu.tile_copy %s to %C offsets [%o] tile [64] {fold = 32 : i64}
          : memref<4x33xi32, #gpu.address_space<workgroup>> to memref<128xi32>
      gpu.terminator
    }
    %hb = memref.alloc() : memref<96xi32>
    gpu.memcpy %hb, %B : memref<96xi32>, memref<96xi32>
    %hc = memref.alloc() : memref<128xi32>
    gpu.memcpy %hc, %C : memref<128xi32>, memref<128xi32>
    %b0 = memref.load %hb[%c1] : memref<96xi32>
    %b1 = memref.load %hb[%c6] : memref<96xi32>
    %b2 = memref.load %hb[%c68] : memref<96xi32>
    %b3 = memref.load %hb[%c95] : memref<96xi32>
    %d0 = memref.load %hc[%c5] : memref<128xi32>
    %d1 = memref.load %hc[%c127] : memref<128xi32>
    func.call @tessel_print_i32(%b0) : (i32) -> ()
    func.call @tessel_print_i32(%b1) : (i32) -> ()
    func.call @tessel_print_i32(%b2) : (i32) -> ()
    func.call @tessel_print_i32(%b3) : (i32) -> ()
    func.call @tessel_print_i32(%d0) : (i32) -> ()
    func.call @tessel_print_i32(%d1) : (i32) -> ()
    return
  }
  func.func private @tessel_print_i32(i32)
}
