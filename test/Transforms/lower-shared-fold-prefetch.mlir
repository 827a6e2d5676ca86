// tessel-lower-shared prefetches a folded copy (`fold`, tessel-pad-banks' padding of a
// 1-D buffer) at the top of a loop run in sequence like any other: each thread's two
// elements of the next tile are loaded into registers right after the loop's first
// barrier, and the copy stores the registers into the buffer's rows. Run on sim, each
// thread sums the word 16 t of four tiles of 100 elements of A (A[i] = 3 i + 1).
// RUN: tessel-opt %s --tessel-lower-shared | FileCheck %s
// RUN: tessel-run %s --device=sim | FileCheck %s --check-prefix=OUT

// CHECK-LABEL: func.func @main(
// CHECK: gpu.launch
// CHECK: %[[R0:.*]] = memref.alloca() : memref<i32>
// CHECK: %[[R1:.*]] = memref.alloca() : memref<i32>
// CHECK: scf.for
// CHECK: %[[V:.*]] = memref.load %[[R0]][] : memref<i32>
// CHECK: memref.store %[[V]], %{{.*}}[%{{.*}}, %{{.*}}] : memref<4x33xi32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[R0]][] : memref<i32>
// CHECK: memref.store %{{.*}}, %[[R1]][] : memref<i32>

// OUT: 1804
// OUT-NEXT: 2764
// OUT-NEXT: 2992

module attributes {gpu.container_module} {
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c64 = arith.constant 64 : index
    %c400 = arith.constant 400 : index
    %h = memref.alloc() : memref<400xi32>
    scf.for %i = %c0 to %c400 step %c1 {
      %a = arith.muli %i, %c3 : index
      %b = arith.addi %a, %c1 : index
      %v = arith.index_cast %b : index to i32
      memref.store %v, %h[%i] : memref<400xi32>
    }
    %A = gpu.alloc () : memref<400xi32>
    %B = gpu.alloc () : memref<64xi32>
    gpu.memcpy %A, %h : memref<400xi32>, memref<400xi32>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
      %z = arith.constant 0 : i32
      %acc = memref.alloca() : memref<i32>
      memref.store %z, %acc[] : memref<i32>
      %c4 = arith.constant 4 : index
      %c100 = arith.constant 100 : index
      %c16 = arith.constant 16 : index
      %c32 = arith.constant 32 : index
      %s = tgpu.alloc_shared [4, 32] padding [0, 1] : memref<4x33xi32, #gpu.address_space<workgroup>>
      scf.for %k = %c0 to %c4 step %c1 {
        %o = arith.muli %k, %c100 : index
        tgpu.tile_copy %A to %s offsets [%o] tile [100] {fold = 32 : i64}
            : memref<400xi32> to memref<4x33xi32, #gpu.address_space<workgroup>>
        gpu.barrier
        %e0 = arith.muli %tx, %c16 : index
        %c99 = arith.constant 99 : index
        %e = arith.minui %e0, %c99 : index
        %r = arith.divui %e, %c32 : index
        %c = arith.remui %e, %c32 : index
        %v = memref.load %s[%r, %c] : memref<4x33xi32, #gpu.address_space<workgroup>>
        %a = memref.load %acc[] : memref<i32>
        %n = arith.addi %a, %v : i32
        memref.store %n, %acc[] : memref<i32>
        gpu.barrier
      }
      %fin = memref.load %acc[] : memref<i32>
      memref.store %fin, %B[%tx] : memref<64xi32>
      gpu.terminator
    }
    %hb = memref.alloc() : memref<64xi32>
    gpu.memcpy %hb, %B : memref<64xi32>, memref<64xi32>
    %c5 = arith.constant 5 : index
    %c63 = arith.constant 63 : index
    %b0 = memref.load %hb[%c0] : memref<64xi32>
    %b1 = memref.load %hb[%c5] : memref<64xi32>
    %b2 = memref.load %hb[%c63] : memref<64xi32>
    func.call @tessel_print_i32(%b0) : (i32) -> ()
    func.call @tessel_print_i32(%b1) : (i32) -> ()
    func.call @tessel_print_i32(%b2) : (i32) -> ()
    return
  }
  func.func private @tessel_print_i32(i32)
}
