// tessel-lower-shared on a block whose x size is the tile's row length (32 threads, rows
// of 32 floats, as a transpose's tiles): each thread's column is its thread id x and
// its first row its thread id y, read from the ids rather than from the remainder and
// the quotient of its linear id, which later simplification cannot see through.
// RUN: tessel-opt %s --tessel-lower-shared | FileCheck %s
// RUN: tessel-run %s --device=sim | FileCheck %s --check-prefix=OUT

// CHECK-LABEL: func.func @main(
// CHECK: gpu.launch
// CHECK: %[[TX:.*]] = gpu.thread_id x
// CHECK-NOT: arith.remui
// CHECK-NOT: arith.divui %thread_id_x
// CHECK: %[[COL:.*]] = arith.addi %[[TX]], %{{.*}} : index
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %[[COL]]] : memref<8x32xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier

// Thread t < 32 sums column t of A (A[r][c] = 100 r + c) over the 8 rows: 2800 + 8 t.
// OUT: 2800
// OUT-NEXT: 2808
// OUT-NEXT: 3048

module attributes {gpu.container_module} {
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c31 = arith.constant 31 : index
    %c32 = arith.constant 32 : index
    %c100 = arith.constant 100 : index
    %h = memref.alloc() : memref<8x32xf32>
    scf.for %i = %c0 to %c8 step %c1 {
      scf.for %j = %c0 to %c32 step %c1 {
        %a = arith.muli %i, %c100 : index
        %b = arith.addi %a, %j : index
        %n = arith.index_cast %b : index to i64
        %v = arith.sitofp %n : i64 to f32
        memref.store %v, %h[%i, %j] : memref<8x32xf32>
      }
    }
    %A = gpu.alloc () : memref<8x32xf32>
    %S = gpu.alloc () : memref<32xf32>
    gpu.memcpy %A, %h : memref<8x32xf32>, memref<8x32xf32>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c4, %sz = %c1) {
      %s = tgpu.alloc_shared [8, 32] padding [0, 0] : memref<8x32xf32, #gpu.address_space<workgroup>>
      tgpu.tile_copy %A to %s offsets [%c0, %c0] tile [8, 32]
          : memref<8x32xf32> to memref<8x32xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %first = arith.cmpi eq, %ty, %c0 : index
      scf.if %first {
        %zero = arith.constant 0.0 : f32
        %sum = scf.for %r = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (f32) {
          %x = memref.load %s[%r, %tx] : memref<8x32xf32, #gpu.address_space<workgroup>>
          %y = arith.addf %acc, %x : f32
          scf.yield %y : f32
        }
        memref.store %sum, %S[%tx] : memref<32xf32>
      }
      gpu.terminator
    }
    %hs = memref.alloc() : memref<32xf32>
    gpu.memcpy %hs, %S : memref<32xf32>, memref<32xf32>
    %s0 = memref.load %hs[%c0] : memref<32xf32>
    %s1 = memref.load %hs[%c1] : memref<32xf32>
    %s31 = memref.load %hs[%c31] : memref<32xf32>
    func.call @tessel_print_f32(%s0) : (f32) -> ()
    func.call @tessel_print_f32(%s1) : (f32) -> ()
    func.call @tessel_print_f32(%s31) : (f32) -> ()
    return
  }
  func.func private @tessel_print_f32(f32)
}
