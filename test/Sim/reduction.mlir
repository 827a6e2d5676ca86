// A barrier-ordered tree reduction over two warps in shared memory: sum of 1..64.
// RUN: tessel-run %s --device=sim --profile=%t.json | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --input-file=%t.json

// OUT: 2080

// One barrier after the stores, one per halving step (6), each counted once per warp.
// CHECK: "kernel": "sum", {{.*}} "block": [64, 1, 1], {{.*}} "barriers": 14,

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @sum(%in: memref<64xf32>, %out: memref<1xf32>) workgroup(%sh : memref<64xf32, #gpu.address_space<workgroup>>) kernel {
      %tx = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c6 = arith.constant 6 : index
      %c32 = arith.constant 32 : index
      %v = memref.load %in[%tx] : memref<64xf32>
      memref.store %v, %sh[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      scf.for %k = %c0 to %c6 step %c1 {
        %s = arith.shrui %c32, %k : index
        %active = arith.cmpi ult, %tx, %s : index
        scf.if %active {
          %j = arith.addi %tx, %s : index
          %a = memref.load %sh[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
          %b = memref.load %sh[%j] : memref<64xf32, #gpu.address_space<workgroup>>
          %c = arith.addf %a, %b : f32
          memref.store %c, %sh[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
        }
        gpu.barrier
      }
      %first = arith.cmpi eq, %tx, %c0 : index
      scf.if %first {
        %r = memref.load %sh[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
        memref.store %r, %out[%c0] : memref<1xf32>
      }
      gpu.return
    }
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %h = memref.alloc() : memref<64xf32>
    scf.for %i = %c0 to %c64 step %c1 {
      %i1 = arith.addi %i, %c1 : index
      %ii = arith.index_cast %i1 : index to i32
      %f = arith.sitofp %ii : i32 to f32
      memref.store %f, %h[%i] : memref<64xf32>
    }
    %in = gpu.alloc() : memref<64xf32>
    %out = gpu.alloc() : memref<1xf32>
    gpu.memcpy %in, %h : memref<64xf32>, memref<64xf32>
    gpu.launch_func @kernels::@sum blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%in : memref<64xf32>, %out : memref<1xf32>)
    %r = memref.alloc() : memref<1xf32>
    gpu.memcpy %r, %out : memref<1xf32>, memref<1xf32>
    %v = memref.load %r[%c0] : memref<1xf32>
    func.call @tessel_print_f32(%v) : (f32) -> ()
    return
  }
  func.func private @tessel_print_f32(f32)
}
